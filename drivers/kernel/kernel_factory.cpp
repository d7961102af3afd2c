// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/kernel_factory.h"

#include "drivers/lab/traffic.h"

#include <net/if.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "drivers/kernel/kernel_lab.h"
#include "drivers/kernel/udp_app_device.h"

namespace ringlab::kernel {

namespace {
// An interface name the kernel could have: 1 to 15 bytes, no '/', ':' or white space.
bool isIfname(const std::string &s)
{
    if (s.empty() || s.size() >= IFNAMSIZ || s == "." || s == "..") return false;
    return std::none_of(s.begin(), s.end(), [](char c) {
        return c == '/' || c == ':' || c == ',' || c == '=' || c <= ' ' || c == 0x7f;
    });
}

std::string firstLine(const std::filesystem::path &p)
{
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    return line;
}
} // namespace

Status parseKernelSpec(const std::string &text, const std::string &rest, KernelSpec &out)
{
    KernelSpec spec;
    spec.port = kDefaultUdpPort;
    const auto comma = rest.find(',');
    spec.ifname = rest.substr(0, comma);
    if (!isIfname(spec.ifname))
        return Status{"--device \"" + text + "\": \"" + spec.ifname +
                      "\" is not an interface name (allowed: kernel:IFNAME[,port=N], IFNAME 1 "
                      "to 15 characters without '/', ':', ',' or spaces, such as kernel:eth0)"};
    if (comma != std::string::npos) {
        const std::string opt = rest.substr(comma + 1);
        const std::string key = "port=";
        unsigned value = 0;
        const char *first = opt.data() + std::min(key.size(), opt.size());
        const char *last = opt.data() + opt.size();
        const auto [end, ec] = std::from_chars(first, last, value);
        if (opt.rfind(key, 0) != 0 || ec != std::errc() || end != last || value < 1 ||
            value > 65535)
            return Status{"--device \"" + text + "\": \"" + opt +
                          "\" is not an option of the kernel device (allowed: port=N, a UDP "
                          "port from 1 to 65535; the default is " +
                          std::to_string(kDefaultUdpPort) + ")"};
        spec.port = static_cast<std::uint16_t>(value);
    }
    out = spec;
    return Status::success();
}

Status checkKernelSpec(const std::string &text, const KernelSpec &spec)
{
    if (spec.lab) {
        if (geteuid() != 0)
            return Status{"--device kernel-lab needs root: it creates a network namespace and a "
                          "veth pair (sudo ringlab-engine run --device kernel-lab ...)"};
        return Status::success();
    }
    if (if_nametoindex(spec.ifname.c_str()) == 0)
        return Status{"--device \"" + text + "\": no network interface \"" + spec.ifname +
                      "\" in this network namespace (ringlab-engine devices lists them)"};
    return Status::success();
}

std::unique_ptr<Device> makeKernelDevice(const KernelSpec &spec, const std::string &traffic,
                                         int boundS, const ParamSet &ps, const LiveParams &live)
{
    UdpAppOptions opts;
    opts.port = spec.port ? spec.port : kDefaultUdpPort;
    if (spec.lab) {
        lab::TrafficSpec t;
        if (!traffic.empty()) {
            if (Status st = lab::parseTraffic(traffic, t); !st.ok())
                throw std::runtime_error(st.error);
        }
        opts.lab = std::make_unique<KernelLab>();
        opts.ifname = opts.lab->ifname();
        // The client in the lab's namespace, the server (iperf3) at the engine's end.
        if (!traffic.empty())
            opts.traffic = std::make_unique<lab::Traffic>(t, opts.lab->netns(), std::string(),
                                                          opts.lab->hostAddressText(), boundS);
    } else {
        opts.ifname = spec.ifname;
    }
    return std::make_unique<UdpAppDevice>(std::move(opts), ps, live);
}

std::vector<DeviceListing> kernelListings()
{
    std::vector<DeviceListing> out;
    DeviceListing lab;
    lab.spec = "kernel-lab";
    lab.kind = "kernel lab";
    lab.driver = "veth";
    lab.description = "the Linux kernel's NAPI on a veth pair (198.19.0.0/16), the engine a "
                      "UDP application answering Ringlab's request/response client";
    lab.rxInterrupts = true;
    lab.support = UdpAppDevice::supportFor(true);
    if (geteuid() != 0) {
        lab.available = false;
        lab.unavailableWhy = "needs root (a network namespace and a veth pair)";
    }
    out.push_back(lab);
    std::error_code ec;
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator("/sys/class/net", ec))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const auto &name : names) {
        if (name == "lo" || !isIfname(name)) continue;
        const std::filesystem::path dir = std::filesystem::path("/sys/class/net") / name;
        DeviceListing l;
        l.spec = "kernel:" + name;
        l.kind = "kernel";
        l.driver = std::filesystem::read_symlink(dir / "device" / "driver", ec).filename().string();
        if (ec || l.driver.empty()) l.driver = "virtual";
        l.description = "netdev " + name + ": the engine a UDP application on port " +
                        std::to_string(kDefaultUdpPort) + " (kernel:" + name + ",port=N)";
        const std::string state = firstLine(dir / "operstate");
        const std::string speed = firstLine(dir / "speed");
        l.link = state + (!speed.empty() && speed[0] != '-' ? ", " + speed + " Mbit/s" : "");
        l.rxInterrupts = true;
        l.support = UdpAppDevice::supportFor(false, name);
        out.push_back(std::move(l));
    }
    return out;
}

} // namespace ringlab::kernel
