// SPDX-License-Identifier: GPL-2.0-or-later
// The poll loop's and the inline refill's logic at exact virtual times (issue 47 item 5): the
// poll loop, the refill and the simulated NIC read one ManualClock, and the test runs the
// poll thread's rounds itself (PollLoop::pollOnce), so every harvest, refill, miss and retry
// is asserted at the microsecond it happens, with no thread, no sleep and no rate window.
// Constant traffic at 1 Mpps: one arrival every microsecond after the link comes up, the k-th
// at k us. tst_refill and tst_poll_modes measure the same on the real clock.
#include <QtTest>

#include <vector>

#include "drivers/sim/sim_nic.h"
#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/handoff.h"
#include "engine/datapath/poll_loop.h"
#include "engine/datapath/refill.h"
#include "engine/datapath/transmitter.h"
#include "engine/datapath/work_queue.h"

using namespace ringlab;

class TstPollVirtualTime : public QObject {
    Q_OBJECT
  private slots:
    void harvestRefillAndMissAtTheirTimes();
    void aDryPoolIsRetriedAfterRefillRetryMs();
    void theRefillThreadIsWokenAtTheThreshold();
    void theWorkQueueRefillRunsWhenItsItemDoes();
};

namespace {

constexpr std::int64_t kUs = 1000;

// The stages after the hand-off: they return every frame to the pool at once, or keep them
// (an application that holds its buffers) until the test lets them go.
class Sink final : public Handoff {
  public:
    Sink(BufferSource &pool, bool keep) : pool_(pool), keep_(keep) {}
    void deliver(Buffer *const *bufs, std::uint32_t n, Counters &) override
    {
        if (keep_)
            kept_.insert(kept_.end(), bufs, bufs + n);
        else
            pool_.release(bufs, n);
    }
    void releaseKept()
    {
        pool_.release(kept_.data(), static_cast<std::uint32_t>(kept_.size()));
        kept_.clear();
    }

  private:
    BufferSource &pool_;
    const bool keep_;
    std::vector<Buffer *> kept_;
};

// The counters the rounds keep, as one comparable row.
struct RxCounts {
    std::uint64_t offered, rx, missed, posted, allocFail, polls, empty;
    friend bool operator==(const RxCounts &, const RxCounts &) = default;
};
QString text(const RxCounts &r)
{
    return QStringLiteral("offered %1 rx %2 missed %3 posted %4 alloc_fail %5 polls %6 empty %7")
        .arg(r.offered)
        .arg(r.rx)
        .arg(r.missed)
        .arg(r.posted)
        .arg(r.allocFail)
        .arg(r.polls)
        .arg(r.empty);
}

// A poll loop on the simulated NIC at 1 Mpps, 64 descriptors, refilled 16 at a time from
// `poolBuffers` (inline, or by a refill thread the test steps), all on one ManualClock.
struct Rig {
    Rig(std::uint32_t poolBuffers, bool keep, RefillContext context = RefillContext::Inline)
        : pool(poolBuffers), sink(pool, keep)
    {
        const Status st = ps.set({{"load.pattern", "constant"},
                                  {"load.rate_pps", "1000000"},
                                  {"load.frame_bytes", "64"},
                                  {"probe.rate_hz", "0"},
                                  {"rx.ring_size", "64"},
                                  {"refill.context", "inline"},
                                  {"refill.threshold", "16"},
                                  {"refill.batch", "16"},
                                  {"refill.retry_ms", "1"},
                                  {"poll.budget", "64"}});
        if (!st.ok()) qFatal("%s", st.error.c_str());
        live = std::make_unique<LiveParams>(ps);
        nic = std::make_unique<sim::SimNic>(ps, *live);
        nic->linkUp(start);
        tx = std::make_unique<Transmitter>(*live, *nic, pool, reg, false, false, clock,
                                           Transmitter::CleanContext::Caller);
        // A refill thread is never started: the test steps it (Refiller::wakeOnce).
        refill = makeRefiller(context, {*live, *nic, pool, reg, wq, clock});
        loop = std::make_unique<PollLoop>(*live, *nic, *refill, sink, *tx, reg, nullptr, clock);
        loop->begin(self);
        refill->prime(self.counters);
    }
    // One poll round at `atUs` after the link came up; the frames it harvested.
    std::uint32_t pollAt(std::int64_t atUs)
    {
        clock.set(start + atUs * kUs);
        return loop->pollOnce(self);
    }
    RxCounts counts() const
    {
        const Counters &c = self.counters;
        return {c.get(CounterId::Offered),   c.get(CounterId::RxPackets),
                c.get(CounterId::RxMissed),  c.get(CounterId::RefillPosted),
                c.get(CounterId::AllocFail), c.get(CounterId::Polls),
                c.get(CounterId::EmptyPolls)};
    }

