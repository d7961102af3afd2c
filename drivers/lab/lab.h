// SPDX-License-Identifier: GPL-2.0-or-later
// The one-machine lab: two TAP ports, each moved into a network namespace of its own with an
// address from 198.18.0.0/15, the engine forwarding between them, and optionally a real
// traffic client across it. Everything is removed when the run ends, and what a killed run
// left is removed by the next one.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "drivers/dpdk/dpdk_device.h"
#include "drivers/lab/netns.h"
#include "drivers/lab/traffic.h"

namespace ringlab::lab {

inline constexpr const char *kAddressA = "198.18.0.1";
inline constexpr const char *kAddressB = "198.18.0.2";

struct LabOptions {
    std::optional<TrafficSpec> traffic;
    int boundS = 3600; // the client's deadline when it has no count or duration
};

class Lab final : public dpdk::PortAddon {
  public:
    // Namespaces "ringlab-<pid>-a" and "-b" for interfaces ifA and ifB.
    Lab(LabOptions opts, std::string ifA, std::string ifB);
    ~Lab() override;

    // The TAP port specs for the DPDK device, e.g. "net_tap0,iface=rl1234a".
    static std::pair<std::string, std::string> tapPorts(std::string &ifA, std::string &ifB);

    std::string name() const override;
    void afterStart() override;
    void beforeStop() override;
    void linkUp() override;
    void linkDown() override;
    void read(DeviceReading &r) override;

  private:
    LabOptions opts_;
    std::string ifA_, ifB_;
    std::unique_ptr<Namespace> a_, b_;
    std::unique_ptr<Traffic> traffic_;
    bool inside_ = false;
    bool trafficStarted_ = false;
    std::vector<std::string> pending_; // events from the hooks, for the next reading
};

} // namespace ringlab::lab
