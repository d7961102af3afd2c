// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/host/netdev_napi.h"

#include "drivers/host/genl_socket.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace ringlab::host {

namespace {

// include/uapi/linux/netdev.h: stable ABI, but newer than Debian 12's kernel headers (6.1).
constexpr std::uint8_t kCmdNapiGet = 11, kCmdNapiSet = 14;
constexpr std::uint8_t kNetdevVersion = 1;
enum : std::uint16_t {
    kNapiIfindex = 1,
    kNapiId = 2,
    kNapiIrq = 3,
    kNapiPid = 4,
    kNapiDeferHardIrqs = 5,
    kNapiGroFlushTimeout = 6,
    kNapiIrqSuspendTimeout = 7,
    kNapiThreaded = 8,
};
// include/uapi/linux/netlink.h since Linux 6.8 (variable-width integers).
constexpr int kNlAttrTypeSint = 16, kNlAttrTypeUint = 17;

constexpr std::string_view kAddressPrefix = "netlink:netdev/napi/";

constexpr NapiAttrInfo kAttrs[] = {
    {"threaded", kNapiThreaded, "mode",
     "0: polled in softirq after the interrupt; 1: by a kernel thread of its own "
     "(napi/IF-ID); 2, where the kernel has it: that thread busy polls"},
    {"defer-hard-irqs", kNapiDeferHardIrqs, "polls",
     "empty polls, each rescheduled by the gro-flush-timeout timer, before the device's "
     "interrupts are enabled again"},
    {"gro-flush-timeout", kNapiGroFlushTimeout, "ns",
     "how long GRO may hold packets; with defer-hard-irqs, the timer that polls again while "
     "the interrupts stay masked"},
    {"irq-suspend-timeout", kNapiIrqSuspendTimeout, "ns",
     "how long an application's epoll busy poll may keep the device's interrupts suspended "
     "while it finds events (IRQ suspension)"},
};

NapiInstance napiOf(const nlmsghdr *m)
{
    NapiInstance n;
    forEachMessageAttr(m, [&](const nlattr *a) {
        const auto v = unsignedOf(a);
        if (!v) return;
        switch (mnl_attr_get_type(a)) {
        case kNapiId:
            n.id = static_cast<std::uint32_t>(*v);
            break;
        case kNapiIfindex:
            n.ifindex = static_cast<std::uint32_t>(*v);
            break;
        case kNapiIrq:
            n.irq = static_cast<std::uint32_t>(*v);
            break;
        case kNapiPid:
            n.pid = static_cast<pid_t>(*v);
            break;
        case kNapiThreaded:
            n.threaded = *v;
            break;
        case kNapiDeferHardIrqs:
            n.deferHardIrqs = *v;
            break;
        case kNapiGroFlushTimeout:
            n.groFlushTimeoutNs = *v;
            break;
        case kNapiIrqSuspendTimeout:
            n.irqSuspendTimeoutNs = *v;
            break;
        default:
            break;
        }
    });
    return n;
}

std::uint64_t typeMax(int nlType)
{
    switch (nlType) {
    case NL_ATTR_TYPE_U8:
        return std::numeric_limits<std::uint8_t>::max();
    case NL_ATTR_TYPE_U16:
        return std::numeric_limits<std::uint16_t>::max();
    case NL_ATTR_TYPE_U32:
        return std::numeric_limits<std::uint32_t>::max();
    case NL_ATTR_TYPE_S32:
        return std::numeric_limits<std::int32_t>::max();
    default:
        return std::numeric_limits<std::uint64_t>::max();
    }
}

bool parseAddress(std::string_view a, std::uint32_t &id, const NapiAttrInfo *&attr)
{
    if (a.substr(0, kAddressPrefix.size()) != kAddressPrefix) return false;
    a.remove_prefix(kAddressPrefix.size());
    const auto slash = a.find('/');
    if (slash == std::string_view::npos || slash == 0) return false;
    const auto [end, ec] = std::from_chars(a.data(), a.data() + slash, id);
    if (ec != std::errc{} || end != a.data() + slash) return false;
    attr = findNapiAttr(a.substr(slash + 1));
    return attr != nullptr;
}

} // namespace

std::span<const NapiAttrInfo> napiSettableAttrs()
{
    return kAttrs;
}

const NapiAttrInfo *findNapiAttr(std::string_view name)
{
    for (const auto &a : kAttrs)
        if (a.name == name) return &a;
    return nullptr;
}

std::optional<std::uint64_t> NapiInstance::value(std::string_view attr) const
{
    if (attr == "threaded") return threaded;
    if (attr == "defer-hard-irqs") return deferHardIrqs;
    if (attr == "gro-flush-timeout") return groFlushTimeoutNs;
    if (attr == "irq-suspend-timeout") return irqSuspendTimeoutNs;
    return std::nullopt;
}

NetdevNetlink::~NetdevNetlink()
{
    delete sock_;
}

NetdevNetlink::NetdevNetlink(NetdevNetlink &&o) noexcept
    : sock_(std::exchange(o.sock_, nullptr)), family_(o.family_)
{
}

