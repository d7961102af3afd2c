// SPDX-License-Identifier: GPL-2.0-or-later
// The TX side, modelled on stmmac: transmit onto the device's TX ring, the coalesce timer (an
// hrtimer over a timerfd, engine/datapath/coalesce_timer.h) armed per frame under
// tx.timer_policy, and the TX NAPI context (the txclean thread) that reclaims completed frames.
//
// NAPI_STATE_SCHED is modelled as stmmac has it: set when an interrupt-marked frame (every
// tx.coalesce_frames-th) is posted (its completion interrupt) or when the timer fires, held
// while the TX poll runs, cleared when it completes; a schedule while it is set marks it
// missed and the poll runs again (NAPI_STATE_MISSED).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "engine/datapath/buffer_source.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/coalesce_timer.h"
#include "engine/datapath/device.h"
#include "engine/datapath/dim.h"
#include "engine/datapath/drain_check.h"
#include "engine/datapath/latency_stats.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/thread_registry.h"

namespace ringlab {

class Transmitter {
  public:
    // Who runs the TX clean context (stmmac's TX NAPI and its coalesce timer): a thread of
    // its own, or the caller, one step at a time (cleanOnce()), for a logic test on a
    // ManualClock.
    enum class CleanContext { Thread, Caller };
    // `concurrent`: several threads may transmit at once (per-packet work with several
    // workers); a lock then serialises the TX ring, as the kernel's TX lock does. It is a
    // mutex, not a spinlock: here the holder can be preempted, in the kernel it cannot.
    // `pollTransmits`: the poll thread transmits (direct hand-off), so a busy poll loop can
    // drain a TX buffer itself (pollDrain()).
    Transmitter(const LiveParams &live, Device &dev, BufferSource &pool, ThreadRegistry &reg,
                bool concurrent, bool pollTransmits = false)
        : Transmitter(live, dev, pool, reg, concurrent, pollTransmits, monotonicClock(),
                      CleanContext::Thread)
    {
    }
    // Every time it reads (arms, cleans, fires, the latency of what it reclaims) from `clock`.
    Transmitter(const LiveParams &live, Device &dev, BufferSource &pool, ThreadRegistry &reg,
                bool concurrent, bool pollTransmits, const Clock &clock, CleanContext clean);
    ~Transmitter();
    Transmitter(const Transmitter &) = delete;
    Transmitter &operator=(const Transmitter &) = delete;

    // Transmit context, `readyNs` when the frames were ready (Processor::process()'s return).
    // Frames that do not fit are dropped (tx_full) and freed.
    void xmit(Buffer *const *bufs, std::uint32_t n, Counters &c, std::int64_t readyNs);
    void stop();
    // The poll thread, once per round, `nowNs` its reading. On a device whose TX buffer is
    // flushed by the transmit path (DPDK), transmitted by the poll thread, and while it polls
    // without sleeping (poll.mode busy, pmd_pause), the coalesce timer is l2fwd's drain check
    // in the lcore's loop: due tx.coalesce_usecs after frames began to wait, then the buffer
    // is flushed here. No timer thread wakes per period, no arm per burst. Leaving busy
    // polling with frames waiting hands them to the timer.
    void pollDrain(std::int64_t nowNs, Counters &c);
    // Poll thread: it takes the device's TX queues for a path of its own (the direct pass,
    // engine/datapath/direct_pass.h), when nothing waits in the TX ring and no context is
    // reclaiming (sending what it took off it): one context at a time on the ports' TX
    // queues. Then, as entering busy polling does for pollDrain(), the coalesce timer is
    // cancelled (a timer that fired before finds nothing) and nothing arms it until the
    // staged path transmits again. False: not now, try at the next round.
    bool handOver();
    // After stop(): reclaims what has completed, counting in `c` (the caller's block).
    void flush(Counters &c) { reclaim(c); }
    const LatencyStats &latency() const { return latency_; }
    // CleanContext::Caller: what the clean thread does when it wakes, once, at the clock's
    // time: the coalesce timer fires if its expiry has passed (the TX NAPI scheduled), then
    // the TX NAPI polls while scheduled. Counts in `c`.
    void cleanOnce(Counters &c);
    // The coalesce timer's expiry (0: idle), and whether the TX NAPI is scheduled.
    std::int64_t timerExpiryNs() const { return timer_.expiryNs(); }
    bool napiIsScheduled() { return napiScheduled(); }
    // The coalesce timer's period in force: tx.coalesce_usecs, or under tx.coalesce_adaptive
    // net_dim's as last armed or drained. Any thread.
    std::uint32_t coalesceUs() const
    {
        return live_.flag(TunableId::TxCoalesceAdaptive)
                   ? coalesceUs_.load(std::memory_order_relaxed)
                   : static_cast<std::uint32_t>(live_.integer(TunableId::TxCoalesceUsecs));
    }

