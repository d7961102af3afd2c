// SPDX-License-Identifier: GPL-2.0-or-later
// The facts of a kernel network interface, as the kernel's ethtool ioctl (SIOCETHTOOL) and
// /proc tell them: driver, firmware, bus address, rings, coalescing, offloads, and its IRQs
// with their CPUs. Each a value or absent with the reason (the driver does not say, the
// interface is in another network namespace).
#pragma once

#include <string>
#include <string_view>

#include "engine/common/environment_facts.h"

namespace ringlab {

// Adds the port.* facts of interface `ifname` to `env`, as port `port` (the instance).
void captureKernelPort(std::string_view port, const std::string &ifname, Environment &env);

// The port.* facts of `port` not yet in `env`, absent with `why`: a fact is never missing.
void markPortFactsAbsent(std::string_view port, const std::string &why, Environment &env);

} // namespace ringlab