    ManualClock clock;
    const std::int64_t start = clock.now();
    ParamSet ps;
    std::unique_ptr<LiveParams> live;
    BufferPool pool;
    Sink sink;
    ThreadRegistry reg;
    WorkQueue wq{reg, 0, "kworker", clock}; // no workers: the test runs its items (runDue)
    std::unique_ptr<sim::SimNic> nic;
    std::unique_ptr<Transmitter> tx;
    std::unique_ptr<Refiller> refill;
    std::unique_ptr<PollLoop> loop;
    ThreadEntry self;
};

#define EXPECT_COUNTS(rig, ...)                                                                    \
    do {                                                                                           \
        const RxCounts want{__VA_ARGS__};                                                          \
        QVERIFY2((rig).counts() == want,                                                           \
                 qPrintable(text((rig).counts()) + QStringLiteral(" != ") + text(want)));          \
    } while (0)

} // namespace

void TstPollVirtualTime::harvestRefillAndMissAtTheirTimes()
{
    Rig r(1024, false);
    // Primed: every descriptor posted before the first arrival.
    QCOMPARE(r.nic->rxPosted(), 64u);
    EXPECT_COUNTS(r, 0, 0, 0, 64, 0, 0, 0);

    // 10 us: the arrivals at 1..10 us. 10 descriptors free, below the threshold: no refill.
    QCOMPARE(r.pollAt(10), 10u);
    EXPECT_COUNTS(r, 10, 10, 0, 64, 0, 1, 0);
    QCOMPARE(r.nic->rxPosted(), 54u);
    QCOMPARE(r.self.longestGapNs.load(), 10 * kUs);

    // 16 us: 6 more, 16 free: the refill fills the ring to the top, after the harvest.
    QCOMPARE(r.pollAt(16), 6u);
    EXPECT_COUNTS(r, 16, 16, 0, 80, 0, 2, 0);
    QCOMPARE(r.nic->rxPosted(), 64u);

    // The same microsecond again: nothing arrived, an empty poll.
    QCOMPARE(r.pollAt(16), 0u);
    EXPECT_COUNTS(r, 16, 16, 0, 80, 0, 3, 1);

    // 100 us away (a long sleep): 100 arrivals at 17..116 us, 64 descriptors. The first 64
    // take them, the other 36 are missed; the round is a full budget, and the ring is
    // refilled whole after it.
    QCOMPARE(r.pollAt(116), 64u);
    EXPECT_COUNTS(r, 116, 80, 36, 144, 0, 4, 1);
    QCOMPARE(r.self.longestGapNs.load(), 100 * kUs);
    QCOMPARE(r.self.lastPollNs.load(), r.start + 116 * kUs);

    // The budget bounds a round: poll.budget 10, 30 arrivals at 117..146 us: 10 a round. The
    // refill is due after the second (20 free) and tops the ring up; after the third, 10 are
    // free, below the threshold.
    QVERIFY(r.ps.set({{"poll.budget", "10"}}).ok());
    r.live->publish(r.ps);
    QCOMPARE(r.pollAt(146), 10u);
    QCOMPARE(r.pollAt(146), 10u);
    QCOMPARE(r.pollAt(146), 10u);
    QCOMPARE(r.pollAt(146), 0u);
    EXPECT_COUNTS(r, 146, 110, 36, 164, 0, 8, 2);
    QCOMPARE(r.nic->rxPosted(), 54u);
}

