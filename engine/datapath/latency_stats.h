// SPDX-License-Identifier: GPL-2.0-or-later
// Per-packet latency, recorded by the one thread that sees a packet complete (TX clean):
// the end-to-end histogram, the probe round trips, and per-stage sums for the Zephyr-style
// breakdown arrival -> harvest -> hand-off -> processed -> TX posted -> TX completed.
#pragma once

#include <array>
#include <atomic>

#include "engine/datapath/histogram.h"
#include "engine/datapath/packet.h"

namespace ringlab {

inline constexpr std::size_t kStageSpans = kStageCount - 1;

class LatencyStats {
  public:
    void record(const Buffer &b)
    {
        const Buffer *one = &b;
        record(&one, 1);
    }
    // A burst: the per-stage sums are added once per burst, not once per packet. One load
    // frame in `every` is measured (latency.sample_every), counted across bursts; every
    // probe is.
    void record(const Buffer *const *bufs, std::uint32_t n, std::uint32_t every = 1)
    {
        setSampleEvery(every);
        std::array<std::uint64_t, kStageSpans> sums{};
        for (std::uint32_t k = 0; k < n; ++k) {
            const Buffer &b = *bufs[k];
            const std::int64_t total = b.at(Stage::TxDone) - b.at(Stage::Arrival);
            if (b.probe) {
                rtt_.record(static_cast<std::uint64_t>(total > 0 ? total : 0));
                continue;
            }
            if (skip_) {
                --skip_;
                continue;
            }
            skip_ = every - 1;
            total_.record(static_cast<std::uint64_t>(total > 0 ? total : 0));
            for (std::size_t s = 0; s < kStageSpans; ++s) {
                const std::int64_t d = b.ts[s + 1] - b.ts[s];
                sums[s] += static_cast<std::uint64_t>(d > 0 ? d : 0);
            }
        }
        for (std::size_t s = 0; s < kStageSpans; ++s)
            stageNs_[s].store(stageNs_[s].load(std::memory_order_relaxed) + sums[s],
                              std::memory_order_relaxed);
    }

    // The sampling in force (the recording thread, or before it starts): from the next frame.
    void setSampleEvery(std::uint32_t every)
    {
        if (every < 1) every = 1;
        if (every == every_.load(std::memory_order_relaxed)) return;
        every_.store(every, std::memory_order_relaxed);
        skip_ = 0;
    }

    struct Snapshot {
        Histogram::Snapshot total, rtt;
        std::array<std::uint64_t, kStageSpans> stageNs{};
        std::uint32_t sampleEvery = 1; // the load frames' sampling when it was taken
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
    std::uint32_t skip_ = 0;              // load frames to pass over before the next sample
};

} // namespace ringlab