  private:
    static constexpr unsigned kSched = 1, kMissed = 2;

    void cleanThread(std::stop_token st, ThreadEntry &self);
    // stmmac_tx_timer(), when the timer's descriptor is readable: it schedules the TX NAPI
    // (a miss if it already is) if the expiry has passed.
    void timerFired(Counters &c);
    // One TX NAPI poll: clean, complete, arm for what is still pending. False: it was
    // scheduled again meanwhile (missed) and must run again.
    bool napiPoll(Counters &c);
    // Reclaims completed frames unless another context is doing so; returns how many. One
    // clock read per burst: a device completing on flush has each frame it reclaims done at
    // that instant; the others' frames carry their own completion stamp. `clean`: a TX
    // clean (stmmac_tx_clean(), or a drain), which net_dim counts and whose
    // cost.tx_clean_ns per frame is charged.
    std::uint32_t reclaim(Counters &c, bool clean = false);
    // The coalescing in force: the tunables', or net_dim's under tx.coalesce_adaptive.
    std::int64_t coalesceUsecs() const;
    std::uint32_t coalesceFrames() const;
    // napi_schedule_prep(): true when this call scheduled it (it was idle).
    bool napiSchedule();
    // napi_complete_done(): false when a schedule was missed while polling (stays scheduled).
    bool napiComplete();
    bool napiScheduled();
    // stmmac_tx_timer_arm() under the current tx.timer_policy, for `frames` frames posted at
    // one instant (a burst between two interrupt-marked frames: the TX NAPI state cannot
    // change between them without a clean racing the whole burst, an interleaving the
    // per-frame model allows too). Counts and charges every frame's arm; the timer itself
    // takes the last, as the target's does.
    // `nowNs`: the caller's clock reading (the expiry is `nowNs` + the coalesce timer),
    // moved on when an arm charges cost.timer_arm_ns, for the arms after it.
    void timerArm(Counters &c, std::int64_t &nowNs, std::uint32_t frames = 1);
    void armTimer(Counters &c, std::int64_t &nowNs, std::uint32_t frames = 1);
    void cancelTimer(Counters &c);
    void kick();
    // Poll thread: the poll loop (pollDrain(), handOver()) takes the drain over from the
    // coalesce timer.
    void takeDrain();
    // The poll loop drains the TX buffer now (pollDrain()).
    bool drainInPoll() const;

    const LiveParams &live_;
    const Clock &clock_;
    Device &dev_;
    BufferSource &pool_;
    const bool concurrent_;
    const bool flushInline_;  // tx.coalesce_frames flushes in the transmit context
    const bool drainsInPoll_; // flushInline_ and the poll thread transmits
    DrainCheck drain_;        // poll thread: pollDrain()'s
    bool pollDrains_ = false; // poll thread: the poll loop, not the timer, drains the buffer
    std::mutex lock_;
    std::uint64_t lastSeq_ = 0;
    bool anySeq_ = false;
    std::uint32_t framesSinceIc_ = 0; // tx_count_frames (transmit context)
    CoalesceTimer timer_;
    int kickFd_ = -1;
    // kSched | kMissed. Read with read-modify-writes so ThreadSanitizer sees the ordering.
    std::atomic<unsigned> napi_{0};
    std::atomic_flag reclaiming_ =
        ATOMIC_FLAG_INIT; // one reclaimer at a time: latency has one writer
    LatencyStats latency_;
    // net_dim over the TX cleans (clean thread), and the profile it chose (read anywhere).
    NetDim dim_{kDimTxProfiles};
    std::uint64_t dimCleans_ = 0, dimPackets_ = 0, dimBytes_ = 0;
    std::atomic<std::uint32_t> dimUsec_{kDimTxProfiles[kDimDefaultProfile].usec};
    std::atomic<std::uint32_t> dimPkts_{kDimTxProfiles[kDimDefaultProfile].pkts};
    std::atomic<std::uint32_t> coalesceUs_{0};
    EngineThread clean_;
};

} // namespace ringlab