NetdevNetlink &NetdevNetlink::operator=(NetdevNetlink &&o) noexcept
{
    if (this != &o) {
        delete sock_;
        sock_ = std::exchange(o.sock_, nullptr);
        family_ = o.family_;
    }
    return *this;
}

Status NetdevNetlink::open(NetdevNetlink &out)
{
    std::unique_ptr<GenlSocket> s;
    std::uint16_t family = 0;
    int code = 0;
    const Status st = openGenl("netdev", s, family, &code);
    if (code == ENOENT)
        return Status::refused("this kernel has no netdev netlink family (Linux 6.3 and later "
                               "have it)");
    if (!st.ok()) return st;
    delete out.sock_;
    out.sock_ = s.release();
    out.family_ = family;
    return Status::success();
}

Status NetdevNetlink::napis(std::uint32_t ifindex, std::vector<NapiInstance> &out)
{
    if (!sock_) return Status::failed("netdev netlink: not open");
    out.clear();
    nlmsghdr *nlh = startRequest(*sock_, family_, kCmdNapiGet, NLM_F_DUMP, kNetdevVersion);
    mnl_attr_put_u32(nlh, kNapiIfindex, ifindex);
    const Status st = request(*sock_, nlh, [&](const nlmsghdr *m) {
        NapiInstance n = napiOf(m);
        if (n.ifindex == ifindex) out.push_back(n); // an old kernel may ignore the filter
    });
    return st.ok() ? st : st.within("napi-get of ifindex " + std::to_string(ifindex) + ": ");
}

Status NetdevNetlink::napi(std::uint32_t id, NapiInstance &out)
{
    if (!sock_) return Status::failed("netdev netlink: not open");
    nlmsghdr *nlh = startRequest(*sock_, family_, kCmdNapiGet, 0, kNetdevVersion);
    mnl_attr_put_u32(nlh, kNapiId, id);
    bool found = false;
    const Status st = request(*sock_, nlh, [&](const nlmsghdr *m) {
        out = napiOf(m);
        found = true;
    });
    if (!st.ok()) return st.within("napi-get of NAPI " + std::to_string(id) + ": ");
    if (!found) return Status::refused("napi-get of NAPI " + std::to_string(id) + ": no answer");
    return Status::success();
}

Status NetdevNetlink::settable(std::vector<NapiAttrLimits> &out)
{
    if (!sock_) return Status::failed("netdev netlink: not open");
    out.clear();
    nlmsghdr *nlh = startRequest(*sock_, GENL_ID_CTRL, CTRL_CMD_GETPOLICY, NLM_F_DUMP, 1);
    mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, family_);
    mnl_attr_put_u32(nlh, CTRL_ATTR_OP, kCmdNapiSet);
    struct Limits {
        int type = 0;
        std::optional<std::uint64_t> min, max;
    };
    std::optional<std::uint32_t> doPolicy;
    std::map<std::uint32_t, std::map<std::uint16_t, Limits>> policies;
    int code = 0;
    const Status st = request(
        *sock_, nlh,
        [&](const nlmsghdr *m) {
            forEachMessageAttr(m, [&](const nlattr *a) {
                if (mnl_attr_get_type(a) == CTRL_ATTR_OP_POLICY) {
                    forEachNested(a, [&](const nlattr *op) {
                        if (mnl_attr_get_type(op) != kCmdNapiSet) return;
                        forEachNested(op, [&](const nlattr *p) {
                            if (mnl_attr_get_type(p) == CTRL_ATTR_POLICY_DO)
                                if (const auto v = unsignedOf(p))
                                    doPolicy = static_cast<std::uint32_t>(*v);
                        });
                    });
                } else if (mnl_attr_get_type(a) == CTRL_ATTR_POLICY) {
                    forEachNested(a, [&](const nlattr *policy) {
                        auto &attrs = policies[mnl_attr_get_type(policy)];
                        forEachNested(policy, [&](const nlattr *attr) {
                            Limits &l = attrs[mnl_attr_get_type(attr)];
                            forEachNested(attr, [&](const nlattr *f) {
                                switch (mnl_attr_get_type(f)) {
                                case NL_POLICY_TYPE_ATTR_TYPE:
                                    l.type = static_cast<int>(unsignedOf(f).value_or(0));
                                    break;
                                case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
                                    l.min = unsignedOf(f);
                                    break;
                                case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
                                    l.max = unsignedOf(f);
                                    break;
                                case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
                                    if (const auto v = signedOf(f))
                                        l.min = static_cast<std::uint64_t>(
                                            std::max<std::int64_t>(0, *v));
                                    break;
                                case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
                                    if (const auto v = signedOf(f); v && *v >= 0)
                                        l.max = static_cast<std::uint64_t>(*v);
                                    break;
                                default:
                                    break;
                                }
                            });
                        });
                    });
                }
            });
        },
        &code);
    if (code == ENOENT || code == EOPNOTSUPP)
        return Status::refused("this kernel's netdev family has no napi-set (Linux 6.13 and "
                               "later have it); the device-wide sysfs files are used instead");
    if (!st.ok()) return st.within("the policy of napi-set: ");
    if (!doPolicy || !policies.count(*doPolicy))
        return Status::refused("the policy of napi-set: the kernel described none");
    const auto &attrs = policies[*doPolicy];
    for (const auto &info : kAttrs) {
        const auto it = attrs.find(info.id);
        if (it == attrs.end()) continue;
        const Limits &l = it->second;
        if (l.type != NL_ATTR_TYPE_U32 && l.type != NL_ATTR_TYPE_U64 && l.type != kNlAttrTypeUint &&
            l.type != NL_ATTR_TYPE_S32 && l.type != kNlAttrTypeSint)
            continue; // a type this program cannot send correctly: not offered
        out.push_back({&info, l.min.value_or(0), l.max.value_or(typeMax(l.type)), l.type});
    }
    return Status::success();
}