void TstPollVirtualTime::aDryPoolIsRetriedAfterRefillRetryMs()
{
    // 80 buffers: 64 in the ring and one refill of 16. The stages keep what they take.
    Rig r(80, true);
    QCOMPARE(r.pollAt(16), 16u);
    EXPECT_COUNTS(r, 16, 16, 0, 80, 0, 1, 0);
    QCOMPARE(r.pool.available(), 0u);

    // 32 us: 16 more free, the pool dry: one alloc_fail, and no refill before the retry.
    QCOMPARE(r.pollAt(32), 16u);
    EXPECT_COUNTS(r, 32, 32, 0, 80, 1, 2, 0);
    r.sink.releaseKept(); // the application lets its 32 buffers go
    QCOMPARE(r.pool.available(), 32u);

    // 1 ns before the retry (refill.retry_ms 1): 32 descriptors free and buffers in the pool,
    // but the refill waits. The ring ran dry at 80 us: 48 posted took 33..80, the rest missed.
    r.clock.set(r.start + 32 * kUs + 1'000'000 - 1);
    QCOMPARE(r.loop->pollOnce(r.self), 48u);
    EXPECT_COUNTS(r, 1031, 80, 951, 80, 1, 3, 0);
    QCOMPARE(r.nic->rxPosted(), 0u);

    // At the retry's time to the nanosecond: the ring is filled again (32 from the pool, the
    // other 32 descriptors stay empty: the pool is dry again, a second alloc_fail).
    r.clock.set(r.start + 32 * kUs + 1'000'000);
    QCOMPARE(r.loop->pollOnce(r.self), 0u);
    EXPECT_COUNTS(r, 1032, 80, 952, 112, 2, 4, 1);
    QCOMPARE(r.nic->rxPosted(), 32u);
}

void TstPollVirtualTime::theRefillThreadIsWokenAtTheThreshold()
{
    // refill.context thread: the poll context only wakes the thread, at the threshold; the
    // thread fills the ring when it runs. 88 buffers: 64 in the ring, 24 for refills; the
    // stages keep what they take.
    Rig r(88, true, RefillContext::Thread);
    auto wakeups = [&r] { return r.self.counters.get(CounterId::RefillWakeups); };
    QCOMPARE(r.pollAt(15), 15u);
    QVERIFY(!r.refill->woken()); // 15 free, below the threshold
    QCOMPARE(r.pollAt(16), 1u);
    QVERIFY(r.refill->woken()); // 16 free: woken, nothing refilled by the poll context
    EXPECT_COUNTS(r, 16, 16, 0, 64, 0, 2, 0);

    // The thread runs at 20 us: the 4 frames that came meanwhile are still in the ring, 16
    // free: filled to the top, one wake-up.
    r.clock.set(r.start + 20 * kUs);
    r.refill->wakeOnce(r.self.counters);
    EXPECT_COUNTS(r, 16, 16, 0, 80, 0, 2, 0);
    QCOMPARE(wakeups(), 1u);
    QVERIFY(!r.refill->woken());
    QCOMPARE(r.refill->retryDeadlineNs(), std::int64_t{-1});

    // 36 us: 20 harvested (17..36), 20 free, woken; the pool holds 8: 8 posted, then dry: an
    // alloc_fail, and the thread waits for its retry, refill.retry_ms after it ran.
    QCOMPARE(r.pollAt(36), 20u);
    QVERIFY(r.refill->woken());
    r.refill->wakeOnce(r.self.counters);
    EXPECT_COUNTS(r, 36, 36, 0, 88, 1, 3, 0);
    QCOMPARE(r.refill->retryDeadlineNs(), r.start + 36 * kUs + 1'000'000);

    // Woken before it (a harvest at the threshold): a waiting retry runs at any wake, and the
    // pool is still dry: a second alloc_fail, the deadline moved on.
    QCOMPARE(r.pollAt(52), 16u);
    r.refill->wakeOnce(r.self.counters);
    EXPECT_COUNTS(r, 52, 52, 0, 88, 2, 4, 0);
    QCOMPARE(r.refill->retryDeadlineNs(), r.start + 52 * kUs + 1'000'000);

    // The application lets its buffers go; the retry's timeout wakes the thread (no poll
    // woke it: 28 free were not re-announced): the ring is filled to the top.
    r.sink.releaseKept();
    r.clock.set(r.refill->retryDeadlineNs());
    r.refill->wakeOnce(r.self.counters);
    QCOMPARE(r.nic->rxPosted(), 64u);
    QCOMPARE(r.refill->retryDeadlineNs(), std::int64_t{-1});
    QCOMPARE(wakeups(), 4u);
}

