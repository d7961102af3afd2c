// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/port_facts.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ringlab {

namespace {

// One ethtool request on `ifname`; false with the reason.
class Ethtool {
  public:
    explicit Ethtool(const std::string &ifname)
        : fd_(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)), socketErrno_(fd_ < 0 ? errno : 0)
    {
        std::strncpy(ifr_.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    }
    ~Ethtool()
    {
        if (fd_ >= 0) close(fd_);
    }
    Ethtool(const Ethtool &) = delete;
    Ethtool &operator=(const Ethtool &) = delete;

    bool get(void *cmd, const char *name, std::string &why)
    {
        if (fd_ < 0) {
            why = std::string("no socket for SIOCETHTOOL: ") + std::strerror(socketErrno_);
            return false;
        }
        ifr_.ifr_data = static_cast<char *>(cmd);
        if (ioctl(fd_, SIOCETHTOOL, &ifr_) == 0) return true;
        const int err = errno;
        why = std::string(name) + ": " +
              (err == EOPNOTSUPP ? std::string("the driver does not report it")
                                 : std::string(std::strerror(err)));
        return false;
    }

  private:
    int fd_;
    int socketErrno_;
    ifreq ifr_{};
};

std::string onOff(std::uint32_t v)
{
    return v ? "on" : "off";
}

// "IRQ 24 (eth0-rx-0) on CPUs 0-1; ..." for the /proc/interrupts lines naming `ifname`.
bool irqsOf(const std::string &ifname, std::string &out, std::string &why)
{
    std::ifstream in("/proc/interrupts");
    if (!in) {
        why = "unreadable: /proc/interrupts";
        return false;
    }
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string irq;
        words >> irq;
        if (irq.empty() || irq.back() != ':') continue;
        irq.pop_back();
        std::string last, w;
        while (words >> w)
            last = w;
        // The action names the interface: "eth0", or "eth0-rx-0" (not "eth10-rx-0").
        if (last.rfind(ifname, 0) != 0 ||
            (last.size() > ifname.size() && last[ifname.size()] != '-'))
            continue;
        std::string cpus;
        std::getline(std::ifstream("/proc/irq/" + irq + "/smp_affinity_list"), cpus);
        out += (out.empty() ? "" : "; ") + std::string("IRQ ") + irq + " (" + last + ") on CPUs " +
               (cpus.empty() ? "?" : cpus);
    }
    if (out.empty()) {
        why = "no IRQ of " + ifname +
              " in /proc/interrupts (a virtual interface, or a driver that names its IRQs "
              "otherwise)";
        return false;
    }
    return true;
}

} // namespace

void captureKernelPort(std::string_view port, const std::string &ifname, Environment &env)
{
    auto put = [&](const char *spec, const std::string &value, const std::string &why) {
        env.set({factKey(spec, port), why.empty() ? value : std::string(), why});
    };
    if (if_nametoindex(ifname.c_str()) == 0) {
        markPortFactsAbsent(port,
                            "interface " + ifname + " is not in this network namespace (" +
                                std::strerror(errno) + ")",
                            env);
        return;
    }
    Ethtool et(ifname);
    std::string why;

    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    if (et.get(&info, "ETHTOOL_GDRVINFO", why)) {
        put("port.driver", info.driver, {});
        put("port.driver_version", info.version, info.version[0] ? "" : "the driver gives none");
        put("port.firmware", info.fw_version, info.fw_version[0] ? "" : "the driver gives none");
        put("port.bus", info.bus_info, info.bus_info[0] ? "" : "the driver gives none");
    } else {
        for (const char *k : {"port.driver", "port.driver_version", "port.firmware", "port.bus"})
            put(k, {}, why);
    }

    ethtool_ringparam ring{};
    ring.cmd = ETHTOOL_GRINGPARAM;
    if (et.get(&ring, "ETHTOOL_GRINGPARAM", why))
        put("port.rings",
            "rx " + std::to_string(ring.rx_pending) + " of " + std::to_string(ring.rx_max_pending) +
                ", tx " + std::to_string(ring.tx_pending) + " of " +
                std::to_string(ring.tx_max_pending),
            {});
    else
        put("port.rings", {}, why);

    ethtool_coalesce co{};
    co.cmd = ETHTOOL_GCOALESCE;
    if (et.get(&co, "ETHTOOL_GCOALESCE", why))
        put("port.coalesce",
            "rx-usecs " + std::to_string(co.rx_coalesce_usecs) + ", rx-frames " +
                std::to_string(co.rx_max_coalesced_frames) + ", tx-usecs " +
                std::to_string(co.tx_coalesce_usecs) + ", tx-frames " +
                std::to_string(co.tx_max_coalesced_frames) + ", adaptive rx " +
                onOff(co.use_adaptive_rx_coalesce) + " tx " + onOff(co.use_adaptive_tx_coalesce),
            {});
    else
        put("port.coalesce", {}, why);

    const struct {
        std::uint32_t cmd;
        const char *name, *label;
    } kOffloads[] = {{ETHTOOL_GRXCSUM, "ETHTOOL_GRXCSUM", "rx-checksum"},
                     {ETHTOOL_GTXCSUM, "ETHTOOL_GTXCSUM", "tx-checksum"},
                     {ETHTOOL_GSG, "ETHTOOL_GSG", "scatter-gather"},
                     {ETHTOOL_GTSO, "ETHTOOL_GTSO", "tso"},
                     {ETHTOOL_GGSO, "ETHTOOL_GGSO", "gso"},
                     {ETHTOOL_GGRO, "ETHTOOL_GGRO", "gro"}};
    std::string offloads, firstWhy;
    for (const auto &o : kOffloads) {
        ethtool_value v{};
        v.cmd = o.cmd;
        if (et.get(&v, o.name, why))
            offloads += (offloads.empty() ? "" : ", ") + std::string(o.label) + " " + onOff(v.data);
        else if (firstWhy.empty())
            firstWhy = why;
    }
    put("port.offloads", offloads, offloads.empty() ? firstWhy : "");

    std::string irqs;
    const bool haveIrqs = irqsOf(ifname, irqs, why);
    put("port.irqs", irqs, haveIrqs ? "" : why);
    // The NAPIs are read through netdev netlink by the kernel device, which replaces this.
    put("port.napi", {}, "read only for a kernel device's netdev (kernel:IFNAME, kernel-lab)");
    markPortFactsAbsent(port, "not a DPDK port", env); // the DPDK facts, unless set before
}

void markPortFactsAbsent(std::string_view port, const std::string &why, Environment &env)
{
    for (const auto &s : factSpecs()) {
        if (s.scope != FactScope::Port) continue;
        const std::string key = factKey(s.key, port);
        if (!env.find(key)) env.set({key, {}, why});
    }
}

} // namespace ringlab
