// SPDX-License-Identifier: GPL-2.0-or-later
// The DPDK devices as the registry sees them, without DPDK's headers.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"
#include "engine/run/device_provider.h"

namespace ringlab::dpdk {

std::unique_ptr<Device> makePortDevice(const std::vector<std::string> &ports,
                                       const std::vector<std::string> &eal, const ParamSet &ps,
                                       const LiveParams &live);
// The lab: two TAP ports in namespaces, with `traffic` ("ping -i 0.01") if not empty.
std::unique_ptr<Device> makeLabDevice(const std::vector<std::string> &eal,
                                      const std::string &traffic, int boundS, const ParamSet &ps,
                                      const LiveParams &live);
// DPDK's virtual PMDs (attached briefly to read what they support) and PCI NICs bound to a
// DPDK-capable kernel driver.
// Without `attach`, the virtual PMDs are listed from what is installed alone: no EAL, no
// link or support (describeDpdkListing reads them when one is chosen).
std::vector<DeviceListing> listDpdkDevices(const std::vector<std::string> &eal, bool attach);
// Reads the link and support of a row listed without attaching, through the virtual PMD
// `pmd`'s probe instance (starts the EAL). False when the PMD has none, or the row is
// unavailable.
bool describeDpdkListing(const std::string &pmd, const std::vector<std::string> &eal,
                         DeviceListing &l);
// The lab's own row.
DeviceListing labListing();

} // namespace ringlab::dpdk
