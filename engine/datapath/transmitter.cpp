// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/transmitter.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "engine/datapath/calibrated_spin.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/tx_buffer_policy.h"
#include "engine/datapath/waiter.h"

namespace ringlab {

Transmitter::Transmitter(const LiveParams &live, Device &dev, BufferSource &pool,
                         ThreadRegistry &reg, bool concurrent, bool pollTransmits,
                         const Clock &clock, CleanContext clean)
    : live_(live), clock_(clock), dev_(dev), pool_(pool), concurrent_(concurrent),
      flushInline_(dev.txCompletesOnFlush()), drainsInPoll_(flushInline_ && pollTransmits)
{
    coalesceUs_.store(static_cast<std::uint32_t>(coalesceUsecs()), std::memory_order_relaxed);
    // A datapath says its sampling from the start, not from its first clean.
    latency_.setSampleEvery(
        static_cast<std::uint32_t>(live_.integer(TunableId::LatencySampleEvery)));
    kickFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (kickFd_ < 0) throw std::system_error(errno, std::generic_category(), "TX clean kick");
    if (clean == CleanContext::Thread)
        clean_ = EngineThread(reg, "txclean", [this](std::stop_token st, ThreadEntry &self) {
            cleanThread(st, self);
        });
}

Transmitter::~Transmitter()
{
    stop();
    close(kickFd_);
}

void Transmitter::stop()
{
    clean_.requestStop();
    kick();
    clean_.stop();
}

void Transmitter::kick()
{
    const std::uint64_t one = 1;
    [[maybe_unused]] auto r = write(kickFd_, &one, sizeof one);
}

void Transmitter::armTimer(Counters &c, std::int64_t &now, std::uint32_t frames)
{
    // hrtimer_start(): on an armed timer it pushes the expiry out.
    const std::int64_t us = coalesceUsecs();
    coalesceUs_.store(static_cast<std::uint32_t>(us), std::memory_order_relaxed);
    timer_.start(now + us * 1000);
    // The target's cost of each arm on top of ours.
    const std::int64_t cost =
        live_.integer(TunableId::CostTimerArmNs) * static_cast<std::int64_t>(frames);
    if (cost > 0) {
        CalibratedSpin::spinNs(cost);
        now = clock_.now(); // the next arm comes after this one's cost
    }
    c.add(CounterId::TimerArms, frames);
}

void Transmitter::cancelTimer(Counters &c)
{
    timer_.cancel();
    c.add(CounterId::TimerCancels);
}

bool Transmitter::napiSchedule()
{
    unsigned v = napi_.load(std::memory_order_relaxed);
    unsigned next = 0;
    do {
        next = v | kSched | ((v & kSched) ? kMissed : 0u);
    } while (!napi_.compare_exchange_weak(v, next, std::memory_order_seq_cst));
    return (v & kSched) == 0;
}

bool Transmitter::napiComplete()
{
    unsigned v = napi_.load(std::memory_order_relaxed);
    unsigned next = 0;
    do {
        next = (v & kMissed) ? kSched : 0u;
    } while (!napi_.compare_exchange_weak(v, next, std::memory_order_seq_cst));
    return (v & kMissed) == 0;
}

bool Transmitter::napiScheduled()
{
    // A read-modify-write, so that it is ordered with napiComplete()'s (both seq_cst RMWs on
    // one atomic): either we see the poll still scheduled, or its pending check sees our
    // frames. Unlike a pair of fences, ThreadSanitizer can check this.
    return (napi_.fetch_or(0, std::memory_order_seq_cst) & kSched) != 0;
}

void Transmitter::timerArm(Counters &c, std::int64_t &now, std::uint32_t frames)
{
    if (live_.choice<TimerPolicy>(TunableId::TxTimerPolicy) == TimerPolicy::Rearm) {
        armTimer(c, now, frames); // before the fix: always
        return;
    }
    // The fix: arm only if the TX NAPI is not scheduled; otherwise try to cancel, the poll
    // arms it again if frames are still pending when it completes.
    if (!napiScheduled()) {
        armTimer(c, now, frames);
    } else if (timer_.armed()) {
        cancelTimer(c); // the first frame; the others find the timer idle
        // The poll may have completed meanwhile, after its pending check saw our frames:
        // then this frame and the ones after it arm.
        if (!napiScheduled()) armTimer(c, now, frames);
    }
}

void Transmitter::xmit(Buffer *const *bufs, std::uint32_t n, Counters &c, std::int64_t readyNs)
{
    if (n == 0) return;
    c.add(CounterId::Processed, n);
    std::unique_lock lock(lock_, std::defer_lock);
    if (concurrent_) lock.lock();

    // Posted when ready, unless other contexts share the ring: then once it is ours. A
    // batch with no measured frame came without a reading (kNoReading): one is
    // taken only where something needs it, a device that times its ring from the post or a
    // timer arm; a DPDK buffer drained by the poll loop needs none. The mode is read once:
    // what decides the reading decides the arm below.
    const bool inPoll = drainInPoll();
    std::int64_t now = concurrent_ ? clock_.now() : readyNs;
    if (now == kNoReading && !inPoll) now = clock_.now();
    const bool stamped = now != kNoReading;
    std::uint64_t reordered = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
        if (stamped) bufs[k]->at(Stage::TxPosted) = now;
        if (anySeq_ && bufs[k]->seq < lastSeq_)
            ++reordered;
        else
            lastSeq_ = bufs[k]->seq;
        anySeq_ = true;
    }
    if (reordered) c.add(CounterId::Reordered, reordered);
    // When the timer arms below happen: after an inline clean, later than the frames were
    // ready.
    std::int64_t armNs = now;
    TxBufferPolicy policy = TxBufferPolicy::of(live_);
    policy.coalesceFrames = coalesceFrames();
    if (policy.dueByRoom(dev_.txFree()) && reclaim(c) > 0) {
        c.add(CounterId::TxInlineCleans);
        armNs = clock_.now();
    }
    const std::uint32_t sent = dev_.txPost(bufs, n, now);
    if (sent < n) {
        c.add(CounterId::TxFull, n - sent);
        pool_.release(bufs + sent, n - sent);
    }

