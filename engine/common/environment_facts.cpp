// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/environment_facts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>

namespace ringlab {

namespace {

using R = FactRank;
using S = FactScope;

// The one table of facts. Order: how `sessions show` lists them.
constexpr std::array kSpecs{
    FactSpec{"kernel.release", "kernel release", "/proc/sys/kernel/osrelease", R::Kernel},
    FactSpec{"kernel.cmdline", "kernel command line", "/proc/cmdline", R::Kernel},
    FactSpec{"kernel.virtualisation", "virtualisation",
             "/proc/cpuinfo hypervisor flag, /sys/class/dmi/id/sys_vendor and product_name",
             R::Cpu},
    FactSpec{"kernel.boot_id", "boot id", "/proc/sys/kernel/random/boot_id", R::Record},
    FactSpec{"cpu.model", "CPU model", "/proc/cpuinfo model name", R::Cpu},
    FactSpec{"cpu.online", "CPUs online", "/sys/devices/system/cpu/online", R::Cpu},
    FactSpec{"cpu.online_count", "CPUs online (count)", "/sys/devices/system/cpu/online", R::Cpu},
    FactSpec{"cpu.smt", "SMT active", "/sys/devices/system/cpu/smt/active", R::Cpu},
    FactSpec{"cpu.isolated", "isolated CPUs (isolcpus)", "/sys/devices/system/cpu/isolated",
             R::Placement},
    FactSpec{"cpu.nohz_full", "nohz_full CPUs", "/sys/devices/system/cpu/nohz_full", R::Placement},
    FactSpec{"cpu.allowed", "CPUs the engine may use", "sched_getaffinity of the process",
             R::Placement},
    FactSpec{"cpu.governor", "frequency governor",
             "/sys/devices/system/cpu/cpuN/cpufreq/scaling_governor", R::Frequency, S::Cpu},
    FactSpec{"cpu.freq_min_khz", "minimum frequency (kHz)",
             "/sys/devices/system/cpu/cpuN/cpufreq/scaling_min_freq", R::Frequency, S::Cpu},
    FactSpec{"cpu.freq_max_khz", "maximum frequency (kHz)",
             "/sys/devices/system/cpu/cpuN/cpufreq/scaling_max_freq", R::Frequency, S::Cpu},
    FactSpec{"cpu.idle_states", "idle states enabled",
             "/sys/devices/system/cpu/cpuN/cpuidle/stateK/{name,disable}", R::Frequency, S::Cpu},
    FactSpec{"mem.total_kb", "memory total (kB)", "/proc/meminfo MemTotal", R::Memory},
    FactSpec{"mem.available_kb", "memory available (kB)", "/proc/meminfo MemAvailable", R::Record},
    FactSpec{"mem.hugepages_total", "hugepages", "/proc/meminfo HugePages_Total", R::Memory},
    FactSpec{"mem.hugepages_free", "hugepages free", "/proc/meminfo HugePages_Free", R::Record},
    FactSpec{"mem.hugepage_size_kb", "hugepage size (kB)", "/proc/meminfo Hugepagesize", R::Memory},
    FactSpec{"sysctl.net.core.busy_poll", "net.core.busy_poll", "/proc/sys/net/core/busy_poll",
             R::Sysctl},
    FactSpec{"sysctl.net.core.busy_read", "net.core.busy_read", "/proc/sys/net/core/busy_read",
             R::Sysctl},
    FactSpec{"sysctl.net.core.netdev_budget", "net.core.netdev_budget",
             "/proc/sys/net/core/netdev_budget", R::Sysctl},
    FactSpec{"sysctl.net.core.netdev_budget_usecs", "net.core.netdev_budget_usecs",
             "/proc/sys/net/core/netdev_budget_usecs", R::Sysctl},
    FactSpec{"sysctl.net.core.dev_weight", "net.core.dev_weight", "/proc/sys/net/core/dev_weight",
             R::Sysctl},
    FactSpec{"sysctl.kernel.timer_migration", "kernel.timer_migration",
             "/proc/sys/kernel/timer_migration", R::Sysctl},
    FactSpec{"sysctl.kernel.sched", "kernel.sched_*", "/proc/sys/kernel/sched_*", R::Sysctl,
             S::Each},
    FactSpec{"load.average", "load average (1, 5, 15 min)", "/proc/loadavg", R::Record},
    FactSpec{"load.per_cpu", "load per online CPU (1 min)", "/proc/loadavg / CPUs online", R::Load,
             S::Machine, kLoadTolerance},
    FactSpec{"port.driver", "driver", "ETHTOOL_GDRVINFO, or the DPDK PMD's driver name", R::Port,
             S::Port},
    FactSpec{"port.driver_version", "driver version", "ETHTOOL_GDRVINFO", R::Port, S::Port},
    FactSpec{"port.firmware", "firmware", "ETHTOOL_GDRVINFO", R::Port, S::Port},
    FactSpec{"port.bus", "bus address", "ETHTOOL_GDRVINFO, or the DPDK port's name", R::Record,
             S::Port},
    FactSpec{"port.rings", "rings (rx/tx, of max)", "ETHTOOL_GRINGPARAM", R::Port, S::Port},
    FactSpec{"port.coalesce", "interrupt coalescing", "ETHTOOL_GCOALESCE", R::Port, S::Port},
    FactSpec{"port.offloads", "offloads", "ETHTOOL_GRXCSUM, GTXCSUM, GSG, GTSO, GGSO, GGRO",
             R::Port, S::Port},
    FactSpec{"port.irqs", "IRQs and their CPUs", "/proc/interrupts, /proc/irq/N/smp_affinity_list",
             R::Placement, S::Port},
    FactSpec{"port.napi", "NAPI instances and their settings",
             "netdev netlink napi-get (the kernel device)", R::Port, S::Port},
    FactSpec{"port.dpdk_version", "DPDK version", "rte_version()", R::Port, S::Port},
    FactSpec{"port.eal_args", "EAL arguments", "the arguments rte_eal_init was given", R::Port,
             S::Port},
    FactSpec{"thread.affinity", "CPU affinity", "sched_getaffinity(tid)", R::Placement, S::Thread},
    FactSpec{"thread.policy", "scheduling policy", "sched_getscheduler(tid)", R::Placement,
             S::Thread},
    FactSpec{"thread.priority", "priority (nice, or rt N)",
             "getpriority(PRIO_PROCESS, tid) / sched_getparam(tid)", R::Placement, S::Thread},
    FactSpec{"thread.last_cpu", "CPU last run on (at the stop)",
             "/proc/self/task/TID/stat field 39", R::Record, S::Thread},
    FactSpec{"thread.most_cpu", "CPU run on most (share of its CPU time)",
             "the sampler: each interval's CPU time on the CPU of stat field 39 at the sample",
             R::Placement, S::Thread, 0.5}, // the CPU differs, not its share
};

std::string_view baseOf(std::string_view key)
{
    const auto open = key.find('[');
    return open == std::string_view::npos ? key : key.substr(0, open);
}

} // namespace

std::string_view rankName(FactRank r)
{
    switch (r) {
    case R::Kernel:
        return "kernel";
    case R::Frequency:
        return "frequency";
    case R::Cpu:
        return "CPU";
    case R::Placement:
        return "placement";
    case R::Load:
        return "load";
    case R::Port:
        return "port";
    case R::Sysctl:
        return "sysctl";
    case R::Memory:
        return "memory";
    case R::Record:
        return "record";
    }
    return "?";
}

std::span<const FactSpec> factSpecs()
{
    return kSpecs;
}

const FactSpec *findFactSpec(std::string_view key)
{
    const std::string_view base = baseOf(key);
    const bool instance = base.size() != key.size();
    if (instance && (key.size() < base.size() + 3 || key.back() != ']')) return nullptr;
    for (const auto &s : kSpecs)
        if (s.key == base) {
            // One per sysctl found, or one without an instance saying why there is none.
            if (s.scope == S::Each) return &s;
            return (s.scope == S::Machine) == !instance ? &s : nullptr;
        }
    return nullptr;
}

std::string factInstance(std::string_view key)
{
    const std::string_view base = baseOf(key);
    if (base.size() == key.size() || key.size() < base.size() + 2) return {};
    return std::string(key.substr(base.size() + 1, key.size() - base.size() - 2));
}

std::string factKey(std::string_view spec, std::string_view instance)
{
    std::string k(spec);
    if (!instance.empty()) k += "[" + std::string(instance) + "]";
    return k;
}

std::string factLabel(std::string_view key)
{
    const FactSpec *s = findFactSpec(key);
    if (!s) return std::string(key);
    const std::string inst = factInstance(key);
    switch (s->scope) {
    case S::Cpu:
        return std::string(s->label) + " (CPU " + inst + ")";
    case S::Thread:
        return "thread " + inst + ": " + std::string(s->label);
    case S::Port:
        return "port " + inst + ": " + std::string(s->label);
    case S::Each:
        return inst.empty() ? std::string(s->label) : "kernel." + inst;
    case S::Machine:
        break;
    }
    return std::string(s->label);
}

std::string Fact::shown() const
{
    if (!present()) return "absent: " + absent;
    return value.empty() ? "(empty)" : value;
}

const Fact *Environment::find(std::string_view key) const
{
    for (const auto &f : facts)
        if (f.key == key) return &f;
    return nullptr;
}

void Environment::set(Fact f)
{
    for (auto &have : facts)
        if (have.key == f.key) {
            have = std::move(f);
            return;
        }
    facts.push_back(std::move(f));
}

namespace {
std::vector<std::string> words(const std::string &s)
{
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t j = std::min(s.find(' ', i), s.size());
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j + 1;
    }
    return out;
}

// The words of `x` that `y` lacks (as many times as they occur more often), in x's order.
std::vector<std::string> onlyIn(const std::vector<std::string> &x,
                                const std::vector<std::string> &y)
{
    std::map<std::string, int> left;
    for (const auto &w : y)
        ++left[w];
    std::vector<std::string> out;
    for (const auto &w : x)
        if (left[w]-- <= 0) out.push_back(w);
    return out;
}

std::string listed(const std::vector<std::string> &ws)
{
    constexpr std::size_t kShown = 6;
    if (ws.empty()) return "nothing";
    std::string out;
    for (std::size_t k = 0; k < ws.size() && k < kShown; ++k)
        out += (k ? " " : "") + ws[k];
    if (ws.size() > kShown) out += " and " + std::to_string(ws.size() - kShown) + " more";
    return out;
}
} // namespace

