// SPDX-License-Identifier: GPL-2.0-or-later
// A netdev's own settings through the kernel's ethtool generic netlink family (issue 44,
// part 2), as `ethtool -K/-L/-G/-C` set them: GRO (the "rx-gro" feature), channel counts,
// ring sizes and interrupt coalescing. What a driver takes is what it reports: a setting its
// reply lacks (veth: no rings, no coalescing) or a message it refuses (EOPNOTSUPP) is not
// offered, and channel and ring sizes are bounded by the maximums it reports.
//
// A setting has an address the settings journal keeps, "ethtool:IFNAME:IFINDEX/ATTR" (the
// index so that a journal put back after a kill -9 never writes a netdev that took the name
// since: one whose index differs is "gone with its device").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/status.h"

namespace ringlab::host {

struct GenlSocket;

// The message that carries a setting.
enum class EthtoolMsg { Features, Channels, Rings, Coalesce };

struct EthtoolAttrInfo {
    std::string_view name; // "rx-channels": the journal's and the errors' word
    EthtoolMsg msg;
    std::uint16_t attr;       // ETHTOOL_A_* (0 for GRO, a feature bit)
    std::uint16_t maxAttr;    // the attribute with the driver's maximum (channels, rings), or 0
    bool u8;                  // sent as u8 (a flag such as adaptive-rx), else u32
    std::string_view ethtool; // what the ethtool command calls it: "-L rx"
};
std::span<const EthtoolAttrInfo> ethtoolAttrs();
const EthtoolAttrInfo *findEthtoolAttr(std::string_view name);

// One setting as the driver reports it now.
struct EthtoolValue {
    const EthtoolAttrInfo *attr = nullptr;
    std::uint64_t value = 0;
    std::optional<std::uint64_t> max; // channels and rings: the driver's maximum
};

class EthtoolNetlink {
  public:
    // Refused, saying why, when the kernel has no ethtool family (before Linux 5.6).
    static Status open(EthtoolNetlink &out);
    EthtoolNetlink();
    ~EthtoolNetlink();
    EthtoolNetlink(EthtoolNetlink &&) noexcept;
    EthtoolNetlink &operator=(EthtoolNetlink &&) noexcept;

    // Every setting the driver of the netdev with this index reports. A message the driver
    // does not take is left out, with the kernel's reason in `lacks`.
    struct Lack {
        EthtoolMsg msg;
        std::string why; // "Operation not supported"
    };
    Status read(std::uint32_t ifindex, std::vector<EthtoolValue> &out,
                std::vector<Lack> *lacks = nullptr);
    Status get(std::uint32_t ifindex, std::string_view attr, std::uint64_t &out);
    // Sets one; refused naming the setting, the value and the kernel's reason, or, for GRO,
    // when the kernel kept the feature as it was.
    Status set(std::uint32_t ifindex, std::string_view attr, std::uint64_t value);

  private:
    std::unique_ptr<GenlSocket> sock_;
    std::uint16_t family_ = 0;
};

std::string ethtoolSettingAddress(const std::string &ifname, std::uint32_t ifindex,
                                  std::string_view attr);
bool isEthtoolSettingAddress(std::string_view path);
Status readEthtoolSetting(const std::string &address, std::string &out);
Status writeEthtoolSetting(const std::string &address, const std::string &value);
// True when the netdev at this address is gone, or another took its name.
bool ethtoolSettingGone(const std::string &address);

} // namespace ringlab::host
