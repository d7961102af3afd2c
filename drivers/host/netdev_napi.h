// SPDX-License-Identifier: GPL-2.0-or-later
// One NAPI's settings through the kernel's netdev generic netlink family (issue 44, part 2):
// napi-get lists a netdev's NAPI instances (id, IRQ, the kthread's pid, threaded,
// defer-hard-irqs, gro-flush-timeout, irq-suspend-timeout), napi-set changes one of them
// without touching the device-wide sysfs files. What napi-set accepts on this kernel, and
// each attribute's range, is read from the family's own policy (CTRL_CMD_GETPOLICY), never
// guessed from the kernel's version. Messages are built and parsed with libmnl.
//
// A NAPI setting has an address the settings journal keeps like a file's path,
// "netlink:netdev/napi/ID/ATTR", so a run puts it back however it ends (settings_journal.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/status.h"

namespace ringlab::host {

struct GenlSocket;

// The settable attributes of a NAPI, as netdev netlink names them (include/uapi/linux/netdev.h).
struct NapiAttrInfo {
    std::string_view name; // "defer-hard-irqs"
    std::uint16_t id;      // NETDEV_A_NAPI_*
    std::string_view unit;
    std::string_view help;
};
std::span<const NapiAttrInfo> napiSettableAttrs();
const NapiAttrInfo *findNapiAttr(std::string_view name);

// What napi-set takes for one attribute on this kernel, from the family's policy.
struct NapiAttrLimits {
    const NapiAttrInfo *attr = nullptr;
    std::uint64_t min = 0, max = 0;
    int nlType = 0; // NL_ATTR_TYPE_*: how the value is sent (u32, u64 or uint)
};

// One NAPI instance as napi-get reports it; an attribute this kernel does not report is
// absent.
struct NapiInstance {
    std::uint32_t id = 0, ifindex = 0;
    std::optional<std::uint32_t> irq;
    std::optional<pid_t> pid; // its kthread, in threaded mode
    std::optional<std::uint64_t> threaded, deferHardIrqs, groFlushTimeoutNs, irqSuspendTimeoutNs;
    // The value of a settable attribute by its netlink name, if reported.
    std::optional<std::uint64_t> value(std::string_view attr) const;
};

// A generic netlink socket bound to the netdev family.
class NetdevNetlink {
  public:
    // Refused, saying why, when this kernel has no netdev family (before Linux 6.3) or the
    // socket cannot be made.
    static Status open(NetdevNetlink &out);
    NetdevNetlink() = default;
    ~NetdevNetlink();
    NetdevNetlink(NetdevNetlink &&) noexcept;
    NetdevNetlink &operator=(NetdevNetlink &&) noexcept;

    // The NAPI instances of the netdev with this ifindex (none: a device without NAPI, such
    // as a veth with GRO off).
    Status napis(std::uint32_t ifindex, std::vector<NapiInstance> &out);
    Status napi(std::uint32_t id, NapiInstance &out);
    // True when the kernel says there is no NAPI with this id (ENOENT).
    bool missing(std::uint32_t id);
    // What napi-set accepts here, from the family's policy; empty with `why` set when this
    // kernel has no napi-set (before Linux 6.13) or its policy cannot be read.
    Status settable(std::vector<NapiAttrLimits> &out);
    // Sets one attribute of one NAPI; refused, naming the attribute, the value and what is
    // allowed, when it is out of the policy's range or the kernel refuses it (its reason).
    Status set(std::uint32_t napiId, std::string_view attr, std::uint64_t value);

  private:
    GenlSocket *sock_ = nullptr;
    std::uint16_t family_ = 0;
};

// The journal's address of one NAPI attribute, and the way back.
std::string napiSettingAddress(std::uint32_t napiId, std::string_view attr);
bool isNapiSettingAddress(std::string_view path);
// Read and write the setting at such an address, as text (the settings journal's values).
Status readNapiSetting(const std::string &address, std::string &out);
Status writeNapiSetting(const std::string &address, const std::string &value);
// True when the kernel answers that the NAPI at this address does not exist (any more); false
// when it exists or the kernel cannot be asked.
bool napiSettingGone(const std::string &address);

} // namespace ringlab::host
