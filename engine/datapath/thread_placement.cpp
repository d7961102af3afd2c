// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/thread_placement.h"

#include <sched.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "engine/common/cpu_list.h"

namespace ringlab {
namespace {

// The tunable that places each role, in ThreadRole order.
constexpr TunableId kRoleCpu[] = {TunableId::ThreadsPollCpu, TunableId::ThreadsCleanCpu,
                                  TunableId::ThreadsRefillCpu, TunableId::ThreadsWorkCpu,
                                  TunableId::ThreadsSamplerCpu};
static_assert(std::size(kRoleCpu) == kThreadRoles, "one tunable per thread role");

// The names engine threads give themselves (EngineThread), and their roles. A trailing '/'
// matches a numbered family (kworker/0, rx_q/0).
struct RoleName {
    std::string_view name;
    ThreadRole role;
};
constexpr RoleName kRoleNames[] = {
    {"poll", ThreadRole::Poll},       {"txclean", ThreadRole::Clean},
    {"refill", ThreadRole::Refill},   {"rx-fifo", ThreadRole::Work},
    {"rx_q/", ThreadRole::Work},      {"kworker/", ThreadRole::Work},
    {"sampler", ThreadRole::Sampler},
};

cpu_set_t captureProcessCpus()
{
    cpu_set_t s;
    CPU_ZERO(&s);
    if (sched_getaffinity(0, sizeof s, &s) != 0 || CPU_COUNT(&s) == 0)
        CPU_SET(0, &s); // not expected on Linux; CPU 0 is always there
    return s;
}

const cpu_set_t &processCpus()
{
    static const cpu_set_t s = captureProcessCpus();
    return s;
}
// Taken as the library loads: before main, before the EAL pins its main lcore.
[[maybe_unused]] const bool kProcessCpusTaken = (processCpus(), true);

std::string cpuSetText(const cpu_set_t &s)
{
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &s)) cpus.push_back(c);
    return cpuListText(std::move(cpus));
}

// False when the kernel does not say (no sysfs): then only the allowed set is checked.
bool onlineCpus(cpu_set_t &out)
{
    std::ifstream in("/sys/devices/system/cpu/online");
    std::string line;
    std::vector<int> cpus;
    if (!std::getline(in, line) || !parseCpuList(line, cpus) || cpus.empty()) return false;
    CPU_ZERO(&out);
    for (int c : cpus)
        if (c < CPU_SETSIZE) CPU_SET(c, &out);
    return true;
}

bool hasCapSysNice()
{
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("CapEff:", 0) == 0) {
            const unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
            return (caps >> 23) & 1; // CAP_SYS_NICE
        }
    return false;
}

std::string name(TunableId p)
{
    return std::string(info(p).name);
}

} // namespace

Placement placementOf(const ParamSet &params)
{
    Placement p;
    for (std::size_t r = 0; r < kThreadRoles; ++r)
        p.cpu[r] = static_cast<int>(params.integer(kRoleCpu[r]));
    p.pollPolicy = params.choice<SchedPolicy>(TunableId::ThreadsPollPolicy);
    p.pollPriority = p.pollPolicy == SchedPolicy::Fifo
                         ? static_cast<int>(params.integer(TunableId::ThreadsPollPriority))
                         : 0;
    return p;
}

bool roleOf(std::string_view threadName, ThreadRole &role)
{
    for (const auto &r : kRoleNames)
        if (r.name.back() == '/' ? threadName.starts_with(r.name) : threadName == r.name) {
            role = r.role;
            return true;
        }
    return false;
}

std::string allowedCpusText()
{
    return cpuSetText(processCpus());
}

Status checkPlacement(const Placement &p)
{
    cpu_set_t online;
    const bool knowOnline = onlineCpus(online);
    for (std::size_t r = 0; r < kThreadRoles; ++r) {
        const int cpu = p.cpu[r];
        if (cpu == Placement::kAnyCpu) continue;
        const std::string what = name(kRoleCpu[r]) + ": CPU " + std::to_string(cpu);
        if (cpu < 0 || cpu >= CPU_SETSIZE) return Status{what + " is not a CPU number"};
        if (knowOnline && !CPU_ISSET(cpu, &online))
            return Status{what + " is offline (online: " + cpuSetText(online) + ")"};
        if (!CPU_ISSET(cpu, &processCpus()))
            return Status{what + " is outside the CPUs this process may use (allowed: any or " +
                          allowedCpusText() + ")"};
    }
    if (p.pollPolicy == SchedPolicy::Fifo && !hasCapSysNice()) {
        rlimit lim{};
        getrlimit(RLIMIT_RTPRIO, &lim);
        if (lim.rlim_cur < static_cast<rlim_t>(p.pollPriority))
            return Status{name(TunableId::ThreadsPollPolicy) + ": fifo at " +
                          name(TunableId::ThreadsPollPriority) + " " +
                          std::to_string(p.pollPriority) +
                          " is not allowed for this process: it needs CAP_SYS_NICE or an "
                          "RLIMIT_RTPRIO of at least " +
                          std::to_string(p.pollPriority) +
                          " (here: " + std::to_string(lim.rlim_cur) + "); allowed: other"};
    }
    return Status::success();
}

Status applyPlacement(pid_t tid, std::string_view threadName, const Placement &p)
{
    ThreadRole role;
    if (!roleOf(threadName, role)) return Status::success();
    const int cpu = p.cpu[static_cast<std::size_t>(role)];
    cpu_set_t set;
    if (cpu == Placement::kAnyCpu) {
        set = processCpus();
    } else {
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
    }
    const std::string thread = "thread " + std::string(threadName);
    // A thread that has just ended has nothing left to place.
    if (sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH)
        return Status{"cannot place " + thread + " on CPU " +
                      (cpu == Placement::kAnyCpu ? allowedCpusText() : std::to_string(cpu)) + ": " +
                      std::strerror(errno)};
    if (role != ThreadRole::Poll) return Status::success();
    sched_param sp{};
    sp.sched_priority = p.pollPriority;
    const int policy = p.pollPolicy == SchedPolicy::Fifo ? SCHED_FIFO : SCHED_OTHER;
    if (sched_setscheduler(tid, policy, &sp) != 0 && errno != ESRCH)
        return Status{"cannot set " + thread + "'s policy to " +
                      std::string(info(TunableId::ThreadsPollPolicy)
                                      .choices[static_cast<std::size_t>(p.pollPolicy)]) +
                      ": " + std::strerror(errno)};
    return Status::success();
}

} // namespace ringlab
