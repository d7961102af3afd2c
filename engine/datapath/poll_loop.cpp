// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/poll_loop.h"

#include <algorithm>
#include <vector>

#include "engine/datapath/clock.h"

namespace ringlab {

std::int64_t PollLoop::sleepDeadline(PollMode mode, std::int64_t nowNs, std::int64_t minUs,
                                     std::int64_t maxUs, std::int64_t tickHz, std::int64_t &slackNs)
{
    if (mode == PollMode::Tick) {
        // schedule_timeout(usecs_to_jiffies(min)): whole jiffies, expiring on a tick boundary.
        const std::int64_t tick = 1'000'000'000 / tickHz;
        const std::int64_t jiffies = (minUs * 1000 + tick - 1) / tick;
        slackNs = 1;
        return (nowNs / tick + (jiffies < 1 ? 1 : jiffies)) * tick;
    }
    // usleep_range(min, max): sleep min, let the timer fire anywhere up to max.
    slackNs = (maxUs - minUs) * 1000;
    return nowNs + minUs * 1000;
}

void PollLoop::start()
{
    thread_ = EngineThread(reg_, "poll",
                           [this](std::stop_token st, ThreadEntry &self) { run(st, self); });
}

void PollLoop::stop()
{
    thread_.requestStop();
    nudge();
    thread_.stop();
}

void PollLoop::begin(ThreadEntry &self)
{
    self.measuresGaps.store(true, std::memory_order_relaxed);
    state_ = RoundState{};
    state_.lastPoll = clock_.now();
    state_.chunk = std::clamp<std::uint32_t>(dev_.chunks().rx, 1, 4096);
    state_.bufs.assign(state_.chunk, nullptr);
}

// One round, inlined into the poll thread's loop: a call added per pass shows in the
// per-packet cost (bench/engine_throughput).
[[gnu::always_inline]] inline std::uint32_t PollLoop::round(ThreadEntry &self, std::uint32_t budget,
                                                            std::int64_t now)
{
    Counters &c = self.counters;
    RoundState &s = state_;
    marker_.setEvery(static_cast<std::uint32_t>(live_.integer(TunableId::LatencySampleEvery)));
    // One relaxed load per poll; a store only when this gap is the interval's longest.
    if (const std::int64_t gap = now - s.lastPoll;
        gap > self.longestGapNs.load(std::memory_order_relaxed))
        self.longestGapNs.store(gap, std::memory_order_relaxed);
    s.lastPoll = now;
    self.lastPollNs.store(now, std::memory_order_relaxed);
    // Up to the budget, a chunk at a time (Device::chunks): each chunk is harvested,
    // processed and posted while its buffers are still in the first-level cache and TLB.
    // The refill follows the whole round, as stmmac_rx() refills after its loop.
    std::uint32_t n = 0;
    std::uint64_t bytes = 0;
    if (direct_) {
        // Into the pass once the transmitter hands the TX queues over (its buffer empty, no
        // reclaim sending: its drain comes within tx.coalesce_usecs). Out of it at once, what
        // the pass's TX buffer holds flushed.
        const bool want = direct_->forwards(live_) && stagesPassFramesThrough(live_);
        if (want && !s.direct && tx_.handOver()) {
            s.direct = true;
        } else if (!want && s.direct) {
            DirectRound r{c, marker_, passLatency_, now, budget};
            direct_->flush(r, true);
            s.direct = false;
        }
    }
    if (s.direct) {
        DirectRound r{c, marker_, passLatency_, now, budget};
        n = direct_->round(r);
        bytes = r.bytes;
    }
    Buffer **bufs = s.bufs.data();
    while (!s.direct && n < budget) {
        const std::uint32_t want = budget - n < s.chunk ? budget - n : s.chunk;
        const std::uint32_t got = dev_.rxHarvest(bufs, want, now, c);
        for (std::uint32_t k = 0; k < got; ++k) {
            bufs[k]->at(Stage::Harvest) = now;
            bytes += bufs[k]->len;
            marker_.mark(*bufs[k]);
        }
        if (got) handoff_.deliver(bufs, got, c);
        n += got;
        if (got < want) break;
    }
    c.add(CounterId::Polls);
    refill_.afterHarvest(now, c);
    if (!s.direct) tx_.pollDrain(now, c); // the pass drains its own buffers
    if (n == 0) {
        c.add(CounterId::EmptyPolls);
    } else {
        c.add(CounterId::RxPackets, n);
        c.add(CounterId::RxBytes, bytes);
        s.packets += n;
        s.bytesIn += bytes;
    }
    ++s.passes;
    return n;
}

std::uint32_t PollLoop::pollOnce(ThreadEntry &self)
{
    return round(self, static_cast<std::uint32_t>(live_.integer(TunableId::PollBudget)),
                 clock_.now());
}

// The poll thread: rounds, and between them the wait poll.mode says.
void PollLoop::run(std::stop_token st, ThreadEntry &self)
{
    Counters &c = self.counters;
    begin(self);
    RoundState &s = state_;
    while (!st.stop_requested()) {
        const auto budget = static_cast<std::uint32_t>(live_.integer(TunableId::PollBudget));
        if (round(self, budget, clock_.now()) == budget)
            continue; // a full round: more work is waiting, poll again

        const auto mode = live_.choice<PollMode>(TunableId::PollMode);
        if (mode != PollMode::Interrupt)
            moderationUs_.store(static_cast<std::uint32_t>(live_.integer(TunableId::IrqUsecs)),
                                std::memory_order_relaxed);
        // KNI's kthread: KNI_RX_LOOP_NUM passes per wakeup, found work or not, then sleep.
        if ((mode == PollMode::Sleep || mode == PollMode::Tick) &&
            s.passes < live_.integer(TunableId::PollPasses))
            continue;
        s.passes = 0;
        switch (mode) {
        case PollMode::Busy:
        case PollMode::PmdPause: // DPDK's callback pauses inside rte_eth_rx_burst
            break;
        case PollMode::Sleep:
        case PollMode::Tick: {
            std::int64_t slack = 0;
            const std::int64_t deadline =
                sleepDeadline(mode, clock_.now(), live_.integer(TunableId::PollSleepMinUs),
                              live_.integer(TunableId::PollSleepMaxUs),
                              live_.integer(TunableId::PollTickHz), slack);
            setTimerSlackNs(slack);
            waiter_.waitUntil(deadline);
            break;
        }
        case PollMode::Interrupt: {
            const bool adaptive = live_.flag(TunableId::IrqAdaptive);
            if (adaptive && dim_.sample(clock_.now(), s.irqs, s.packets, s.bytesIn))
                c.add(CounterId::DimSteps);
            const std::int64_t usecs =
                adaptive ? dim_.profile().usec : live_.integer(TunableId::IrqUsecs);
            const std::int64_t frames =
                adaptive ? dim_.profile().pkts : live_.integer(TunableId::IrqFrames);
            moderationUs_.store(static_cast<std::uint32_t>(usecs), std::memory_order_relaxed);
            // Re-enable the interrupt and block until the device raises it.
            setTimerSlackNs(1);
            const IrqWait w = dev_.waitRxInterrupt(-1);
            if (w == IrqWait::Interrupt) {
                c.add(CounterId::Interrupts);
                ++s.irqs;
            }
            if (w != IrqWait::Unsupported) break;
            const std::int64_t irq = dev_.nextInterruptNs(clock_.now(), usecs, frames);
            if (!waiter_.waitUntil(irq)) {
                c.add(CounterId::Interrupts);
                ++s.irqs;
            }
            break;
        }
        }
    }
    if (s.direct) { // nothing stays behind in the pass's buffers
        DirectRound r{c, marker_, passLatency_, clock_.now(), 0};
        direct_->flush(r, false);
    }
}

} // namespace ringlab
