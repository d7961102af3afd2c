// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/host/ethtool_netlink.h"

#include <linux/ethtool_netlink.h>
#include <net/if.h>

#include <cerrno>
#include <charconv>

#include "drivers/host/genl_socket.h"

namespace ringlab::host {

namespace {

constexpr std::string_view kEthtoolPrefix = "ethtool:";
constexpr const char *kGroFeature = "rx-gro"; // netdev_features_strings[NETIF_F_GRO_BIT]

constexpr EthtoolAttrInfo kEthtoolAttrs[] = {
    {"gro", EthtoolMsg::Features, 0, 0, false, "-K gro"},
    {"rx-channels", EthtoolMsg::Channels, ETHTOOL_A_CHANNELS_RX_COUNT, ETHTOOL_A_CHANNELS_RX_MAX,
     false, "-L rx"},
    {"tx-channels", EthtoolMsg::Channels, ETHTOOL_A_CHANNELS_TX_COUNT, ETHTOOL_A_CHANNELS_TX_MAX,
     false, "-L tx"},
    {"combined-channels", EthtoolMsg::Channels, ETHTOOL_A_CHANNELS_COMBINED_COUNT,
     ETHTOOL_A_CHANNELS_COMBINED_MAX, false, "-L combined"},
    {"rx-ring", EthtoolMsg::Rings, ETHTOOL_A_RINGS_RX, ETHTOOL_A_RINGS_RX_MAX, false, "-G rx"},
    {"tx-ring", EthtoolMsg::Rings, ETHTOOL_A_RINGS_TX, ETHTOOL_A_RINGS_TX_MAX, false, "-G tx"},
    {"rx-usecs", EthtoolMsg::Coalesce, ETHTOOL_A_COALESCE_RX_USECS, 0, false, "-C rx-usecs"},
    {"rx-frames", EthtoolMsg::Coalesce, ETHTOOL_A_COALESCE_RX_MAX_FRAMES, 0, false, "-C rx-frames"},
    {"tx-usecs", EthtoolMsg::Coalesce, ETHTOOL_A_COALESCE_TX_USECS, 0, false, "-C tx-usecs"},
    {"tx-frames", EthtoolMsg::Coalesce, ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 0, false, "-C tx-frames"},
    {"adaptive-rx", EthtoolMsg::Coalesce, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, 0, true,
     "-C adaptive-rx"},
};

struct MsgInfo {
    EthtoolMsg msg;
    std::uint8_t get, set;
    std::string_view what;
};
constexpr MsgInfo kEthtoolMsgs[] = {
    {EthtoolMsg::Features, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_MSG_FEATURES_SET, "features"},
    {EthtoolMsg::Channels, ETHTOOL_MSG_CHANNELS_GET, ETHTOOL_MSG_CHANNELS_SET, "channels"},
    {EthtoolMsg::Rings, ETHTOOL_MSG_RINGS_GET, ETHTOOL_MSG_RINGS_SET, "rings"},
    {EthtoolMsg::Coalesce, ETHTOOL_MSG_COALESCE_GET, ETHTOOL_MSG_COALESCE_SET, "coalescing"},
};

// Every message's header is its attribute 1 (ETHTOOL_A_*_HEADER).
constexpr std::uint16_t kEthtoolHeader = 1;

void putHeader(nlmsghdr *nlh, std::uint32_t ifindex, std::uint32_t flags = 0)
{
    nlattr *h = mnl_attr_nest_start(nlh, kEthtoolHeader);
    mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, ifindex);
    if (flags) mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
    mnl_attr_nest_end(nlh, h);
}

// Whether a bitset in list form (as a features reply sends them) names the bit.
bool bitsetHas(const nlattr *set, std::string_view name)
{
    bool found = false;
    forEachNested(set, [&](const nlattr *a) {
        if (mnl_attr_get_type(a) != ETHTOOL_A_BITSET_BITS) return;
        forEachNested(a, [&](const nlattr *bit) {
            if (mnl_attr_get_type(bit) != ETHTOOL_A_BITSET_BITS_BIT) return;
            forEachNested(bit, [&](const nlattr *f) {
                if (mnl_attr_get_type(f) == ETHTOOL_A_BITSET_BIT_NAME &&
                    mnl_attr_validate(f, MNL_TYPE_NUL_STRING) >= 0 && name == mnl_attr_get_str(f))
                    found = true;
            });
        });
    });
    return found;
}

bool parseEthtoolAddress(std::string_view a, std::string &ifname, std::uint32_t &ifindex,
                         const EthtoolAttrInfo *&attr)
{
    if (a.substr(0, kEthtoolPrefix.size()) != kEthtoolPrefix) return false;
    a.remove_prefix(kEthtoolPrefix.size());
    const auto colon = a.find(':'), slash = a.find('/');
    if (colon == std::string_view::npos || slash == std::string_view::npos || colon == 0 ||
        colon >= IFNAMSIZ || slash < colon)
        return false;
    const std::string_view index = a.substr(colon + 1, slash - colon - 1);
    const auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), ifindex);
    if (index.empty() || ec != std::errc{} || end != index.data() + index.size() || ifindex == 0)
        return false; // a netdev's index is never 0 (if_nametoindex's "none")
    ifname = std::string(a.substr(0, colon));
    attr = findEthtoolAttr(a.substr(slash + 1));
    return attr != nullptr;
}

} // namespace

