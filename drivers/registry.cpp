// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/registry.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "drivers/dpdk/dpdk_factory.h"
#include "drivers/dpdk/eal.h"
#include "drivers/kernel/kernel_factory.h"
#include "drivers/lab/traffic.h"
#include "drivers/privilege.h"
#include "drivers/sim/sim_nic.h"
#include "engine/common/words.h"

namespace ringlab {

namespace {

constexpr const char *kSpecHelp =
    "allowed: sim, lab, kernel-lab, kernel:IFNAME[,port=N], or dpdk: and one or two EAL devices "
    "joined by +, such as dpdk:net_null0+net_null1, dpdk:net_tap0,iface=rl0 or "
    "dpdk:0000:03:00.0";

bool isKernel(DeviceSpec::Kind k)
{
    return k == DeviceSpec::Kind::Kernel || k == DeviceSpec::Kind::KernelLab;
}

kernel::KernelSpec kernelSpec(const DeviceSpec &spec)
{
    kernel::KernelSpec k;
    k.lab = spec.kind == DeviceSpec::Kind::KernelLab;
    if (!spec.ports.empty()) k.ifname = spec.ports.front();
    k.port = spec.udpPort; // 0: the default
    return k;
}

// A vdev name: a PMD name and an instance number ("net_null0").
bool isVdevName(const std::string &s)
{
    std::size_t k = 0;
    while (k < s.size() && (std::islower(static_cast<unsigned char>(s[k])) || s[k] == '_'))
        ++k;
    const std::size_t digits = k;
    while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])))
        ++k;
    return digits > 0 && k > digits && k == s.size();
}

bool onPath(const std::string &program)
{
    const char *path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    return false;
}

std::string needsRootVdev(const std::vector<std::string> &ports)
{
    for (const auto &p : ports) {
        const std::string name = p.substr(0, p.find(','));
        for (const char *pmd : {"net_tap", "net_af_packet", "net_pcap"})
            if (name.rfind(pmd, 0) == 0) return pmd;
        if (dpdk::isPciAddress(name)) return "a PCI NIC";
    }
    return {};
}

// The first port that reaches outside the engine's process, or "": an allow list. Only
// net_null (with its own size, copy and no-rx) and net_ring (without arguments) stay inside
// it; every other PMD, DPDK's aliases of these (eth_null, eth_ring), any other argument and a
// PCI NIC may open raw sockets, make interfaces or files, or take a device: they need the
// grant, and a PMD added to DPDK is refused until someone decides.
std::string reachesOutside(const std::vector<std::string> &ports)
{
    for (const auto &p : ports) {
        const auto comma = p.find(',');
        const std::string name = p.substr(0, comma);
        std::string pmd = name;
        while (!pmd.empty() && std::isdigit(static_cast<unsigned char>(pmd.back())))
            pmd.pop_back();
        std::vector<std::string> args;
        for (std::size_t from = comma; from != std::string::npos;) {
            const std::size_t next = p.find(',', from + 1);
            const std::string a =
                p.substr(from + 1, next == std::string::npos ? next : next - from - 1);
            args.push_back(a.substr(0, a.find('=')));
            from = next;
        }
        const bool inside =
            (pmd == "net_null" && std::all_of(args.begin(), args.end(),
                                              [](const std::string &a) {
                                                  return a == "size" || a == "copy" || a == "no-rx";
                                              })) ||
            (pmd == "net_ring" && args.empty());
        if (!inside) return dpdk::isPciAddress(name) ? "a PCI NIC (" + name + ")" : "\"" + p + "\"";
    }
    return {};
}

} // namespace

std::vector<std::string> deviceSpecExamples()
{
    return {"sim",
            "lab",
            "kernel-lab",
            "kernel:eth0",
            "dpdk:net_null0",
            "dpdk:net_null0+net_null1",
            "dpdk:net_ring0",
            "dpdk:net_tap0,iface=rl0"};
}

