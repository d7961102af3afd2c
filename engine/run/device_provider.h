// SPDX-License-Identifier: GPL-2.0-or-later
// The devices a program can run, as the engine's run layer sees them: how a run's device is
// named (DeviceOptions), listed (DeviceListing), checked, made and granted. The run layer
// knows no driver: each program gives the run service and the API the device registry's
// provider (drivers/registry_devices.h), and a test may give its own.
#pragma once

#include <string>
#include <vector>

#include "engine/common/status.h"
#include "engine/common/words.h"
#include "engine/datapath/device.h"
#include "engine/datapath/engine.h"
#include "engine/profile/resolve_profile.h"

namespace ringlab {

// How a run names its device: a spec ("sim", "dpdk:PORT[+PORT]", "lab") and its options.
struct DeviceOptions {
    std::string spec = "sim";
    std::vector<std::string> eal; // --eal, split into words
    std::string traffic;          // --traffic (lab only)
    int trafficBoundS = 3600;     // deadline for a client without count or duration
};
// Splits an --eal string into words.
inline std::vector<std::string> splitEalArgs(const std::string &s)
{
    return splitWords(s);
}

// One row of `ringlab-engine devices`, of GET /v1/devices and of the desktop's Device box.
struct DeviceListing {
    std::string spec;        // what to pass to --device
    std::string kind;        // "simulated", "DPDK virtual", "DPDK PCI", "lab"
    std::string driver;      // "sim", "net_null", ...
    std::string description; // one line
    std::string link;        // "up, 10000 Mbit/s", or empty
    bool rxInterrupts = false;
    bool available = true;
    std::string unavailableWhy; // e.g. "needs root"
    std::vector<TunableSupport> support;
};

class DeviceProvider {
  public:
    virtual ~DeviceProvider() = default;
    // Everything that can be checked before the device is made (the spec, privilege, the
    // programs it runs); the error names the device, what is wrong and what to do.
    [[nodiscard]] virtual Status check(const DeviceOptions &opts) const = 0;
    // What makes the device for an Engine; the device throws std::runtime_error naming what
    // failed.
    virtual DeviceFactory factory(const DeviceOptions &opts) const = 0;
    // The device's own defaults over the registry's (empty for the simulated NIC, or a spec
    // that names none).
    virtual Assignments defaults(const std::string &spec) const = 0;
    // The same as a function, for resolveProfile.
    DeviceDefaultsFn defaultsFn() const
    {
        return [this](const std::string &spec) { return defaults(spec); };
    }
    // The grant a client of `serve` needs to start it ("lab", "dpdk"), empty for none; `why`
    // hears what the device does with the privilege.
    virtual std::string grant(const std::string &spec, std::string *why) const = 0;
    // Whether the device runs on DPDK, so that a run's EAL arguments (--eal) are its.
    virtual bool usesEal(const std::string &spec) const = 0;
    // Every device this host can run; `eal`: DPDK's arguments, if listing starts it.
    virtual std::vector<DeviceListing> list(const std::vector<std::string> &eal) const = 0;
};

} // namespace ringlab
