// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/host/netdev_napi.h"

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace ringlab::host {

// The socket, its sequence numbers and its receive buffer.
struct GenlSocket {
    mnl_socket *nl = nullptr;
    unsigned portid = 0;
    unsigned seq = 0;
    std::array<char, 1024> out{};
    std::vector<char> in = std::vector<char>(64 * 1024); // a dump's batch fits
    ~GenlSocket()
    {
        if (nl) mnl_socket_close(nl);
    }
};

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

std::string errnoText(int e)
{
    return std::strerror(e);
}

// Each attribute in [start, start + len), bounds checked by libmnl (the macros it offers for
// this assign void pointers, which C++ does not allow).
template <class F> void forEachAttr(const void *start, std::size_t len, F &&f)
{
    const auto *a = static_cast<const nlattr *>(start);
    int rem = static_cast<int>(len);
    while (mnl_attr_ok(a, rem)) {
        f(a);
        rem -= static_cast<int>(MNL_ALIGN(a->nla_len));
        a = mnl_attr_next(a);
    }
}

template <class F> void forEachMessageAttr(const nlmsghdr *m, F &&f)
{
    const std::size_t hdr = MNL_ALIGN(sizeof(genlmsghdr));
    if (mnl_nlmsg_get_payload_len(m) < hdr) return;
    forEachAttr(mnl_nlmsg_get_payload_offset(m, sizeof(genlmsghdr)),
                mnl_nlmsg_get_payload_len(m) - hdr, f);
}

template <class F> void forEachNested(const nlattr *a, F &&f)
{
    forEachAttr(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a), f);
}

std::optional<std::uint64_t> unsignedOf(const nlattr *a)
{
    switch (mnl_attr_get_payload_len(a)) {
    case 1:
        return mnl_attr_get_u8(a);
    case 2:
        return mnl_attr_get_u16(a);
    case 4:
        return mnl_attr_get_u32(a);
    case 8:
        return mnl_attr_get_u64(a);
    default:
        return std::nullopt;
    }
}

std::optional<std::int64_t> signedOf(const nlattr *a)
{
    switch (mnl_attr_get_payload_len(a)) {
    case 4:
        return static_cast<std::int32_t>(mnl_attr_get_u32(a));
    case 8:
        return static_cast<std::int64_t>(mnl_attr_get_u64(a));
    default:
        return std::nullopt;
    }
}

nlmsghdr *startRequest(GenlSocket &s, std::uint16_t family, std::uint8_t cmd, std::uint16_t flags,
                       std::uint8_t version)
{
    nlmsghdr *nlh = mnl_nlmsg_put_header(s.out.data());
    nlh->nlmsg_type = family;
    nlh->nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
    nlh->nlmsg_seq = ++s.seq;
    auto *g = static_cast<genlmsghdr *>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
    g->cmd = cmd;
    g->version = version;
    return nlh;
}

// The kernel's error code of an NLMSG_ERROR (0: an ack) and its extended-ack text, if any.
int kernelError(const nlmsghdr *m, std::string &text)
{
    if (mnl_nlmsg_get_payload_len(m) < sizeof(nlmsgerr)) return EBADMSG;
    const auto *err = static_cast<const nlmsgerr *>(mnl_nlmsg_get_payload(m));
    if (m->nlmsg_flags & NLM_F_ACK_TLVS) {
        std::size_t off = sizeof(nlmsgerr);
        if (!(m->nlmsg_flags & NLM_F_CAPPED) && err->msg.nlmsg_len > sizeof(nlmsghdr))
            off += err->msg.nlmsg_len - sizeof(nlmsghdr);
        if (off < mnl_nlmsg_get_payload_len(m))
            forEachAttr(static_cast<const char *>(mnl_nlmsg_get_payload(m)) + off,
                        mnl_nlmsg_get_payload_len(m) - off, [&](const nlattr *a) {
                            if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
                                mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
                                text = mnl_attr_get_str(a);
                        });
    }
    return -err->error;
}

// Sends a request and hands each answer to `onMessage` until the kernel's ack (a do) or the
// end of a dump. The kernel's error comes back as a Status and its errno in `code`.
Status request(GenlSocket &s, nlmsghdr *nlh, const std::function<void(const nlmsghdr *)> &onMessage,
               int *code = nullptr)
{
    if (code) *code = 0;
    const bool dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
    if (!dump) nlh->nlmsg_flags |= NLM_F_ACK;
    if (mnl_socket_sendto(s.nl, nlh, nlh->nlmsg_len) < 0)
        return Status::failed("netlink: cannot send: " + errnoText(errno));
    const unsigned seq = nlh->nlmsg_seq;
    for (;;) {
        const ssize_t n = mnl_socket_recvfrom(s.nl, s.in.data(), s.in.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Status::failed("netlink: cannot receive: " + errnoText(errno));
        int rem = static_cast<int>(n);
        for (auto *m = reinterpret_cast<const nlmsghdr *>(s.in.data()); mnl_nlmsg_ok(m, rem);
             m = mnl_nlmsg_next(m, &rem)) {
            if (!mnl_nlmsg_seq_ok(m, seq) || !mnl_nlmsg_portid_ok(m, s.portid)) continue;
            if (m->nlmsg_type == NLMSG_ERROR || m->nlmsg_type == NLMSG_DONE) {
                int e = 0;
                std::string text;
                if (m->nlmsg_type == NLMSG_ERROR)
                    e = kernelError(m, text);
                else if (mnl_nlmsg_get_payload_len(m) >= sizeof(int))
                    e = -*static_cast<const int *>(mnl_nlmsg_get_payload(m));
                if (e <= 0) return Status::success(); // an ack, or the end of a dump
                if (code) *code = e;
                return Status::refused(errnoText(e) + (text.empty() ? "" : " (" + text + ")"));
            }
            if (m->nlmsg_type >= NLMSG_MIN_TYPE) onMessage(m);
        }
    }
}

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
    auto s = std::make_unique<GenlSocket>();
    s->nl = mnl_socket_open(NETLINK_GENERIC);
    if (!s->nl) return Status::failed("generic netlink socket: " + errnoText(errno));
    int one = 1; // the kernel's reason with its errors, without the request echoed back
    mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof one);
    mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one, sizeof one);
    if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0)
        return Status::failed("generic netlink socket: cannot bind: " + errnoText(errno));
    s->portid = mnl_socket_get_portid(s->nl);
    s->seq = static_cast<unsigned>(std::time(nullptr));

    nlmsghdr *nlh = startRequest(*s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, 1);
    mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "netdev");
    std::uint16_t family = 0;
    int code = 0;
    const Status st = request(
        *s, nlh,
        [&](const nlmsghdr *m) {
            forEachMessageAttr(m, [&](const nlattr *a) {
                if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID && mnl_attr_get_payload_len(a) >= 2)
                    family = mnl_attr_get_u16(a);
            });
        },
        &code);
    if (code == ENOENT)
        return Status::refused("this kernel has no netdev netlink family (Linux 6.3 and later "
                               "have it)");
    if (!st.ok()) return st.within("netdev netlink family: ");
    if (family == 0) return Status::failed("netdev netlink family: the kernel gave no id");
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
