// SPDX-License-Identifier: GPL-2.0-or-later
// The poll thread: harvest, refill, hand off (or the device's direct pass, when the stages
// pass frames through), then wait as poll.mode says. The wait
// strategies are a table indexed by mode, read live at every round.
#pragma once

#include "engine/datapath/strategy.h"

#include <atomic>
#include <vector>

#include "engine/datapath/clock.h"
#include "engine/datapath/device.h"
#include "engine/datapath/dim.h"
#include "engine/datapath/handoff.h"
#include "engine/datapath/latency_stats.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/refill.h"
#include "engine/datapath/thread_registry.h"
#include "engine/datapath/transmitter.h"
#include "engine/datapath/waiter.h"

namespace ringlab {

// poll.mode's values, in PollMode's order; the poll loop runs each itself.
inline constexpr Strategy<> kPollModes[] = {
    {"busy", "never sleeps"},
    {"sleep",
     "usleep_range(min, max) semantics, a sleep of poll.sleep_min_us with timer slack max - min"},
    {"tick", "sleeps rounded up to the next poll.tick_hz tick, like schedule_timeout on jiffies"},
    {"interrupt",
     "blocks until the device raises an interrupt under irq.usecs/irq.frames moderation, then "
     "polls NAPI-style up to poll.budget per round"},
    {"pmd_pause",
     "(DPDK ports) DPDK's own PMD power management, rte_power_ethdev_pmgmt_queue_enable with "
     "PAUSE: the thread polls without sleeping, and after 512 empty polls each further empty "
     "poll pauses the CPU for 1 us"},
};

class PollLoop {
  public:
    // `direct`: the device's direct pass, taken while the stages pass frames through
    // (stagesPassFramesThrough), under a direct hand-off; null: never.
    // `clock`: where each round reads the time (a logic test's ManualClock).
    PollLoop(const LiveParams &live, Device &dev, Refiller &refill, Handoff &handoff,
             Transmitter &tx, ThreadRegistry &reg, DirectPass *direct = nullptr,
             const Clock &clock = monotonicClock())
        : live_(live), dev_(dev), refill_(refill), handoff_(handoff), tx_(tx), reg_(reg),
          direct_(direct), clock_(clock)
    {
    }
    ~PollLoop() { stop(); }
    void start();
    void stop();
    // Ends the current wait early, so a changed tunable takes effect at once.
    void nudge()
    {
        waiter_.wake();
        dev_.wakeRxWait();
    }

    // The end of a usleep_range(min, max) / schedule_timeout style sleep, exposed for tests
    // and benchmarks: returns the absolute deadline and sets the slack to use.
    // The RX moderation in force (irq.usecs, or net_dim's under irq.adaptive). Any thread.
    std::uint32_t moderationUs() const { return moderationUs_.load(std::memory_order_relaxed); }

    // The latency of the frames the direct pass forwarded (its one writer is the poll
    // thread); the staged path's is the transmitter's.
    const LatencyStats &passLatency() const { return passLatency_; }

    static std::int64_t sleepDeadline(PollMode mode, std::int64_t nowNs, std::int64_t minUs,
                                      std::int64_t maxUs, std::int64_t tickHz,
                                      std::int64_t &slackNs);

    // The poll thread's rounds one at a time, for a logic test that drives them at virtual
    // times instead of start(): begin() as the thread does when it starts, then each
    // pollOnce() is one round at the clock's time (harvest up to poll.budget or the direct
    // pass's round, hand off, refill, TX drain), its counts in `self`; returns the frames
    // harvested. No wait: the test moves the clock (start() waits on the monotonic clock, and
    // a refill thread does too: a ManualClock is for these rounds and the inline refill).
    void begin(ThreadEntry &self);
    std::uint32_t pollOnce(ThreadEntry &self);

  private:
    void run(std::stop_token st, ThreadEntry &self);
    inline std::uint32_t round(ThreadEntry &self, std::uint32_t budget, std::int64_t now);

    // What the rounds carry from one to the next (poll thread only).
    struct RoundState {
        std::int64_t lastPoll = 0;
        std::int64_t passes = 0; // since the last sleep
        // net_dim's running totals: interrupts, and what they harvested.
        std::uint64_t irqs = 0, packets = 0, bytesIn = 0;
        bool direct = false; // the device's direct pass takes the rounds
        std::uint32_t chunk = 1;
        std::vector<Buffer *> bufs;
    };

    const LiveParams &live_;
    Device &dev_;
    Refiller &refill_;
    Handoff &handoff_;
    Transmitter &tx_;
    ThreadRegistry &reg_;
    DirectPass *const direct_;
    const Clock &clock_;
    RoundState state_;
    Waiter waiter_;
    NetDim dim_{kDimRxProfiles}; // poll thread only
    SampleMarker marker_;        // poll thread only
    LatencyStats passLatency_;   // written by the poll thread only
    std::atomic<std::uint32_t> moderationUs_{0};
    EngineThread thread_;
};

} // namespace ringlab
