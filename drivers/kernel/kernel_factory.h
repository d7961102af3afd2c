// SPDX-License-Identifier: GPL-2.0-or-later
// How the registry names, checks, lists and makes the kernel device (issue 44): a netdev of
// this namespace, "kernel:IFNAME[,port=N]", or the kernel lab, "kernel-lab".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"
#include "engine/run/device_provider.h"

namespace ringlab::kernel {

struct KernelSpec {
    bool lab = false;
    std::string ifname;     // kernel:IFNAME
    std::uint16_t port = 0; // the UDP port the application listens on
};

// `rest`: what follows "kernel:" ("eth0", "eth0,port=7000"). The message names the spec,
// what is wrong and what is allowed.
Status parseKernelSpec(const std::string &text, const std::string &rest, KernelSpec &out);
// What can be checked before the device is made: the interface exists, the lab's privilege
// (the registry checks the programs it runs).
Status checkKernelSpec(const std::string &text, const KernelSpec &spec);
// `traffic`: the kernel lab's --traffic ("" for none), checked; `boundS` its deadline when
// it gives none.
std::unique_ptr<Device> makeKernelDevice(const KernelSpec &spec, const std::string &traffic,
                                         int boundS, const ParamSet &ps, const LiveParams &live);
// The kernel lab and every netdev of this namespace but loopback.
std::vector<DeviceListing> kernelListings();

} // namespace ringlab::kernel