void TstPollVirtualTime::theWorkQueueRefillRunsWhenItsItemDoes()
{
    // refill.context workqueue: the poll context queues one work item at the threshold (a
    // refill wake-up); the refill happens when a worker runs it, here the test, at the time
    // it says. The work item counts on the thread that runs it. 88 buffers, kept.
    Rig r(88, true, RefillContext::Workqueue);
    const Counters &worker = currentCounters();
    const std::uint64_t postedBefore = worker.get(CounterId::RefillPosted);
    auto posted = [&] { return worker.get(CounterId::RefillPosted) - postedBefore; };
    auto queued = [&r] { return r.self.counters.get(CounterId::RefillWakeups); };

    QCOMPARE(r.pollAt(15), 15u);
    QCOMPARE(queued(), 0u); // below the threshold
    QCOMPARE(r.pollAt(16), 1u);
    QCOMPARE(queued(), 1u);
    QCOMPARE(r.pollAt(17), 1u);
    QCOMPARE(queued(), 1u); // still pending: not queued twice
    QCOMPARE(r.wq.depth(), std::size_t{1});
    QCOMPARE(r.nic->rxPosted(), 47u); // nothing refilled by the poll context

    // The item runs at 20 us: 20 free (3 more arrived), filled to the top.
    r.clock.set(r.start + 20 * kUs);
    QCOMPARE(r.wq.runDue(), std::size_t{1});
    QCOMPARE(posted(), 17u); // 17 free when it ran: the arrivals at 18..20 wait in the ring
    QCOMPARE(r.nic->rxPosted(), 64u);
    QCOMPARE(r.wq.nextDelayedNs(), std::int64_t{-1});

    // 40 us: 23 harvested, the pool holds 7: 7 posted, then dry: the item requeues itself
    // refill.retry_ms later, on the clock it ran at.
    QCOMPARE(r.pollAt(40), 23u);
    QCOMPARE(queued(), 2u);
    QCOMPARE(r.wq.runDue(), std::size_t{1});
    QCOMPARE(posted(), 24u);
    QCOMPARE(worker.get(CounterId::AllocFail), 1u);
    QCOMPARE(r.wq.nextDelayedNs(), r.start + 40 * kUs + 1'000'000);

    // Pending while it waits: a poll at the threshold queues nothing. 1 ns before the
    // deadline nothing runs; at it, the refill finds the buffers the application let go.
    QCOMPARE(r.pollAt(60), 20u);
    QCOMPARE(queued(), 2u);
    r.sink.releaseKept();
    r.clock.set(r.wq.nextDelayedNs() - 1);
    QCOMPARE(r.wq.runDue(), std::size_t{0});
    r.clock.set(r.wq.nextDelayedNs());
    QCOMPARE(r.wq.runDue(), std::size_t{1});
    QCOMPARE(r.nic->rxPosted(), 64u);
    QCOMPARE(r.wq.nextDelayedNs(), std::int64_t{-1});
    QCOMPARE(worker.get(CounterId::AllocFail), 1u);
}

QTEST_APPLESS_MAIN(TstPollVirtualTime)
#include "tst_poll_virtual_time.moc"
