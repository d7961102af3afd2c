// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/napi_sysfs.h"

#include <dirent.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fstream>

namespace ringlab::kernel {

namespace {

constexpr std::array kKnobs{
    NapiKnob{TunableId::NapiThreaded, "threaded", 0, 1},
    NapiKnob{TunableId::NapiGroFlushTimeoutNs, "gro_flush_timeout", 0, 4'294'967'295LL},
    NapiKnob{TunableId::NapiDeferHardIrqs, "napi_defer_hard_irqs", 0, 2'147'483'647LL},
};

bool plainName(const std::string &n)
{
    // What the kernel allows (dev_valid_name): 1-15 bytes, no '/', no ':' here, no space, not
    // "." or "..".
    if (n.empty() || n.size() > 15 || n == "." || n == "..") return false;
    return std::all_of(n.begin(), n.end(),
                       [](unsigned char c) { return c > ' ' && c != '/' && c != ':' && c < 0x7f; });
}

} // namespace

std::span<const NapiKnob> napiSysfsKnobs()
{
    return kKnobs;
}

const NapiKnob *findNapiKnob(TunableId id)
{
    for (const NapiKnob &k : kKnobs)
        if (k.id == id) return &k;
    return nullptr;
}

const NapiKnob *findNapiKnob(std::string_view name)
{
    const TunableInfo *t = findTunable(name);
    return t ? findNapiKnob(t->id) : nullptr;
}

Status napiKnobPath(const std::string &ifname, const NapiKnob &k, std::string &out)
{
    if (!plainName(ifname))
        return Status::refused("interface name '" + ifname +
                               "' is not one: 1 to 15 printable characters, no '/', ':' or space");
    out = "/sys/class/net/" + ifname + "/" + std::string(k.file);
    return Status::success();
}

Status readNapiKnob(const std::string &ifname, const NapiKnob &k, std::string &out)
{
    std::string path;
    if (Status st = napiKnobPath(ifname, k, path); !st.ok()) return st;
    return host::SettingsJournal::read(path, out);
}

Status setNapiKnob(host::SettingsJournal &journal, const std::string &ifname, const NapiKnob &k,
                   const std::string &value)
{
    long long v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || v < k.min || v > k.max)
        return Status::refused(std::string(info(k.id).name) + " = '" + value +
                               "': allowed an integer " + std::to_string(k.min) + " to " +
                               std::to_string(k.max) +
                               (info(k.id).unit.empty() ? "" : " " + std::string(info(k.id).unit)));
    std::string path;
    if (Status st = napiKnobPath(ifname, k, path); !st.ok()) return st;
    if (Status st = journal.write(path, std::to_string(v)); !st.ok())
        return st.within(std::string(info(k.id).name) + " on " + ifname + ": ");
    return Status::success();
}

std::vector<NapiThread> napiThreads(const std::string &ifname)
{
    std::vector<NapiThread> out;
    if (!plainName(ifname)) return out;
    // comm holds 15 bytes: a long name's threads are known by what fits of "napi/IF-".
    const std::string prefix = ("napi/" + ifname + "-").substr(0, 15);
    DIR *d = ::opendir("/proc");
    if (!d) return out;
    while (const dirent *e = ::readdir(d)) {
        if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
        std::ifstream comm(std::string("/proc/") + e->d_name + "/comm");
        std::string name;
        if (!std::getline(comm, name) || name.rfind(prefix, 0) != 0) continue;
        const std::string_view digits = e->d_name;
        pid_t pid = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
        if (ec == std::errc() && end == digits.data() + digits.size()) out.push_back({pid, name});
    }
    ::closedir(d);
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) { return a.pid < b.pid; });
    return out;
}

} // namespace ringlab::kernel