Status parseDeviceSpec(const std::string &text, DeviceSpec &out)
{
    DeviceSpec spec;
    spec.text = text;
    if (text == "sim") {
        spec.kind = DeviceSpec::Kind::Sim;
    } else if (text == "lab") {
        spec.kind = DeviceSpec::Kind::Lab;
    } else if (text == "kernel-lab") {
        spec.kind = DeviceSpec::Kind::KernelLab;
    } else if (text.rfind("kernel:", 0) == 0) {
        kernel::KernelSpec k;
        if (auto st = kernel::parseKernelSpec(text, text.substr(7), k); !st.ok()) return st;
        spec.kind = DeviceSpec::Kind::Kernel;
        spec.ports = {k.ifname};
        spec.udpPort = k.port;
    } else if (text.rfind("dpdk:", 0) == 0) {
        spec.kind = DeviceSpec::Kind::Dpdk;
        std::string rest = text.substr(5);
        std::size_t from = 0;
        for (;;) {
            const auto plus = rest.find('+', from);
            spec.ports.push_back(rest.substr(from, plus == std::string::npos ? plus : plus - from));
            if (plus == std::string::npos) break;
            from = plus + 1;
        }
        if (spec.ports.size() > 2)
            return Status{"--device \"" + text + "\": " + std::to_string(spec.ports.size()) +
                          " ports; a DPDK device has one or two (" + kSpecHelp + ")"};
        for (const auto &p : spec.ports) {
            const std::string name = p.substr(0, p.find(','));
            if (p.empty() || (!dpdk::isPciAddress(name) && !isVdevName(name)))
                return Status{"--device \"" + text + "\": \"" + p +
                              "\" is not an EAL device (a vdev such as net_null0,no-rx=1 or a "
                              "PCI address such as 0000:03:00.0)"};
        }
        if (spec.ports.size() == 2 && spec.ports[0].substr(0, spec.ports[0].find(',')) ==
                                          spec.ports[1].substr(0, spec.ports[1].find(',')))
            return Status{"--device \"" + text + "\": the two ports are the same device"};
    } else {
        return Status{"--device \"" + text + "\": unknown device (" + kSpecHelp + ")"};
    }
    out = spec;
    return Status::success();
}

std::string deviceLabel(const DeviceOptions &opts)
{
    return opts.spec;
}

std::string deviceGrant(const std::string &spec, std::string *why)
{
    DeviceSpec parsed;
    if (!parseDeviceSpec(spec, parsed).ok()) return {}; // refused later, with its own reason
    if (parsed.kind == DeviceSpec::Kind::Lab) {
        if (why) *why = "it creates network namespaces and TAP interfaces";
        return "lab";
    }
    if (isKernel(parsed.kind)) {
        if (why)
            *why = parsed.kind == DeviceSpec::Kind::KernelLab
                       ? "it creates a network namespace and a veth pair and changes their "
                         "kernel settings"
                       : "it listens on a network interface of the engine's host";
        return "kernel";
    }
    if (parsed.kind == DeviceSpec::Kind::Dpdk)
        if (const auto what = reachesOutside(parsed.ports); !what.empty()) {
            if (why)
                *why = what +
                       " may reach outside the engine's process with its privileges (raw "
                       "sockets, interfaces, files, devices); only net_null (size, copy, no-rx) "
                       "and net_ring without arguments need no grant";
            return "dpdk";
        }
    return {};
}

std::vector<std::string> deviceGrantNames()
{
    return {"lab", "dpdk", "kernel"};
}

Status checkDeviceOptions(const DeviceOptions &opts)
{
    DeviceSpec spec;
    if (auto st = parseDeviceSpec(opts.spec, spec); !st.ok()) return st;
    if (!opts.traffic.empty() && !takesTraffic(opts.spec))
        return Status{"--traffic \"" + opts.traffic +
                      "\" needs --device lab or kernel-lab (it runs a real client across a "
                      "lab's namespaces)"};
    if (!opts.eal.empty() && (spec.kind == DeviceSpec::Kind::Sim || isKernel(spec.kind)))
        return Status{"--eal is for DPDK devices (--device dpdk:... or lab), not " + opts.spec};
    const bool root = geteuid() == 0;
    if (spec.kind == DeviceSpec::Kind::Dpdk && !mayOpenRawPorts()) {
        if (const auto what = needsRootVdev(spec.ports); !what.empty())
            return Status{"--device \"" + opts.spec + "\": " + what +
                          " needs root (or CAP_NET_ADMIN and CAP_NET_RAW); net_null and net_ring "
                          "work without"};
    }
    if (spec.kind == DeviceSpec::Kind::Lab) {
        if (!root)
            return Status{"--device lab needs root: it creates network namespaces and TAP "
                          "interfaces (sudo ringlab-engine run --device lab ...)"};
        if (!onPath("ip"))
            return Status{"--device lab needs iproute2's ip (apt-get install iproute2)"};
        if (!opts.traffic.empty()) return checkTraffic(opts.traffic);
    }
    if (isKernel(spec.kind)) {
        if (auto st = kernel::checkKernelSpec(opts.spec, kernelSpec(spec)); !st.ok()) return st;
        if (spec.kind == DeviceSpec::Kind::KernelLab)
            for (const auto &[program, package] :
                 {std::pair{"ip", "iproute2"}, {"ethtool", "ethtool"}})
                if (!onPath(program))
                    return Status{std::string("--device kernel-lab needs ") + program +
                                  " (apt-get install " + package + ")"};
        if (!opts.traffic.empty()) return checkTraffic(opts.traffic);
    }
    return Status::success();
}