std::string EnvironmentDifference::text() const
{
    const std::string what = label.empty() ? factLabel(key) : label;
    // A long list of words (a kernel command line, a flag list): what differs, not both
    // whole (two 600-character command lines buried the caveat that mattered, issue 46).
    constexpr std::size_t kLong = 60;
    if ((a.size() > kLong || b.size() > kLong) && a.find(' ') != std::string::npos &&
        b.find(' ') != std::string::npos) {
        const auto wa = words(a), wb = words(b);
        const auto onlyA = onlyIn(wa, wb), onlyB = onlyIn(wb, wa);
        if (onlyA.empty() && onlyB.empty()) return what + ": the same words in another order";
        return what + ": only in A " + listed(onlyA) + "; only in B " + listed(onlyB);
    }
    return what + ": A " + a + ", B " + b;
}

namespace {
bool alike(const FactSpec &spec, const Fact &a, const Fact &b)
{
    if (a.present() != b.present()) return false;
    if (!a.present()) return true; // both absent: nothing known differs
    if (spec.tolerance > 0) {
        char *ea = nullptr, *eb = nullptr;
        const double x = std::strtod(a.value.c_str(), &ea), y = std::strtod(b.value.c_str(), &eb);
        if (ea != a.value.c_str() && eb != b.value.c_str() && std::isfinite(x) && std::isfinite(y))
            return std::fabs(x - y) <= spec.tolerance;
    }
    return a.value == b.value;
}
} // namespace

