// SPDX-License-Identifier: GPL-2.0-or-later
// DPDK's Environment Abstraction Layer, initialised once per process on first use, and the
// ports attached to it by hot-plug. Every call is serialised; none is on the datapath.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/common/environment_facts.h"
#include "engine/datapath/tunables.h"

namespace ringlab::dpdk {

// One port as the EAL sees it.
struct PortDescription {
    std::uint16_t id = 0;
    std::string name;   // "net_null0", "0000:03:00.0"
    std::string driver; // "net_null"
    bool linkUp = false;
    std::uint32_t speedMbps = 0;
    bool rxInterrupts = false; // the PMD implements rx_queue_intr_enable
    std::uint16_t maxRxDesc = 0, maxTxDesc = 0;
};

class Eal {
  public:
    // Initialises the EAL on first call with the default arguments (no hugepages: --no-huge
    // -m 512 --no-pci --no-shconf), the PCI addresses in `pciAddresses` allow-listed, and
    // `userArgs` (--eal). Later calls succeed when nothing new is asked of the EAL.
    static Status init(const std::vector<std::string> &pciAddresses,
                       const std::vector<std::string> &userArgs);
    static bool initialised();

    // Attaches a device by its EAL device argument ("net_null0,no-rx=1", "0000:03:00.0") and
    // returns its port. A vdev is probed by hot-plug; a PCI device must have been probed.
    static Status attach(const std::string &devarg, std::uint16_t &port);
    // Stops, closes and removes a port attached by attach().
    static void detach(std::uint16_t port);
    static std::vector<PortDescription> ports();
    static PortDescription describe(std::uint16_t port);

    // The port.* facts of `port`: its PMD, DPDK's version and the EAL's arguments, and for a
    // port backed by a kernel interface (net_tap, net_af_packet) that interface's facts.
    static void describeFacts(std::uint16_t port, Environment &env);

    // DPDK's recent log lines (it logs through us), for error messages.
    static std::string recentLog();
    // The calling thread joins the EAL (an lcore id, so mempool caches serve it); undone when
    // the thread ends.
    static void registerThread();
};

// The folder DPDK loads its PMDs from, as DPDK was configured: pkg-config's `pmdsdir` at
// configure time (drivers/CMakeLists.txt), else the EAL's own default, RTE_EAL_PMD_PATH.
const char *pmdsDir();

// "0000:03:00.0" or "03:00.0": a PCI address, as the EAL names PCI ports.
bool isPciAddress(const std::string &s);

} // namespace ringlab::dpdk