    if (flushInline_) {
        // A DPDK TX buffer: the timer is l2fwd's drain timer, once per burst (or the busy
        // poll loop's check, pollDrain()), and every tx.coalesce_frames frames are flushed
        // here.
        if (sent && inPoll)
            pollDrains_ = true; // pollDrain() hands them to the timer if the mode changes
        else if (sent)
            timerArm(c, armNs);
        if (policy.dueByCount(dev_.txPending()) && reclaim(c) > 0) c.add(CounterId::TxInlineCleans);
        return;
    }
    // stmmac_xmit(), once per frame: the tx.coalesce_frames-th frame is marked to interrupt
    // on completion (set_ic), then stmmac_tx_timer_arm(). The marked frame's completion
    // interrupt schedules the TX NAPI; it is taken as raised when the frame is posted (its
    // wire time, under a microsecond for small frames, is not modelled).
    // Taken a run of frames at a time: up to and including the next marked frame.
    const std::uint32_t coalesceFrames = policy.coalesceFrames;
    for (std::uint32_t k = 0; k < sent;) {
        const std::uint32_t toIc =
            coalesceFrames > framesSinceIc_ ? coalesceFrames - framesSinceIc_ : 1;
        const std::uint32_t run = std::min(sent - k, toIc);
        timerArm(c, armNs, run);
        k += run;
        framesSinceIc_ += run;
        if (framesSinceIc_ < coalesceFrames) continue;
        framesSinceIc_ = 0;
        if (napiSchedule()) {
            c.add(CounterId::TxCleanKicks);
            kick();
        }
    }
}

bool Transmitter::drainInPoll() const
{
    if (!drainsInPoll_) return false;
    const auto mode = live_.choice<PollMode>(TunableId::PollMode);
    return mode == PollMode::Busy || mode == PollMode::PmdPause;
}

void Transmitter::pollDrain(std::int64_t now, Counters &c)
{
    if (!drainsInPoll_) return;
    if (!drainInPoll()) {
        // Out of busy polling: what waits on the loop's check goes to the timer.
        if (pollDrains_) {
            pollDrains_ = false;
            drain_.reset();
            if (dev_.txPending() > 0) timerArm(c, now);
        }
        return;
    }
    if (!pollDrains_) takeDrain(); // into busy polling
    const bool pending = dev_.txPending() > 0;
    const std::int64_t us = pending ? coalesceUsecs() : 0;
    if (pending) coalesceUs_.store(static_cast<std::uint32_t>(us), std::memory_order_relaxed);
    if (drain_.due(pending, now, us * 1000, c)) reclaim(c, true);
}

void Transmitter::takeDrain()
{
    // The loop drains from now on. A timer armed before is cancelled (it fires once into
    // nothing) and the clean does not arm it again (napiPoll()).
    pollDrains_ = true;
    timer_.cancel();
}

bool Transmitter::handOver()
{
    if (dev_.txPending() != 0 || reclaiming_.test(std::memory_order_acquire)) return false;
    takeDrain();
    return true;
}

std::int64_t Transmitter::coalesceUsecs() const
{
    return live_.flag(TunableId::TxCoalesceAdaptive) ? dimUsec_.load(std::memory_order_relaxed)
                                                     : live_.integer(TunableId::TxCoalesceUsecs);
}

