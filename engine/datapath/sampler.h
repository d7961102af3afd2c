// SPDX-License-Identifier: GPL-2.0-or-later
// Builds a Sample from the counters, the latency histograms and the OS's per-thread CPU
// clocks and context-switch counts. Keeps the previous readings to turn totals into rates.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>

#include "engine/datapath/device.h"
#include "engine/datapath/latency_stats.h"
#include "engine/datapath/sample.h"
#include "engine/datapath/thread_registry.h"

namespace ringlab {

struct DatapathReading {
    LatencyStats::Snapshot latency; // cumulative, including torn-down datapaths
    std::uint32_t poolFree = 0, rxPosted = 0, txPending = 0, handoffDepth = 0;
    std::uint32_t rxModerationUs = 0, txCoalesceUs = 0;
    DeviceReading device;
};

// A histogram of nanoseconds as a sample's latency: percentiles, mean and maximum in
// microseconds, and the coarse buckets (kLatencyBucketBoundsUs).
LatencySummary summarizeLatency(const Histogram::Snapshot &h);

class Sampler {
  public:
    using Reader = std::function<DatapathReading()>;
    // periodNs: the sampler's period, to judge a stall (kStallPeriods); 0: never judged.
    Sampler(ThreadRegistry &reg, Reader reader, std::int64_t startNs, std::int64_t periodNs = 0);
    // Measures everything since the previous call (or since startNs).
    std::shared_ptr<Sample> take(std::int64_t nowNs);

  private:
    struct ThreadPrev {
        std::int64_t cpuNs = 0;
        std::uint64_t voluntary = 0;
    };
    static bool machineTicks(std::uint64_t &busy, std::uint64_t &total);
    // The parts of take(), in its order; each keeps the previous readings it turns into rates.
    // Per thread, summed by name; `total` gets every thread's counters, and threads that
    // have exited are retired.
    void measureThreads(Sample &s, std::int64_t nowNs, double dt, CounterValues &total);
    // Totals and rates, `total` with the device's counters added.
    void measureCounters(Sample &s, CounterValues &total, const DatapathReading &dp, double dt);
    // Latency, round trips and the stages, over the interval.
    void measureLatency(Sample &s, const DatapathReading &dp);
    // The process's, the machine's and the neighbours' CPU.
    void measureCpu(Sample &s, std::int64_t nowNs, double dt);

    ThreadRegistry &reg_;
    Reader reader_;
    std::int64_t startNs_;
    std::int64_t periodNs_;
    std::int64_t prevNs_;
    std::int64_t prevArrivalsNs_ = -1; // DeviceReading::arrivalsUntilNs at the last sample
    std::uint64_t seq_ = 0;
    CounterValues retired_; // counters of threads that have ended
    CounterValues prevTotal_;
    LatencyStats::Snapshot prevLatency_;
    Histogram::Snapshot prevDeviceRtt_;
    std::map<const ThreadEntry *, ThreadPrev> prevThreads_;
    std::int64_t prevProcessCpu_ = 0;
    std::uint64_t prevBusy_ = 0, prevTicks_ = 0;
    // The machine's CPU use outside this process, over the last second at least: the kernel
    // counts machine CPU in 10 ms ticks, too coarse for one 100 ms interval.
    struct CpuReading {
        std::int64_t ns = 0, processCpuNs = 0;
        std::uint64_t busy = 0, ticks = 0;
    };
    static constexpr std::int64_t kNeighbourWindowNs = 1'000'000'000;
    std::array<CpuReading, 32> cpuHistory_{}; // a ring, newest at cpuHistoryAt_ - 1
    std::size_t cpuHistoryAt_ = 0, cpuHistoryCount_ = 0;
    double onlineCpus_ = 1;
    void rememberCpu(const CpuReading &r);
    double neighbourCpuMsPerS(const CpuReading &now) const;
};

} // namespace ringlab
