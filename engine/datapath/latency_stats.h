// SPDX-License-Identifier: GPL-2.0-or-later
// Per-packet latency, recorded by the one thread that sees a packet complete (the TX clean;
// for the direct pass's frames, the poll thread, in a LatencyStats of its own): the
// end-to-end histogram, the probe round trips, and per-stage sums for the Zephyr-style
// breakdown arrival -> harvest -> hand-off -> processed -> TX posted -> TX completed.
#pragma once

#include <array>
#include <atomic>

#include "engine/datapath/clock.h"
#include "engine/datapath/histogram.h"
#include "engine/datapath/packet.h"

namespace ringlab {

inline constexpr std::size_t kStageSpans = kStageCount - 1;

// Which frames are measured (latency.sample_every), decided when a frame is harvested, as
// DPDK's latencystats marks at RX: every probe, and one load frame in N, counted across
// bursts. The stages after it skip what an unmeasured frame would cost (clock reads,
// stamps); the TX clean records the marked ones.
class SampleMarker {
  public:
    // The rate in force, from the next frame; a change starts the count again.
    void setEvery(std::uint32_t every)
    {
        if (every < 1) every = 1;
        if (every == every_) return;
        every_ = every;
        skip_ = 0;
    }
    // Marks `b` (Buffer::sampled); true when it is measured.
    bool mark(Buffer &b)
    {
        bool measured = b.probe;
        if (!measured) {
            if (skip_) {
                --skip_;
            } else {
                skip_ = every_ - 1;
                measured = true;
            }
        }
        b.sampled = measured;
        return measured;
    }
    // A burst of `n` load frames not marked one by one (the direct pass touches no frame's
    // Buffer): returns the index of its first measured frame (`n`: none), the
    // next ones following every every() frames, and moves the count past the burst.
    std::uint32_t measuredFrom(std::uint32_t n)
    {
        if (skip_ >= n) {
            skip_ -= n;
            return n;
        }
        const std::uint32_t first = skip_;
        skip_ = every_ - 1 - (n - first - 1) % every_;
        return first;
    }
    std::uint32_t every() const { return every_; }

  private:
    std::uint32_t every_ = 1;
    std::uint32_t skip_ = 0; // load frames to pass over before the next measured one
};

class LatencyStats {
  public:
    // A burst: the per-stage sums are added once per burst, not once per packet. The frames
    // marked measured (SampleMarker: every probe, one load frame in `every`) are recorded;
    // `every` is the rate the snapshot reports. `doneNs`: the burst's completion when it
    // completes now (a DPDK TX buffer handed to the PMD), instead of each frame's TxDone
    // stamp: no pass over the burst to write stamps read only here. Returns the burst's
    // bytes, summed in the same pass (the TX clean's byte count): on 4 KB pages a pass over
    // a burst's buffers is a miss per buffer.
    std::uint64_t record(const Buffer *const *bufs, std::uint32_t n, std::uint32_t every = 1,
                         std::int64_t doneNs = kNoReading)
    {
        setSampleEvery(every);
        std::array<std::uint64_t, kStageSpans> sums{};
        std::uint64_t bytes = 0;
        for (std::uint32_t k = 0; k < n; ++k) {
            const Buffer &b = *bufs[k];
            bytes += b.len;
            if (!b.sampled) continue; // probes always are
            const std::int64_t done = doneNs == kNoReading ? b.at(Stage::TxDone) : doneNs;
            const std::int64_t total = done - b.at(Stage::Arrival);
            if (b.probe) {
                rtt_.record(static_cast<std::uint64_t>(total > 0 ? total : 0));
                continue;
            }
            total_.record(static_cast<std::uint64_t>(total > 0 ? total : 0));
            for (std::size_t s = 0; s < kStageSpans; ++s) {
                const std::int64_t d = (s + 1 == kStageSpans ? done : b.ts[s + 1]) - b.ts[s];
                sums[s] += static_cast<std::uint64_t>(d > 0 ? d : 0);
            }
        }
        for (std::size_t s = 0; s < kStageSpans; ++s)
            stageNs_[s].store(stageNs_[s].load(std::memory_order_relaxed) + sums[s],
                              std::memory_order_relaxed);
        return bytes;
    }

    // Measured load frames that crossed no stage (the direct pass,
    // engine/datapath/direct_pass.h), `ns` each one's time from arrival to completion: all of
    // it in the last span (TX posted -> completed), the spans before it empty. No Buffer read.
    void recordPassed(const std::uint64_t *ns, std::size_t n, std::uint32_t every)
    {
        setSampleEvery(every);
        std::uint64_t sum = 0;
        for (std::size_t k = 0; k < n; ++k) {
            total_.record(ns[k]);
            sum += ns[k];
        }
        auto &last = stageNs_[kStageSpans - 1];
        last.store(last.load(std::memory_order_relaxed) + sum, std::memory_order_relaxed);
    }

    // The sampling the snapshots report (the recording thread, or before it starts).
    void setSampleEvery(std::uint32_t every)
    {
        every_.store(every < 1 ? 1 : every, std::memory_order_relaxed);
    }

    struct Snapshot {
        Histogram::Snapshot total, rtt;
        std::array<std::uint64_t, kStageSpans> stageNs{};
        // The load frames' sampling: the recorder's last (a datapath's, Datapath::latency(): the
        // setting in force when it was read).
        std::uint32_t sampleEvery = 1;
        void add(const Snapshot &o)
        {
            total.add(o.total);
            rtt.add(o.rtt);
            sampleEvery = o.sampleEvery; // the one added last: the datapath running now
            for (std::size_t s = 0; s < kStageSpans; ++s)
                stageNs[s] += o.stageNs[s];
        }
    };
    Snapshot snapshot() const
    {
        Snapshot s{total_.snapshot(), rtt_.snapshot(), {}, every_.load(std::memory_order_relaxed)};
        for (std::size_t k = 0; k < kStageSpans; ++k)
            s.stageNs[k] = stageNs_[k].load(std::memory_order_relaxed);
        return s;
    }

  private:
    Histogram total_;
    Histogram rtt_;
    std::array<std::atomic<std::uint64_t>, kStageSpans> stageNs_{};
    std::atomic<std::uint32_t> every_{1}; // written by the recording thread only
};

} // namespace ringlab
