// SPDX-License-Identifier: GPL-2.0-or-later
// RX refill contexts: who puts fresh buffers into the RX ring, and when. The poll loop calls
// afterHarvest() after every harvest; each strategy decides from there (kRefillContexts).
#pragma once

#include <memory>

#include "engine/datapath/buffer_source.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/strategy.h"
#include "engine/datapath/thread_registry.h"
#include "engine/datapath/waiter.h"
#include "engine/datapath/work_queue.h"

namespace ringlab {

class Refiller {
  public:
    Refiller(const LiveParams &live, Device &dev, BufferSource &pool,
             const Clock &clock = monotonicClock())
        : live_(live), dev_(dev), pool_(pool), clock_(clock)
    {
    }
    virtual ~Refiller() = default;
    // Fills the empty ring before the link comes up, as a driver's open() does.
    void prime(Counters &c) { fillRing(c); }
    virtual void start() {}
    virtual void stop() {}
    // Poll context, after each harvest.
    virtual void afterHarvest(std::int64_t nowNs, Counters &c) = 0;

    // A refill context of its own (refill.context thread), stepped by a logic test on a
    // ManualClock instead of start(): whether the poll context has woken it since its last
    // step; the retry's deadline it waits for (-1: none, it waits to be woken); and one
    // wake-up at the clock's time, what its thread does each time it wakes, counted in `c`.
    // The inline refill has no context: never woken, nothing to do.
    virtual bool woken() const { return false; }
    virtual std::int64_t retryDeadlineNs() const { return -1; }
    virtual void wakeOnce(Counters &) {}

    // Fills the ring to the top in steps of refill.batch. Returns false when the pool ran dry
    // (an alloc_fail is counted). Both mhi_net versions call cond_resched() per buffer, which
    // yields only when the time slice is used up: here every context is preemptible, so the
    // scheduler does that and neither context yields on its own.
    bool fillRing(Counters &c);

  protected:
    bool due(std::uint32_t free) const
    {
        return free >= static_cast<std::uint32_t>(live_.integer(TunableId::RefillThreshold));
    }
    const LiveParams &live_;
    Device &dev_;
    BufferSource &pool_;
    const Clock &clock_; // a buffer's post time, a retry's deadline
};

struct RefillDeps {
    const LiveParams &live;
    Device &dev;
    BufferSource &pool;
    ThreadRegistry &reg;
    WorkQueue &wq;
    const Clock &clock = monotonicClock();
};
using MakeRefiller = std::unique_ptr<Refiller> (*)(const RefillDeps &);
std::unique_ptr<Refiller> makeInlineRefill(const RefillDeps &d);
std::unique_ptr<Refiller> makeWorkqueueRefill(const RefillDeps &d);
std::unique_ptr<Refiller> makeThreadRefill(const RefillDeps &d);

// refill.context's values, in RefillContext's order.
inline constexpr Strategy<MakeRefiller> kRefillContexts[] = {
    {"inline", "the poll loop, after each harvest (DPDK PMDs)", &makeInlineRefill},
    {"workqueue",
     "a work item on the shared work queue that loops until the ring is full (mhi_net before "
     "the fix)",
     &makeWorkqueueRefill},
    {"thread",
     "a dedicated refill thread asleep until woken at the threshold (mhi_net after the fix)",
     &makeThreadRefill},
};

std::unique_ptr<Refiller> makeRefiller(RefillContext ctx, const RefillDeps &deps);

} // namespace ringlab