std::vector<EnvironmentDifference> environmentDifferences(const Environment &a,
                                                          const Environment &b)
{
    std::vector<EnvironmentDifference> out;
    if (!a.recorded() || !b.recorded()) {
        if (a.recorded() != b.recorded())
            out.push_back({"environment", R::Kernel,
                           a.recorded() ? "recorded" : std::string(kNotRecorded),
                           b.recorded() ? "recorded" : std::string(kNotRecorded)});
        return out;
    }
    // Keys of both sides, A's order first.
    std::vector<std::string> keys;
    for (const auto *side : {&a, &b})
        for (const auto &f : side->facts)
            if (std::find(keys.begin(), keys.end(), f.key) == keys.end()) keys.push_back(f.key);
    const std::string missing = "not captured";
    for (const auto &key : keys) {
        const FactSpec *spec = findFactSpec(key);
        if (!spec || spec->rank == R::Record) continue;
        const Fact *fa = a.find(key), *fb = b.find(key);
        if (fa && fb && alike(*spec, *fa, *fb)) continue;
        out.push_back({key, spec->rank, fa ? fa->shown() : missing, fb ? fb->shown() : missing});
    }
    auto order = [](const EnvironmentDifference &d) {
        const FactSpec *s = findFactSpec(d.key);
        return s ? static_cast<std::size_t>(s - kSpecs.data()) : 0;
    };
    std::stable_sort(out.begin(), out.end(), [&](const auto &x, const auto &y) {
        if (x.rank != y.rank) return x.rank < y.rank;
        return order(x) < order(y);
    });
    return out;
}

} // namespace ringlab