Assignments deviceDefaults(const std::string &spec)
{
    DeviceSpec s;
    if (!parseDeviceSpec(spec, s).ok() || s.kind == DeviceSpec::Kind::Sim) return {};
    // The kernel lab's client sends load.rate_pps requests a second: the simulated NIC's
    // 100,000 would take most of a small machine's second core for the client alone.
    if (s.kind == DeviceSpec::Kind::KernelLab)
        return {
            {"tx.coalesce_usecs", "100"}, {"tx.coalesce_frames", "32"}, {"load.rate_pps", "20000"}};
    return {{"tx.coalesce_usecs", "100"}, {"tx.coalesce_frames", "32"}};
}

bool takesTraffic(const std::string &spec)
{
    DeviceSpec s;
    return parseDeviceSpec(spec, s).ok() &&
           (s.kind == DeviceSpec::Kind::Lab || s.kind == DeviceSpec::Kind::KernelLab);
}

Status checkTraffic(const std::string &text)
{
    lab::TrafficSpec t;
    if (auto st = lab::parseTraffic(text, t); !st.ok()) return st;
    const char *program = t.tool == lab::TrafficSpec::Tool::Ping ? "ping" : "iperf3";
    if (!onPath(program))
        return Status{std::string("--traffic needs ") + program + " (apt-get install " +
                      (t.tool == lab::TrafficSpec::Tool::Ping ? "iputils-ping" : "iperf3") + ")"};
    return Status::success();
}

std::unique_ptr<Device> createDevice(const DeviceOptions &opts, const ParamSet &ps,
                                     const LiveParams &live)
{
    DeviceSpec spec;
    if (auto st = parseDeviceSpec(opts.spec, spec); !st.ok()) throw std::runtime_error(st.error);
    switch (spec.kind) {
    case DeviceSpec::Kind::Sim:
        return std::make_unique<sim::SimNic>(ps, live);
    case DeviceSpec::Kind::Dpdk:
        return dpdk::makePortDevice(spec.ports, opts.eal, ps, live);
    case DeviceSpec::Kind::Lab:
        return dpdk::makeLabDevice(opts.eal, opts.traffic, opts.trafficBoundS, ps, live);
    case DeviceSpec::Kind::Kernel:
    case DeviceSpec::Kind::KernelLab:
        return kernel::makeKernelDevice(kernelSpec(spec), opts.traffic, opts.trafficBoundS, ps,
                                        live);
    }
    throw std::runtime_error("unknown device kind");
}

DeviceFactory deviceFactory(const DeviceOptions &opts)
{
    return
        [opts](const ParamSet &ps, const LiveParams &live) { return createDevice(opts, ps, live); };
}

std::vector<DeviceListing> listDevices(const std::vector<std::string> &eal, DeviceProbe probe)
{
    std::vector<DeviceListing> out;
    DeviceListing sim;
    sim.spec = "sim";
    sim.kind = "simulated";
    sim.driver = "sim";
    sim.description = "simulated NIC: load.*, link.mbps, probes and interrupt moderation; needs "
                      "no privilege (the default)";
    sim.link = "up (link.mbps)";
    sim.rxInterrupts = true;
    {
        const ParamSet ps;
        const LiveParams live(ps);
        sim.support = sim::SimNic(ps, live).support();
    }
    out.push_back(sim);
    out.push_back(dpdk::labListing());
    for (auto &l : dpdk::listDpdkDevices(eal, probe == DeviceProbe::Attach)) {
        if (l.driver == "net_tap") out[1].support = l.support; // the lab is two TAP ports
        out.push_back(std::move(l));
    }
    for (auto &l : kernel::kernelListings())
        out.push_back(std::move(l));
    return out;
}

DeviceListing describeDevice(const DeviceListing &row, const std::vector<std::string> &eal)
{
    DeviceListing out = row;
    if (row.kind == "DPDK virtual") {
        dpdk::describeDpdkListing(row.driver, eal, out);
    } else if (row.kind == "lab") { // the lab is two TAP ports: theirs is its support
        for (auto &l : dpdk::listDpdkDevices(eal, false))
            if (l.driver == "net_tap" && dpdk::describeDpdkListing("net_tap", eal, l))
                out.support = l.support;
    }
    return out;
}

} // namespace ringlab
