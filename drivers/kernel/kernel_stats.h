// SPDX-License-Identifier: GPL-2.0-or-later
// What the kernel's receive path spends and drops, as counters read from procfs and sysfs
// (issue 44, part 3: "what it costs and buys, in every sample"): per CPU the softnet
// counters (frames processed, dropped at the backlog, time squeezes) and the NET_RX/NET_TX
// softirqs; the namespace's busy-poll receives; a netdev's packet and drop counters; a
// thread's CPU time, time waiting to run, and context switches (for the NAPI kthreads).
//
// Readings are cumulative; kernelRates() turns two of them into the per-second figures a
// sample records, under the names of one table (kernelMetrics()). Every reader takes the
// root it reads under ("/proc", "/sys"), so that a test can hand it a tree of its own, and
// says which file and line it could not read rather than guess.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/kernel/poll_attribution.h"
#include "engine/common/status.h"
#include "engine/datapath/device.h"
#include "engine/datapath/sample.h"

namespace ringlab::kernel {

struct SoftnetCpu {
    int cpu = 0;
    std::uint64_t processed = 0, dropped = 0, timeSqueeze = 0;
};

struct KernelCounters {
    std::vector<SoftnetCpu> softnet;         // /proc/net/softnet_stat, one per online CPU
    std::vector<std::uint64_t> netRx, netTx; // /proc/softirqs, per CPU
    std::uint64_t busyPollRxPackets = 0;     // /proc/net/netstat (this namespace's)
    bool hasBusyPoll = false;
};

// Reads the three files under `procRoot` (normally "/proc").
Status readKernelCounters(KernelCounters &out, const std::string &procRoot = "/proc");

struct NetdevCounters {
    std::uint64_t rxPackets = 0, rxDropped = 0, rxMissed = 0, txPackets = 0, txDropped = 0;
};
// /sys/class/net/IF/statistics under `sysRoot` (normally "/sys"), in the caller's namespace.
Status readNetdevCounters(const std::string &ifname, NetdevCounters &out,
                          const std::string &sysRoot = "/sys");

struct ThreadCpu {
    std::uint64_t runNs = 0, waitNs = 0, slices = 0; // /proc/PID/schedstat
    std::uint64_t voluntary = 0, involuntary = 0;    // context switches, /proc/PID/status
};
Status readThreadCpu(pid_t pid, ThreadCpu &out, const std::string &procRoot = "/proc");

// The figures kernelRates() gives, defined once: name, unit, what it says.
struct KernelMetric {
    std::string_view name, unit, help;
};
std::span<const KernelMetric> kernelMetrics();

// Per second between two readings `seconds` apart (> 0). A counter that went back (a CPU
// that went offline and came back, a netdev re-created) counts from zero rather than giving
// a negative or wrapped rate.
std::vector<DeviceMetric> kernelRates(const KernelCounters &before, const KernelCounters &after,
                                      double seconds);
std::vector<DeviceMetric> netdevRates(const NetdevCounters &before, const NetdevCounters &after,
                                      double seconds);
// Polls and the frames they handed up per second, by what drove them (PollAttribution).
std::vector<DeviceMetric> pollRates(const PollCounts &before, const PollCounts &after,
                                    double seconds);
// A thread's CPU and wakeups (voluntary switches) per second, as the engine's own threads
// are shown: a NAPI kthread is one more row of the CPU chart.
ThreadStat threadRates(const std::string &thread, const ThreadCpu &before, const ThreadCpu &after,
                       double seconds);

} // namespace ringlab::kernel
