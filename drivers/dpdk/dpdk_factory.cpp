// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/dpdk_factory.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "drivers/dpdk/dpdk_device.h"
#include "drivers/lab/lab.h"
#include "drivers/privilege.h"

namespace ringlab::dpdk {

std::unique_ptr<Device> makePortDevice(const std::vector<std::string> &ports,
                                       const std::vector<std::string> &eal, const ParamSet &ps,
                                       const LiveParams &live)
{
    return std::make_unique<DpdkDevice>(DpdkOptions{ports, eal}, ps, live);
}

std::unique_ptr<Device> makeLabDevice(const std::vector<std::string> &eal,
                                      const std::string &traffic, int boundS, const ParamSet &ps,
                                      const LiveParams &live)
{
    lab::LabOptions opts;
    opts.boundS = boundS;
    if (!traffic.empty()) {
        lab::TrafficSpec spec;
        if (auto st = lab::parseTraffic(traffic, spec); !st.ok())
            throw std::runtime_error(st.error);
        opts.traffic = spec;
    }
    std::string ifA, ifB;
    const auto [portA, portB] = lab::Lab::tapPorts(ifA, ifB);
    // The namespaces first: a failure there leaves no port behind.
    auto addon = std::make_unique<lab::Lab>(opts, ifA, ifB);
    auto dev = std::make_unique<DpdkDevice>(DpdkOptions{{portA, portB}, eal}, ps, live);
    dev->setAddon(std::move(addon));
    return dev;
}

namespace {

std::string linkText(const PortDescription &d)
{
    return std::string(d.linkUp ? "up" : "down") +
           (d.speedMbps ? ", " + std::to_string(d.speedMbps) + " Mbit/s" : "");
}

struct VirtualPmd {
    const char *pmd;
    const char *example; // the spec a user would write
    const char *probe;   // an instance attached briefly to read it, or null
    bool needsRoot;
    const char *description;
};

constexpr VirtualPmd kVirtualPmds[] = {
    {"net_null", "dpdk:net_null0+net_null1", "net_null97", false,
     "null PMD: RX returns full bursts of generated frames, TX frees them (add ,no-rx=1 for an "
     "idle port)"},
    {"net_ring", "dpdk:net_ring0", "net_ring97", false,
     "ring PMD: each queue is an rte_ring, TX loops back to RX"},
    {"net_tap", "dpdk:net_tap0,iface=rl0+net_tap1,iface=rl1", "net_tap97,iface=rlprobe97", true,
     "TAP PMD: a kernel interface per port, with RX interrupts"},
    {"net_af_packet", "dpdk:net_af_packet0,iface=IFACE", nullptr, true,
     "AF_PACKET PMD: an existing kernel interface (veth, ...) through a packet socket"},
};

bool pmdInstalled(const std::string &pmd)
{
    return std::filesystem::exists(std::filesystem::path(pmdsDir()) / ("librte_" + pmd + ".so"));
}

} // namespace

namespace {
// Attaches the PMD's probe instance briefly to read its link and what it supports (starts the
// EAL on first use); a failure makes the row unavailable with the reason.
void attachToDescribe(const VirtualPmd &v, const std::vector<std::string> &eal, DeviceListing &l)
{
    try {
        const ParamSet ps;
        const LiveParams live(ps);
        DpdkDevice dev(DpdkOptions{{v.probe}, eal}, ps, live);
        l.link = linkText(dev.ports()[0]);
        l.rxInterrupts = dev.ports()[0].rxInterrupts;
        l.support = dev.support();
    } catch (const std::exception &e) {
        l.available = false;
        l.unavailableWhy = e.what();
    }
}

// Whether a row can be attached to describe it: installed, allowed, with a probe instance.
bool canAttach(const VirtualPmd &v, const DeviceListing &l)
{
    return l.available && v.probe;
}
} // namespace

std::vector<DeviceListing> listDpdkDevices(const std::vector<std::string> &eal, bool attach)
{
    std::vector<DeviceListing> out;
    const bool root = geteuid() == 0, rawPorts = mayOpenRawPorts();
    for (const auto &v : kVirtualPmds) {
        DeviceListing l;
        l.spec = v.example;
        l.kind = "DPDK virtual";
        l.driver = v.pmd;
        l.description = v.description;
        if (!pmdInstalled(v.pmd)) {
            l.available = false;
            l.unavailableWhy = std::string("PMD ") + v.pmd + " is not installed";
        } else if (v.needsRoot && !rawPorts) {
            l.available = false;
            l.unavailableWhy = "needs root (or CAP_NET_ADMIN and CAP_NET_RAW)";
        } else if (attach && canAttach(v, l)) {
            attachToDescribe(v, eal, l);
        }
        out.push_back(l);
    }
    // PCI NICs bound to a driver DPDK can use.
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator("/sys/bus/pci/devices", ec)) {
        std::ifstream cls(entry.path() / "class");
        std::string c;
        cls >> c;
        if (c.rfind("0x02", 0) != 0) continue; // network controllers only
        const auto drv =
            std::filesystem::read_symlink(entry.path() / "driver", ec).filename().string();
        DeviceListing l;
        l.spec = "dpdk:" + entry.path().filename().string();
        l.kind = "DPDK PCI";
        l.driver = drv.empty() ? "(no driver)" : drv;
        const bool usable = drv == "vfio-pci" || drv == "uio_pci_generic" || drv == "igb_uio";
        l.description = usable ? "PCI NIC bound to " + drv
                               : "PCI NIC held by the kernel driver " + l.driver +
                                     " (bind it to vfio-pci to use it with DPDK)";
        l.available = usable && root;
        if (!usable)
            l.unavailableWhy = "not bound to a DPDK driver";
        else if (!root)
            l.unavailableWhy = "needs root";
        out.push_back(l);
    }
    return out;
}

bool describeDpdkListing(const std::string &pmd, const std::vector<std::string> &eal,
                         DeviceListing &l)
{
    for (const auto &v : kVirtualPmds)
        if (pmd == v.pmd) {
            if (!canAttach(v, l)) return false;
            attachToDescribe(v, eal, l);
            return true;
        }
    return false;
}

DeviceListing labListing()
{
    DeviceListing l;
    l.spec = "lab";
    l.kind = "lab";
    l.driver = "net_tap";
    l.description = std::string("two TAP ports in network namespaces (") + lab::kAddressA +
                    " <-> " + lab::kAddressB +
                    "), real ping and iperf3 through the engine (--traffic)";
    l.rxInterrupts = true;
    if (geteuid() != 0) {
        l.available = false;
        l.unavailableWhy = "needs root (network namespaces and TAP interfaces)";
    } else if (!pmdInstalled("net_tap")) {
        l.available = false;
        l.unavailableWhy = "PMD net_tap is not installed";
    }
    return l;
}

} // namespace ringlab::dpdk
