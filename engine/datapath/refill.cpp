// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/refill.h"

#include "engine/datapath/calibrated_spin.h"
#include "engine/datapath/clock.h"

namespace ringlab {

static_assert(kRefillContexts[static_cast<int>(RefillContext::Thread)].name == "thread" &&
                  std::size(kRefillContexts) == static_cast<std::size_t>(RefillContext::Thread) + 1,
              "kRefillContexts follows RefillContext");

bool Refiller::fillRing(Counters &c)
{
    Buffer *bufs[1024];
    for (;;) {
        const std::uint32_t free = dev_.rxFree();
        if (free == 0) return true;
        const auto batch = static_cast<std::uint32_t>(live_.integer(TunableId::RefillBatch));
        const std::uint32_t want = free < batch ? free : batch;
        const std::uint32_t got = pool_.alloc(bufs, want);
        if (got) {
            // The target's per-buffer work (mhi_net: an skb allocated and mapped, then queued
            // with a doorbell per buffer), on top of the engine's descriptor fill.
            CalibratedSpin::spinNs((live_.integer(TunableId::CostRefillBufferNs) +
                                    live_.integer(TunableId::CostDoorbellNs)) *
                                   static_cast<std::int64_t>(got));
            const std::uint32_t posted = dev_.rxPost(bufs, got, clock_.now());
            c.add(CounterId::RefillPosted, posted);
        }
        if (got < want) {
            c.add(CounterId::AllocFail);
            return false;
        }
    }
}

namespace {

class InlineRefill final : public Refiller {
  public:
    using Refiller::Refiller;
    void afterHarvest(std::int64_t nowNs, Counters &c) override
    {
        if (nowNs < retryAt_ || !due(dev_.rxFree())) return;
        if (!fillRing(c)) retryAt_ = nowNs + live_.integer(TunableId::RefillRetryMs) * 1'000'000;
    }

  private:
    std::int64_t retryAt_ = 0;
};

class WorkqueueRefill final : public Refiller {
  public:
    explicit WorkqueueRefill(const RefillDeps &d)
        : Refiller(d.live, d.dev, d.pool, d.clock), wq_(d.wq)
    {
        work_.ctx = this;
        work_.fn = [](WorkItem *w) { static_cast<WorkqueueRefill *>(w->ctx)->run(); };
    }
    void afterHarvest(std::int64_t, Counters &c) override
    {
        // queue() is a no-op while the item is pending: at most one refill in flight.
        if (!work_.pending.load(std::memory_order_relaxed) && due(dev_.rxFree()) &&
            wq_.queue(&work_))
            c.add(CounterId::RefillWakeups);
    }

  private:
    void run()
    {
        Counters &c = currentCounters();
        if (!fillRing(c))
            wq_.queueDelayed(&work_, live_.integer(TunableId::RefillRetryMs) * 1'000'000);
    }
    WorkQueue &wq_;
    WorkItem work_;
};

class ThreadRefill final : public Refiller {
  public:
    explicit ThreadRefill(const RefillDeps &d)
        : Refiller(d.live, d.dev, d.pool, d.clock), reg_(d.reg)
    {
    }
    ~ThreadRefill() override { stop(); }
    void start() override
    {
        thread_ = EngineThread(reg_, "refill", [this](std::stop_token st, ThreadEntry &self) {
            Counters &c = self.counters;
            setTimerSlackNs(50'000);
            work(c);
            while (!st.stop_requested()) {
                waiter_.waitUntil(deadline_); // consumes the wake-up
                if (!st.stop_requested()) step(c);
            }
        });
    }
    void stop() override
    {
        thread_.requestStop();
        waiter_.wake();
        thread_.stop();
    }
    void afterHarvest(std::int64_t, Counters &) override
    {
        if (due(dev_.rxFree())) waiter_.wake();
    }
    bool woken() const override { return waiter_.pending(); }
    std::int64_t retryDeadlineNs() const override { return deadline_; }
    void wakeOnce(Counters &c) override
    {
        waiter_.consume(); // as the wait does
        step(c);
    }

  private:
    // Each wake-up, the thread's or a test's.
    void step(Counters &c)
    {
        c.add(CounterId::RefillWakeups);
        work(c);
    }
    // Woken at the threshold (or for a retry): fill the ring to the top. Never on its own
    // initiative below the threshold.
    void work(Counters &c)
    {
        if (deadline_ < 0 && !due(dev_.rxFree())) return;
        deadline_ =
            fillRing(c) ? -1 : clock_.now() + live_.integer(TunableId::RefillRetryMs) * 1'000'000;
    }

    ThreadRegistry &reg_;
    Waiter waiter_;
    // The context's: >= 0 while an allocation failure waits for its retry.
    std::int64_t deadline_ = -1;
    EngineThread thread_;
};

} // namespace

std::unique_ptr<Refiller> makeInlineRefill(const RefillDeps &d)
{
    return std::make_unique<InlineRefill>(d.live, d.dev, d.pool, d.clock);
}

std::unique_ptr<Refiller> makeWorkqueueRefill(const RefillDeps &d)
{
    return std::make_unique<WorkqueueRefill>(d);
}

std::unique_ptr<Refiller> makeThreadRefill(const RefillDeps &d)
{
    return std::make_unique<ThreadRefill>(d);
}

std::unique_ptr<Refiller> makeRefiller(RefillContext ctx, const RefillDeps &deps)
{
    const auto k = static_cast<std::size_t>(ctx);
    return k < std::size(kRefillContexts) ? kRefillContexts[k].make(deps) : nullptr;
}

} // namespace ringlab