std::span<const EthtoolAttrInfo> ethtoolAttrs()
{
    return kEthtoolAttrs;
}

const EthtoolAttrInfo *findEthtoolAttr(std::string_view name)
{
    for (const auto &a : kEthtoolAttrs)
        if (a.name == name) return &a;
    return nullptr;
}

EthtoolNetlink::EthtoolNetlink() = default;
EthtoolNetlink::~EthtoolNetlink() = default;
EthtoolNetlink::EthtoolNetlink(EthtoolNetlink &&) noexcept = default;
EthtoolNetlink &EthtoolNetlink::operator=(EthtoolNetlink &&) noexcept = default;

Status EthtoolNetlink::open(EthtoolNetlink &out)
{
    int code = 0;
    const Status st = openGenl(ETHTOOL_GENL_NAME, out.sock_, out.family_, &code);
    if (code == ENOENT)
        return Status::refused("this kernel has no ethtool netlink family (Linux 5.6 and later "
                               "have it)");
    return st;
}

Status EthtoolNetlink::read(std::uint32_t ifindex, std::vector<EthtoolValue> &out,
                            std::vector<Lack> *lacks)
{
    out.clear();
    if (!sock_) return Status::failed("ethtool netlink: not open");
    for (const MsgInfo &msg : kEthtoolMsgs) {
        nlmsghdr *nlh = startRequest(*sock_, family_, msg.get, 0, ETHTOOL_GENL_VERSION);
        putHeader(nlh, ifindex);
        int code = 0;
        const Status st = request(
            *sock_, nlh,
            [&](const nlmsghdr *m) {
                if (msg.msg == EthtoolMsg::Features) {
                    bool changeable = false, active = false, fixed = false;
                    forEachMessageAttr(m, [&](const nlattr *a) {
                        switch (mnl_attr_get_type(a)) {
                        case ETHTOOL_A_FEATURES_HW:
                            changeable = bitsetHas(a, kGroFeature);
                            break;
                        case ETHTOOL_A_FEATURES_ACTIVE:
                            active = bitsetHas(a, kGroFeature);
                            break;
                        case ETHTOOL_A_FEATURES_NOCHANGE:
                            fixed = bitsetHas(a, kGroFeature);
                            break;
                        default:
                            break;
                        }
                    });
                    if (changeable && !fixed)
                        out.push_back({&kEthtoolAttrs[0], active ? 1u : 0u, 1});
                    return;
                }
                std::vector<std::pair<std::uint16_t, std::uint64_t>> got;
                forEachMessageAttr(m, [&](const nlattr *a) {
                    if (const auto v = unsignedOf(a)) got.emplace_back(mnl_attr_get_type(a), *v);
                });
                auto valueOf = [&](std::uint16_t type) -> std::optional<std::uint64_t> {
                    for (const auto &[t, v] : got)
                        if (t == type) return v;
                    return std::nullopt;
                };
                for (const auto &info : kEthtoolAttrs) {
                    if (info.msg != msg.msg) continue;
                    const auto v = valueOf(info.attr);
                    if (!v) continue; // the driver does not report it: it does not take it
                    EthtoolValue ev{&info, *v, std::nullopt};
                    if (info.maxAttr) {
                        ev.max = valueOf(info.maxAttr);
                        if (!ev.max || *ev.max == 0) continue; // "n/a": none of that kind
                    }
                    out.push_back(ev);
                }
            },
            &code);
        if (code == EOPNOTSUPP) {
            if (lacks) lacks->push_back({msg.msg, st.error});
            continue;
        }
        if (!st.ok())
            return st.within("ethtool " + std::string(msg.what) + " of ifindex " +
                             std::to_string(ifindex) + ": ");
    }
    return Status::success();
}

Status EthtoolNetlink::get(std::uint32_t ifindex, std::string_view attr, std::uint64_t &out)
{
    std::vector<EthtoolValue> all;
    if (Status st = read(ifindex, all); !st.ok()) return st;
    for (const auto &v : all)
        if (v.attr->name == attr) {
            out = v.value;
            return Status::success();
        }
    return Status::refused("the driver of ifindex " + std::to_string(ifindex) +
                           " does not report " + std::string(attr));
}

