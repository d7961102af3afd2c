// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/sampler.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <unistd.h>

namespace ringlab {

namespace {
std::int64_t processCpuNs()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// A thread's CPU time and voluntary switches: read from the OS while it runs, its final
// figures once it has exited; false when neither can be had (it is measured next time).
bool readThreadClocks(const ThreadEntry &e, bool &exited, std::int64_t &cpu, std::uint64_t &vol)
{
    if (!exited && !(ThreadRegistry::cpuNs(e, cpu) && ThreadRegistry::voluntarySwitches(e, vol))) {
        // It ended while we read it: its final figures are valid once exited is seen.
        exited = e.exited.load(std::memory_order_acquire);
        if (!exited) return false; // neither readable nor final
    }
    if (exited) {
        cpu = e.finalCpuNs;
        vol = e.finalVoluntary;
    }
    return true;
}

// The longest gap between a polling thread's polls since the last sample, into its stat.
void notePollGap(ThreadEntry &e, bool exited, std::int64_t nowNs, ThreadStat &ts)
{
    std::int64_t gap = e.longestGapNs.exchange(0, std::memory_order_relaxed);
    // A stall still going: the ring has been unattended since the last poll.
    if (const std::int64_t last = e.lastPollNs.load(std::memory_order_relaxed);
        !exited && last > 0 && nowNs > last)
        gap = std::max(gap, nowNs - last);
    ts.pollGapMaxUs = std::max(ts.pollGapMaxUs, static_cast<double>(gap) / 1e3);
}

// CPU time a running thread used since the last sample, counted on the CPU it is on now.
void creditCurrentCpu(ThreadEntry &e, std::int64_t ns)
{
    const int on = ThreadRegistry::currentCpu(e);
    if (on >= 0 && on < ThreadEntry::kTrackedCpus)
        e.cpuNsOn[static_cast<std::size_t>(on)].fetch_add(ns, std::memory_order_relaxed);
}

// The device's own metrics and the datapath's levels at the end of the interval, as read.
void copyReadings(Sample &s, const DatapathReading &dp)
{
    s.device = dp.device.metrics;
    s.threads.insert(s.threads.end(), dp.device.threads.begin(), dp.device.threads.end());
    s.poolFree = dp.poolFree;
    s.rxPosted = dp.rxPosted;
    s.txPending = dp.txPending;
    s.rxModerationUs = dp.rxModerationUs;
    s.txCoalesceUs = dp.txCoalesceUs;
    s.handoffDepth = dp.handoffDepth;
}

} // namespace

LatencySummary summarizeLatency(const Histogram::Snapshot &h)
{
    LatencySummary s;
    s.count = h.total();
    if (!s.count) return s;
    s.p50 = h.quantile(0.50) / 1e3;
    s.p90 = h.quantile(0.90) / 1e3;
    s.p99 = h.quantile(0.99) / 1e3;
    s.p999 = h.quantile(0.999) / 1e3;
    s.max = h.maxValue() / 1e3;
    s.mean = h.mean() / 1e3;
    std::size_t coarse = 0;
    for (std::size_t b = 0; b < h.counts.size(); ++b) {
        if (!h.counts[b]) continue;
        const auto high = static_cast<double>(Histogram::bucketHigh(b)); // exclusive, ns
        while (coarse < std::size(kLatencyBucketBoundsUs) &&
               high > kLatencyBucketBoundsUs[coarse] * 1e3 + 1)
            ++coarse;
        s.buckets[coarse] += h.counts[b];
    }
    return s;
}

Sampler::Sampler(ThreadRegistry &reg, Reader reader, std::int64_t startNs, std::int64_t periodNs)
    : reg_(reg), reader_(std::move(reader)), startNs_(startNs), periodNs_(periodNs),
      prevNs_(startNs)
{
    prevProcessCpu_ = processCpuNs();
    machineTicks(prevBusy_, prevTicks_);
    onlineCpus_ = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
    rememberCpu({startNs, prevProcessCpu_, prevBusy_, prevTicks_});
    const DatapathReading first = reader_();
    prevLatency_ = first.latency;
    if (first.device.hasRtt) prevDeviceRtt_ = first.device.rtt;
    prevTotal_.addFrom(first.device.counters); // what the device counted before the start
    prevArrivalsNs_ = first.device.arrivalsUntilNs;
}

bool Sampler::machineTicks(std::uint64_t &busy, std::uint64_t &total)
{
    FILE *f = std::fopen("/proc/stat", "re");
    if (!f) return false;
    unsigned long long v[10] = {};
    const int n = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
                              &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    std::fclose(f);
    if (n < 5) return false;
    total = 0;
    for (int k = 0; k < 8; ++k)
        total += v[k];          // guest time is already in user
    busy = total - v[3] - v[4]; // minus idle and iowait
    return true;
}

void Sampler::rememberCpu(const CpuReading &r)
{
    cpuHistory_[cpuHistoryAt_] = r;
    cpuHistoryAt_ = (cpuHistoryAt_ + 1) % cpuHistory_.size();
    cpuHistoryCount_ = std::min(cpuHistoryCount_ + 1, cpuHistory_.size());
}

// Machine CPU (every CPU's busy ticks) less this process's, in ms/s, from the newest reading
// at least kNeighbourWindowNs old (or the oldest kept) to `now`; -1 before a tick has passed.
double Sampler::neighbourCpuMsPerS(const CpuReading &now) const
{
    const CpuReading *from = nullptr;
    for (std::size_t k = 1; k <= cpuHistoryCount_; ++k) {
        const CpuReading &r =
            cpuHistory_[(cpuHistoryAt_ + cpuHistory_.size() - k) % cpuHistory_.size()];
        from = &r;
        if (now.ns - r.ns >= kNeighbourWindowNs) break;
    }
    if (!from || now.ticks <= from->ticks || now.ns <= from->ns) return -1;
    const double seconds = static_cast<double>(now.ns - from->ns) / 1e9;
    const double machine = static_cast<double>(now.busy - from->busy) /
                           static_cast<double>(now.ticks - from->ticks) * onlineCpus_ * 1000.0;
    const double process =
        static_cast<double>(now.processCpuNs - from->processCpuNs) / 1e6 / seconds;
    return std::max(0.0, machine - process);
}

std::shared_ptr<Sample> Sampler::take(std::int64_t nowNs)
{
    auto s = std::make_shared<Sample>();
    const double dt = static_cast<double>(nowNs - prevNs_) / 1e9;
    s->seq = seq_++;
    s->t = static_cast<double>(nowNs - startNs_) / 1e9;
    s->interval = dt;
    if (periodNs_ > 0 &&
        static_cast<double>(nowNs - prevNs_) > kStallPeriods * static_cast<double>(periodNs_))
        s->stall = Stall::Sampler;

    // The device first: its arrivals are counted up to dp.device.arrivalsUntilNs, and the
    // counter blocks read after it hold at least those.
    const DatapathReading dp = reader_();
    // Threads: CPU and wakeups per thread, summed by name; counters from every block.
    CounterValues total = retired_;
    measureThreads(*s, nowNs, dt, total);
    measureCounters(*s, total, dp, dt);
    measureLatency(*s, dp);
    copyReadings(*s, dp);
    measureCpu(*s, nowNs, dt);
    prevNs_ = nowNs;
    return s;
}

void Sampler::measureThreads(Sample &s, std::int64_t nowNs, double dt, CounterValues &total)
{
    std::map<std::string, ThreadStat> byName;
    std::vector<std::shared_ptr<ThreadEntry>> gone;
    for (const auto &e : reg_.entries()) {
        bool exited = e->exited.load(std::memory_order_acquire);
        total.addFrom(e->counters);
        if (e->countersOnly) continue;
        std::int64_t cpu = 0;
        std::uint64_t vol = 0;
        if (!readThreadClocks(*e, exited, cpu, vol)) continue; // measure it next time
        ThreadPrev &prev = prevThreads_[e.get()];
        ThreadStat &ts = byName[e->name];
        ts.name = e->name;
        if (e->measuresGaps.load(std::memory_order_relaxed)) notePollGap(*e, exited, nowNs, ts);
        if (dt > 0) {
            ts.cpuMsPerS +=
                static_cast<double>(std::max<std::int64_t>(0, cpu - prev.cpuNs)) / 1e6 / dt;
            ts.wakeupsPerS +=
                static_cast<double>(vol >= prev.voluntary ? vol - prev.voluntary : 0) / dt;
        }
        if (!exited && cpu > prev.cpuNs) creditCurrentCpu(*e, cpu - prev.cpuNs);
        prev = {cpu, vol};
        if (exited) gone.push_back(e);
    }
    for (const auto &e : gone) {
        retired_.addFrom(e->counters);
        prevThreads_.erase(e.get());
        reg_.remove(e);
    }
    for (auto &[name, ts] : byName) {
        ts.cpuPct = ts.cpuMsPerS / 10.0;
        s.engineCpuMsPerS += ts.cpuMsPerS;
        s.threads.push_back(ts);
    }
}

void Sampler::measureCounters(Sample &s, CounterValues &total, const DatapathReading &dp, double dt)
{
    total.addFrom(dp.device.counters);
    for (std::size_t k = 0; k < kCounterCount; ++k) {
        s.total[k] = total.v[k];
        s.rate[k] = dt > 0 ? static_cast<double>(total.v[k] - prevTotal_.v[k]) / dt : 0;
    }
    // Arrivals over the time they cover: a poll thread that stalled for seconds counts that
    // backlog when it wakes, but the frames arrived during the stall.
    if (dp.device.arrivalsUntilNs > 0 && prevArrivalsNs_ > 0) {
        const double span = static_cast<double>(dp.device.arrivalsUntilNs - prevArrivalsNs_) / 1e9;
        if (span > 0)
            for (CounterId c : kArrivalCounters) {
                const auto k = static_cast<std::size_t>(c);
                s.rate[k] = static_cast<double>(total.v[k] - prevTotal_.v[k]) / span;
            }
    }
    prevArrivalsNs_ = dp.device.arrivalsUntilNs;
    prevTotal_ = total;
    s.rxMbps = s.rateOf(CounterId::RxBytes) * 8 / 1e6;
    s.txMbps = s.rateOf(CounterId::TxBytes) * 8 / 1e6;
}

void Sampler::measureLatency(Sample &s, const DatapathReading &dp)
{
    const Histogram::Snapshot lat = dp.latency.total.minus(prevLatency_.total);
    s.latency = summarizeLatency(lat);
    s.latency.sampleEvery = dp.latency.sampleEvery;
    Histogram::Snapshot rtt = dp.latency.rtt.minus(prevLatency_.rtt);
    if (dp.device.hasRtt) { // round trips measured by a real client (ping through the lab)
        rtt.add(dp.device.rtt.minus(prevDeviceRtt_));
        prevDeviceRtt_ = dp.device.rtt;
    }
    s.rtt = summarizeLatency(rtt);
    if (s.latency.count)
        for (std::size_t k = 0; k < kStageSpans; ++k)
            s.stageUs[k] = static_cast<double>(dp.latency.stageNs[k] - prevLatency_.stageNs[k]) /
                           static_cast<double>(s.latency.count) / 1e3;
    prevLatency_ = dp.latency;
}

void Sampler::measureCpu(Sample &s, std::int64_t nowNs, double dt)
{
    const std::int64_t pcpu = processCpuNs();
    if (dt > 0) s.processCpuMsPerS = static_cast<double>(pcpu - prevProcessCpu_) / 1e6 / dt;
    s.processCpuPct = s.processCpuMsPerS / 10.0;
    prevProcessCpu_ = pcpu;
    std::uint64_t busy = 0, ticks = 0;
    if (machineTicks(busy, ticks)) {
        if (ticks > prevTicks_)
            s.machineCpuPct = 100.0 * static_cast<double>(busy - prevBusy_) /
                              static_cast<double>(ticks - prevTicks_);
        const CpuReading now{nowNs, pcpu, busy, ticks};
        s.neighbourCpuMsPerS = neighbourCpuMsPerS(now);
        rememberCpu(now);
    }
    prevBusy_ = busy;
    prevTicks_ = ticks;
}

} // namespace ringlab
