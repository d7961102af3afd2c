// SPDX-License-Identifier: GPL-2.0-or-later
// What the kernel spends on a netdev's traffic, for every sample of a kernel-device run
// (issue 44, part 3): softnet, NET_RX/NET_TX softirqs and busy-poll receives (host-wide),
// the netdev's packets and drops, each NAPI kthread's CPU and wakeups, and each CPU's time
// in the NET_RX softirq.
//
// Those are files in procfs and sysfs, and the threads that measure never do I/O
// (DESIGN.md): a thread of the watch's own reads them every 50 ms and publishes the reading;
// the sampler takes the newest one without waiting (a try-lock; the one before when the
// reader is publishing) and turns two readings into per-second figures over the readings'
// own times. The NAPI kthreads are found again every second (threaded NAPI switched on or
// off mid-run), by netdev netlink (their NAPI ids) or else by name. Who drove the NAPIs'
// polls comes from a BPF program (PollAttribution) the watch loads; where the kernel
// refuses it, those figures are absent and the problem says why.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "drivers/kernel/kernel_stats.h"
#include "drivers/kernel/napi_sysfs.h"

namespace ringlab::kernel {

struct KernelReading {
    std::int64_t atNs = 0; // 0: none yet
    KernelCounters kernel;
    NetdevCounters netdev;
    bool hasNetdev = false;
    // Each of the netdev's NAPIs (by id): its polls by what drove them.
    std::vector<std::pair<unsigned, PollCounts>> polls;
    bool hasPolls = false;
    // Each CPU's NET_RX softirq time (by CPU number; from the same BPF program).
    std::vector<SoftirqTime> netRx;
    struct Thread {
        NapiThread napi;
        ThreadCpu cpu;
    };
    std::vector<Thread> threads;
};

// The figures between two readings, as a sample records them: metrics under the names of
// kernelMetrics(), a CPU row per NAPI kthread present in both, and a CPU row per CPU that
// has run the NET_RX softirq since the run began ("NET_RX/N": its time in the softirq, every
// netdev's, and as wakeups the times it ran).
inline constexpr const char *kNetRxRowPrefix = "NET_RX/";
void kernelFigures(const KernelReading &before, const KernelReading &after, DeviceReading &out);

class KernelWatch {
  public:
    explicit KernelWatch(std::string ifname);
    ~KernelWatch(); // stops and joins
    KernelWatch(const KernelWatch &) = delete;
    KernelWatch &operator=(const KernelWatch &) = delete;

    // Sampler context: the newest reading, never waiting; false when there is none yet.
    bool latest(KernelReading &out);
    // Why the last reading lacked something (a file it could not read), for an event; empty
    // when nothing is new.
    std::string takeProblem();

  private:
    void run();
    void findThreads(KernelReading &r);

    std::string ifname_;
    unsigned ifindex_ = 0;
    std::mutex mutex_; // the reader holds it only to swap in a reading
    KernelReading latest_;
    std::string problem_;                    // for takeProblem()
    std::string reported_;                   // reader thread only: the last problem published
    std::vector<NapiThread> threads_;        // reader thread only
    std::vector<unsigned> napiIds_;          // reader thread only: the netdev's NAPIs
    std::string noNapis_;                    // reader thread only: why napiIds_ could not be listed
    std::unique_ptr<PollAttribution> polls_; // reader thread only; null where BPF is refused
    std::int64_t threadsFoundNs_ = 0;
    std::mutex stopMutex_;
    std::condition_variable stopCv_;
    bool stop_ = false;
    std::thread thread_;
};

} // namespace ringlab::kernel