std::uint32_t Transmitter::coalesceFrames() const
{
    return live_.flag(TunableId::TxCoalesceAdaptive)
               ? dimPkts_.load(std::memory_order_relaxed)
               : static_cast<std::uint32_t>(live_.integer(TunableId::TxCoalesceFrames));
}

std::uint32_t Transmitter::reclaim(Counters &c, bool clean)
{
    if (reclaiming_.test_and_set(std::memory_order_acquire)) return 0;
    std::uint32_t total = 0;
    std::uint64_t allSent = 0, allBytes = 0; // what the ports took
    constexpr std::uint32_t kMaxBurst = 256;
    const std::uint32_t burst = std::clamp<std::uint32_t>(dev_.chunks().tx, 1, kMaxBurst);
    Buffer *done[kMaxBurst];
    std::int64_t now = clock_.now();
    const auto every = static_cast<std::uint32_t>(live_.integer(TunableId::LatencySampleEvery));
    std::uint32_t k = 0;
    do {
        k = dev_.txReclaim(done, burst, now);
        total += k;
        const std::uint64_t bytes =
            latency_.record(done, k, every, flushInline_ ? now : kNoReading);
        if (k) {
            Device::TxRefused refused;
            if (!dev_.txRetire(done, k, refused)) pool_.release(done, k);
            // Counted as sent: what the port took. A refused frame is a drop (tx_full).
            if (refused.frames) c.add(CounterId::TxFull, refused.frames);
            c.add(CounterId::TxPackets, k - refused.frames);
            c.add(CounterId::TxBytes, bytes - refused.bytes);
            allSent += k - refused.frames;
            allBytes += bytes - refused.bytes;
        }
        if (k < burst) break;
        // More may have completed meanwhile: what the next burst takes is done from now.
        // Nothing left on the ring (a flushed DPDK buffer): no reading, no empty call.
        if (dev_.txPending() == 0) break;
        now = clock_.now();
    } while (true);
    if (clean) {
        // net_dim over the cleans, whichever context cleans: each is an event, as a TX
        // completion interrupt is. Under reclaiming_, so one context at a time.
        dimPackets_ += allSent;
        dimBytes_ += allBytes;
        if (live_.flag(TunableId::TxCoalesceAdaptive) &&
            dim_.sample(clock_.now(), ++dimCleans_, dimPackets_, dimBytes_)) {
            dimUsec_.store(dim_.profile().usec, std::memory_order_relaxed);
            dimPkts_.store(dim_.profile().pkts, std::memory_order_relaxed);
            c.add(CounterId::DimSteps);
        }
    }
    reclaiming_.clear(std::memory_order_release);
    if (clean)
        CalibratedSpin::spinNs(live_.integer(TunableId::CostTxCleanNs) *
                               static_cast<std::int64_t>(total));
    return total;
}

bool Transmitter::napiPoll(Counters &c)
{
    // stmmac_napi_poll_tx(): stmmac_tx_clean(), napi_complete_done(), then the timer for
    // frames still pending.
    c.add(CounterId::TxCleans);
    reclaim(c, true);
    // A busy poll loop that drains the buffer itself needs no timer for what is left.
    const bool pending = dev_.txPending() > 0 && !drainInPoll();
    std::int64_t now = pending ? clock_.now() : 0; // the timer runs from the clean's end
    const bool rearm = live_.choice<TimerPolicy>(TunableId::TxTimerPolicy) == TimerPolicy::Rearm;
    if (pending && rearm) armTimer(c, now); // before the fix: inside the clean, unconditionally
    const bool done = napiComplete();
    if (pending && !rearm) timerArm(c, now); // the fix: after completion, under the policy
    return done;
}

void Transmitter::timerFired(Counters &c)
{
    if (!timer_.expire(clock_.now())) return; // cancelled, or pushed out: not due yet
    c.add(CounterId::TimerFires);
    napiSchedule();
}

void Transmitter::cleanOnce(Counters &c)
{
    timerFired(c);
    if (!napiScheduled()) return;
    while (!napiPoll(c)) {
    }
}

void Transmitter::cleanThread(std::stop_token st, ThreadEntry &self)
{
    Counters &c = self.counters;
    setTimerSlackNs(1);
    pollfd fds[2] = {{timer_.fd(), POLLIN, 0}, {kickFd_, POLLIN, 0}};
    while (!st.stop_requested()) {
        if (::poll(fds, 2, -1) < 0) continue;
        if (st.stop_requested()) break;
        std::uint64_t v = 0;
        if (fds[0].revents & POLLIN && read(timer_.fd(), &v, sizeof v) == sizeof v) timerFired(c);
        if (fds[1].revents & POLLIN) [[maybe_unused]]
            auto r = read(kickFd_, &v, sizeof v);
        if (!napiScheduled()) continue;
        while (!napiPoll(c) && !st.stop_requested()) {
        }
    }
}

} // namespace ringlab