Status EthtoolNetlink::set(std::uint32_t ifindex, std::string_view attrName, std::uint64_t value)
{
    const EthtoolAttrInfo *attr = findEthtoolAttr(attrName);
    const std::string what = std::string(attrName) + " = " + std::to_string(value);
    if (!attr) return Status::refused(what + ": not an ethtool setting this program knows");
    if (!sock_) return Status::failed("ethtool netlink: not open");
    const MsgInfo *msg = nullptr;
    for (const MsgInfo &m : kEthtoolMsgs)
        if (m.msg == attr->msg) msg = &m;
    if (value > (attr->msg == EthtoolMsg::Features || attr->u8 ? 1u : 0xffffffffu))
        return Status::refused(what + ": out of range; allowed " +
                               (attr->msg == EthtoolMsg::Features || attr->u8
                                    ? std::string("0 or 1")
                                    : std::string("0 to 4294967295")));
    nlmsghdr *nlh = startRequest(*sock_, family_, msg->set, 0, ETHTOOL_GENL_VERSION);
    putHeader(nlh, ifindex, attr->msg == EthtoolMsg::Features ? ETHTOOL_FLAG_OMIT_REPLY : 0);
    if (attr->msg == EthtoolMsg::Features) {
        // The wanted bitset in mask form: only the bit named changes.
        nlattr *wanted = mnl_attr_nest_start(nlh, ETHTOOL_A_FEATURES_WANTED);
        nlattr *bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
        nlattr *bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);
        mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, kGroFeature);
        if (value) mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, nullptr);
        mnl_attr_nest_end(nlh, bit);
        mnl_attr_nest_end(nlh, bits);
        mnl_attr_nest_end(nlh, wanted);
    } else if (attr->u8) {
        mnl_attr_put_u8(nlh, attr->attr, static_cast<std::uint8_t>(value));
    } else {
        mnl_attr_put_u32(nlh, attr->attr, static_cast<std::uint32_t>(value));
    }
    if (Status st = request(*sock_, nlh, [](const nlmsghdr *) {}); !st.ok())
        return st.within(what + ": the kernel refused: ");
    // The kernel may keep a feature as it was without an error (another feature it depends
    // on): GRO is read back. A count or a time a driver rounds (a ring of 1000 made 1024) is
    // what it took, not a refusal.
    if (attr->msg != EthtoolMsg::Features) return Status::success();
    std::uint64_t now = 0;
    if (Status st = get(ifindex, attrName, now); !st.ok()) return st.within(what + ": ");
    if (now != value)
        return Status::refused(what + ": the kernel kept it at " + std::to_string(now));
    return Status::success();
}

std::string ethtoolSettingAddress(const std::string &ifname, std::uint32_t ifindex,
                                  std::string_view attr)
{
    return std::string(kEthtoolPrefix) + ifname + ":" + std::to_string(ifindex) + "/" +
           std::string(attr);
}

bool isEthtoolSettingAddress(std::string_view path)
{
    std::string ifname;
    std::uint32_t ifindex = 0;
    const EthtoolAttrInfo *attr = nullptr;
    return parseEthtoolAddress(path, ifname, ifindex, attr);
}

namespace {

// The netdev the address names, still the same one.
Status sameNetdev(const std::string &address, std::uint32_t &ifindex, const EthtoolAttrInfo *&attr)
{
    std::string ifname;
    if (!parseEthtoolAddress(address, ifname, ifindex, attr))
        return Status::refused(address + ": not an ethtool setting (ethtool:IFNAME:IFINDEX/ATTR)");
    if (::if_nametoindex(ifname.c_str()) != ifindex)
        return Status::refused(address + ": netdev " + ifname + " with index " +
                               std::to_string(ifindex) + " is gone");
    return Status::success();
}

} // namespace

Status readEthtoolSetting(const std::string &address, std::string &out)
{
    std::uint32_t ifindex = 0;
    const EthtoolAttrInfo *attr = nullptr;
    if (Status st = sameNetdev(address, ifindex, attr); !st.ok()) return st;
    EthtoolNetlink nl;
    if (Status st = EthtoolNetlink::open(nl); !st.ok()) return st.within(address + ": ");
    std::uint64_t v = 0;
    if (Status st = nl.get(ifindex, attr->name, v); !st.ok()) return st.within(address + ": ");
    out = std::to_string(v);
    return Status::success();
}

Status writeEthtoolSetting(const std::string &address, const std::string &value)
{
    std::uint32_t ifindex = 0;
    const EthtoolAttrInfo *attr = nullptr;
    if (Status st = sameNetdev(address, ifindex, attr); !st.ok()) return st;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc{} || end != value.data() + value.size())
        return Status::refused(address + ": '" + value + "' is not a whole number");
    EthtoolNetlink nl;
    if (Status st = EthtoolNetlink::open(nl); !st.ok()) return st.within(address + ": ");
    if (Status st = nl.set(ifindex, attr->name, v); !st.ok()) return st.within(address + ": ");
    return Status::success();
}

bool ethtoolSettingGone(const std::string &address)
{
    std::string ifname;
    std::uint32_t ifindex = 0;
    const EthtoolAttrInfo *attr = nullptr;
    return parseEthtoolAddress(address, ifname, ifindex, attr) &&
           ::if_nametoindex(ifname.c_str()) != ifindex;
}

} // namespace ringlab::host
