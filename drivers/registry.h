// SPDX-License-Identifier: GPL-2.0-or-later
// The device registry: the one place that knows which devices exist, how a spec names one,
// how to create it, and what each needs (privilege, programs). The front ends ask it;
// nothing outside drivers/ names a device or includes a driver's header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/datapath/device.h"
#include "engine/datapath/engine.h"
#include "engine/run/device_provider.h"

namespace ringlab {

// How a user names a device: "sim", "dpdk:PORT[+PORT]" (each an EAL device argument, such as
// "net_tap0,iface=rl0" or a PCI address), "lab", "kernel:IFNAME[,port=N]" (a netdev of this
// namespace, the engine a UDP application on it) or "kernel-lab".
struct DeviceSpec {
    enum class Kind { Sim, Dpdk, Lab, Kernel, KernelLab };
    Kind kind = Kind::Sim;
    std::vector<std::string> ports; // dpdk; kernel: the interface
    std::uint16_t udpPort = 0;      // kernel
    std::string text;               // as given
};
Status parseDeviceSpec(const std::string &text, DeviceSpec &out);
// The forms of a spec, for every front end's help.
inline constexpr const char *kDeviceSpecForms =
    "sim, lab, dpdk:PORT[+PORT], kernel:IFNAME[,port=N] or kernel-lab";
// Specs a user can type as they are, for completion and help: the simulator, the lab, and
// DPDK's virtual ports alone and paired.
std::vector<std::string> deviceSpecExamples();

// DeviceOptions (a spec and its options) and splitEalArgs: engine/run/device_provider.h.

// Checks everything that can be checked before a device is created: the spec, the traffic
// client, privilege, the programs the lab runs. The message names the device, what is wrong
// and what to do.
Status checkDeviceOptions(const DeviceOptions &opts);

// The values a device starts from where the profile and --set give none, on top of the
// registry's defaults (which suit the simulated NIC). DPDK ports and the lab flush their TX
// buffer every 100 us or at 32 frames, as l2fwd does (BURST_TX_DRAIN_US, MAX_PKT_BURST):
// the registry's 1 ms timer held a ping through the lab 2.8 ms on average, against 0.49 ms
// with every frame flushed at once. Empty for an unknown spec.
Assignments deviceDefaults(const std::string &spec);
// The grant a client of `ringlab-engine serve` needs to start the device `spec` names
// (`serve --allow GRANT`): "lab" for the lab (it creates network namespaces and TAP
// interfaces), "dpdk" for ports that need root or network capabilities (net_tap,
// net_af_packet, net_pcap, PCI NICs); empty for a device any client may start. `why`, when
// given, hears what the device does with the privilege.
std::string deviceGrant(const std::string &spec, std::string *why = nullptr);
// Every grant deviceGrant names, for `serve --allow`'s check and help.
std::vector<std::string> deviceGrantNames();
// The lab's traffic client (--traffic): what it may run, and that the program is here. The
// message names the spec, what is wrong and what is allowed.
Status checkTraffic(const std::string &text);
// Whether the device a spec names runs a traffic client (--traffic): the lab and the kernel
// lab do.
bool takesTraffic(const std::string &spec);

// A factory for the Engine. The device it makes throws std::runtime_error with a message
// naming the device and what failed.
DeviceFactory deviceFactory(const DeviceOptions &opts);
// Creates a device outside an engine (to list it or show what it supports).
std::unique_ptr<Device> createDevice(const DeviceOptions &opts, const ParamSet &ps,
                                     const LiveParams &live);

// Every device this host can run: the simulated NIC, the lab, DPDK's virtual PMDs (each
// attached briefly to read what it supports) and PCI NICs bound to a DPDK driver.
// `eal`: the EAL arguments DPDK is started with if it is not running yet (a server's --eal).
// With DeviceProbe::Later, DPDK's virtual ports are listed from what is installed, without
// starting the EAL (the desktop at start-up): their link and support come from
// describeDevice once one is chosen.
enum class DeviceProbe { Attach, Later };
std::vector<DeviceListing> listDevices(const std::vector<std::string> &eal = {},
                                       DeviceProbe probe = DeviceProbe::Attach);
// A row listed with DeviceProbe::Later, with what attaching tells (link, support): a DPDK
// virtual port's own, the lab's from a TAP port. Starts the EAL. Other rows as they are.
DeviceListing describeDevice(const DeviceListing &row, const std::vector<std::string> &eal = {});

// A short name for a device kind, for messages: "sim", "dpdk:net_null0", "lab".
std::string deviceLabel(const DeviceOptions &opts);

} // namespace ringlab