Status NetdevNetlink::set(std::uint32_t napiId, std::string_view attr, std::uint64_t value)
{
    const std::string what = "NAPI " + std::to_string(napiId) + "'s " + std::string(attr) + " = " +
                             std::to_string(value);
    std::vector<NapiAttrLimits> limits;
    if (Status st = settable(limits); !st.ok()) return st.within(what + ": ");
    const NapiAttrLimits *l = nullptr;
    std::string offered;
    for (const auto &x : limits) {
        offered += (offered.empty() ? "" : ", ") + std::string(x.attr->name);
        if (x.attr->name == attr) l = &x;
    }
    if (!l)
        return Status::refused(what + ": napi-set on this kernel does not take it (it takes: " +
                               (offered.empty() ? "nothing" : offered) + ")");
    if (value < l->min || value > l->max)
        return Status::refused(what + ": out of range; allowed " + std::to_string(l->min) + " to " +
                               std::to_string(l->max));
    nlmsghdr *nlh = startRequest(*sock_, family_, kCmdNapiSet, 0, kNetdevVersion);
    mnl_attr_put_u32(nlh, kNapiId, napiId);
    const bool wide = l->nlType == NL_ATTR_TYPE_U64 ||
                      ((l->nlType == kNlAttrTypeUint || l->nlType == kNlAttrTypeSint) &&
                       value > std::numeric_limits<std::uint32_t>::max());
    if (wide)
        mnl_attr_put_u64(nlh, l->attr->id, value);
    else
        mnl_attr_put_u32(nlh, l->attr->id, static_cast<std::uint32_t>(value));
    const Status st = request(*sock_, nlh, [](const nlmsghdr *) {});
    return st.ok() ? st : st.within(what + ": the kernel refused: ");
}

std::string napiSettingAddress(std::uint32_t napiId, std::string_view attr)
{
    return std::string(kAddressPrefix) + std::to_string(napiId) + "/" + std::string(attr);
}

bool isNapiSettingAddress(std::string_view path)
{
    std::uint32_t id = 0;
    const NapiAttrInfo *attr = nullptr;
    return parseAddress(path, id, attr);
}

Status readNapiSetting(const std::string &address, std::string &out)
{
    std::uint32_t id = 0;
    const NapiAttrInfo *attr = nullptr;
    if (!parseAddress(address, id, attr))
        return Status::refused(address + ": not a NAPI setting (" + std::string(kAddressPrefix) +
                               "ID/ATTR)");
    NetdevNetlink nl;
    if (Status st = NetdevNetlink::open(nl); !st.ok()) return st.within(address + ": ");
    NapiInstance n;
    if (Status st = nl.napi(id, n); !st.ok()) return st.within(address + ": ");
    const auto v = n.value(attr->name);
    if (!v)
        return Status::refused(address + ": this kernel does not report " +
                               std::string(attr->name));
    out = std::to_string(*v);
    return Status::success();
}

bool napiSettingGone(const std::string &address)
{
    std::uint32_t id = 0;
    const NapiAttrInfo *attr = nullptr;
    NetdevNetlink nl;
    if (!parseAddress(address, id, attr) || !NetdevNetlink::open(nl).ok()) return false;
    return nl.missing(id);
}

bool NetdevNetlink::missing(std::uint32_t id)
{
    if (!sock_) return false;
    nlmsghdr *nlh = startRequest(*sock_, family_, kCmdNapiGet, 0, kNetdevVersion);
    mnl_attr_put_u32(nlh, kNapiId, id);
    int code = 0;
    const Status st = request(
        *sock_, nlh, [](const nlmsghdr *) {}, &code);
    return !st.ok() && code == ENOENT;
}

Status writeNapiSetting(const std::string &address, const std::string &value)
{
    std::uint32_t id = 0;
    const NapiAttrInfo *attr = nullptr;
    if (!parseAddress(address, id, attr))
        return Status::refused(address + ": not a NAPI setting (" + std::string(kAddressPrefix) +
                               "ID/ATTR)");
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc{} || end != value.data() + value.size())
        return Status::refused(address + ": '" + value +
                               "' is not a whole number from 0 to 18446744073709551615");
    NetdevNetlink nl;
    if (Status st = NetdevNetlink::open(nl); !st.ok()) return st.within(address + ": ");
    return nl.set(id, attr->name, v);
}

} // namespace ringlab::host
