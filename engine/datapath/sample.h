// SPDX-License-Identifier: GPL-2.0-or-later
// What the engine reports: a Sample every interval and an Event for everything that
// happens to a run (start, parameter change, restart, mark, stop, warnings).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/datapath/counters.h"
#include "engine/datapath/device.h"
#include "engine/datapath/latency_stats.h"
#include "engine/datapath/thread_stat.h"

namespace ringlab {

// Coarse latency buckets for exporters that want a histogram (Prometheus): upper bounds in
// microseconds, and one bucket above the last.
inline constexpr double kLatencyBucketBoundsUs[] = {5,    10,   20,   50,    100,   200,   500,
                                                    1000, 2000, 5000, 10000, 20000, 50000, 100000};
inline constexpr std::size_t kLatencyBucketCount = std::size(kLatencyBucketBoundsUs) + 1;

struct LatencySummary {
    double p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0, mean = 0; // microseconds
    std::uint64_t count = 0;                                       // frames measured
    // Frames per coarse bucket in the interval (kLatencyBucketBoundsUs). A frame whose fine
    // histogram bucket straddles a bound counts in the bucket above it.
    std::array<std::uint64_t, kLatencyBucketCount> buckets{};
    std::uint32_t sampleEvery = 1; // one load frame in this many measured (1: every frame)
};

// Why a sample does not continue the line before it, as the engine saw it. Sampler: the
// sampler ran more than a whole period late (the process was not run), so this sample covers
// over two periods and the samples between were never taken; a chart breaks its lines before
// it. Charts never infer a stall from intervals: a late sample followed by a short catch-up
// one is ordinary on a busy machine.
enum class Stall : std::uint8_t { None, Sampler };
// The names sample lines, the database and the exports use ("" for none).
inline constexpr const char *kStallNames[] = {"", "sampler"};
inline const char *stallName(Stall s)
{
    return kStallNames[static_cast<std::size_t>(s)];
}
// The stall a name stands for; false for a name that is not one.
inline bool stallFromName(std::string_view name, Stall &out)
{
    for (std::size_t k = 0; k < std::size(kStallNames); ++k)
        if (name == kStallNames[k]) {
            out = static_cast<Stall>(k);
            return true;
        }
    return false;
}
// The sampler's judgement: an interval over this many periods is a stall.
inline constexpr double kStallPeriods = 2.0;

struct Sample {
    std::uint64_t seq = 0;
    double t = 0;        // seconds since the session started (end of the interval)
    double interval = 0; // seconds covered
    Stall stall = Stall::None;
    std::array<double, kCounterCount> rate{};         // per second over the interval
    std::array<std::uint64_t, kCounterCount> total{}; // since the session started
    double rxMbps = 0, txMbps = 0;
    LatencySummary latency;                    // arrival -> TX completion, load frames
    LatencySummary rtt;                        // probes
    std::array<double, kStageSpans> stageUs{}; // mean per stage span
    double processCpuMsPerS = 0, processCpuPct = 0, machineCpuPct = 0;
    // The machine's CPU used outside this process (other processes, a busy neighbour), over
    // the last second; -1 when not known (no /proc/stat, or within the first tick).
    double neighbourCpuMsPerS = -1;
    // The engine's own threads summed (the sampler included): what the datapath costs,
    // whatever front end runs it. The process figure adds the front end's threads (a GUI
    // thread drawing charts, the recorder, standard input).
    double engineCpuMsPerS = 0;
    std::vector<ThreadStat> threads;
    std::uint32_t poolFree = 0, rxPosted = 0, txPending = 0, handoffDepth = 0;
    // The moderation in force at the end of the interval: the tunables', or net_dim's.
    std::uint32_t rxModerationUs = 0, txCoalesceUs = 0;
    std::vector<DeviceMetric> device; // what the device measures itself (link, traffic client)

    double rateOf(CounterId c) const { return rate[static_cast<std::size_t>(c)]; }
    // Frames lost per second, all causes (kDropCauses).
    double dropsPerS() const
    {
        double d = 0;
        for (CounterId c : kDropCauses)
            d += rateOf(c);
        return d;
    }
    const DeviceMetric *deviceMetric(const std::string &name) const
    {
        for (const auto &m : device)
            if (m.name == name) return &m;
        return nullptr;
    }
    std::uint64_t totalOf(CounterId c) const { return total[static_cast<std::size_t>(c)]; }
    const ThreadStat *thread(const std::string &name) const
    {
        for (const auto &th : threads)
            if (th.name == name) return &th;
        return nullptr;
    }
};

struct Event {
    double t = 0;
    std::string kind;    // start, param, restart, mark, warning, stop
    std::string tunable; // for param
    std::string before, after;
    std::string source; // profile, user, script, cli
    std::string message;
};

// Samples and events a subscriber's queue holds unless it says otherwise: a minute at 10 Hz.
inline constexpr std::size_t kSubscriberQueue = 600;

// Receives a run's samples and events. The engine never calls a subscriber from the threads
// that measure: Engine::subscribe puts it behind a bounded queue (QueuedSubscriber) with a
// drain thread of its own, and every call below comes from that thread, one at a time, in
// the order the engine published them. A subscriber may take as long as it likes (write a
// pipe, a file, a database); while it does, its queue fills, and once full, what the engine
// publishes is dropped for this subscriber alone and counted (onDropped, and a warning event
// in the run). It must not call the engine's control methods (start, stop, apply) from these
// calls. docs/architecture.md gives the whole threading contract.
class Subscriber {
  public:
    virtual ~Subscriber() = default;
    virtual void onSample(const std::shared_ptr<const Sample> &s) = 0;
    virtual void onEvent(const Event &e) = 0;
    // Before the next call after a gap: this many samples and events were dropped because the
    // queue was full.
    virtual void onDropped(std::uint64_t /*samples*/, std::uint64_t /*events*/) {}
    // The name warnings and the drain thread use ("stdout", "recorder").
    virtual std::string queueName() const { return "subscriber"; }
    // Samples and events its queue holds before it drops.
    virtual std::size_t queueCapacity() const { return kSubscriberQueue; }
};

} // namespace ringlab
