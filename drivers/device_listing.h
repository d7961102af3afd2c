// SPDX-License-Identifier: GPL-2.0-or-later
// One row of `ringlab-engine devices` and of the desktop's Device box.
#pragma once

#include <string>
#include <vector>

#include "engine/datapath/device.h"

namespace ringlab {

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

} // namespace ringlab
