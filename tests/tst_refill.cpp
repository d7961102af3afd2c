// SPDX-License-Identifier: GPL-2.0-or-later
// Each refill context on its own, against the simulated NIC driven with explicit times.
#include <QtTest>

#include "drivers/sim/sim_nic.h"
#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/refill.h"
#include "tests/test_support.h"

using namespace ringlab;

class TstRefill : public QObject {
    Q_OBJECT
  private slots:
    void refillsToFullAndRespectsThreshold_data();
    void refillsToFullAndRespectsThreshold();
    void poolExhaustionIsCountedAndRetried_data();
    void poolExhaustionIsCountedAndRetried();
};

namespace {
struct Rig {
    explicit Rig(RefillContext ctx, const Assignments &extra = {})
    {
        Assignments a = {{"rx.ring_size", "256"},      {"refill.threshold", "64"},
                         {"refill.batch", "16"},       {"load.rate_pps", "1000000"},
                         {"load.pattern", "constant"}, {"probe.rate_hz", "0"},
                         {"link.mbps", "100000"}};
        a.insert(a.end(), extra.begin(), extra.end());
        if (!ps.set(a).ok()) qFatal("bad rig parameters");
        live = std::make_unique<LiveParams>(ps);
        nic = std::make_unique<sim::SimNic>(ps, *live);
        pool = std::make_unique<BufferPool>(
            static_cast<std::uint32_t>(ps.integer(TunableId::RxPoolBuffers)));
        wq = std::make_unique<WorkQueue>(reg, 1);
        refill = makeRefiller(ctx, {*live, *nic, *pool, reg, *wq});
        refill->prime(counters);
        t0 = nowNs();
        nic->linkUp(t0);
        refill->start();
    }
    ~Rig()
    {
        refill->stop();
        wq->stop();
    }
    // Harvests the frames that arrived in the first `us` microseconds after link up (1 per us)
    // and returns their buffers to the pool, as if processed and transmitted.
    std::uint32_t consume(std::int64_t us)
    {
        Buffer *bufs[1024];
        const std::uint32_t n = nic->rxHarvest(bufs, 1024, t0 + us * 1000, counters);
        pool->release(bufs, n);
        return n;
    }
    std::uint64_t total(CounterId c) { return test::counterTotal(reg, counters, c); }
    ParamSet ps;
    std::unique_ptr<LiveParams> live;
    std::unique_ptr<sim::SimNic> nic;
    std::unique_ptr<BufferPool> pool;
    ThreadRegistry reg;
    std::unique_ptr<WorkQueue> wq;
    std::unique_ptr<Refiller> refill;
    Counters counters;
    std::int64_t t0 = 0;
};
} // namespace

void TstRefill::refillsToFullAndRespectsThreshold_data()
{
    QTest::addColumn<int>("context");
    QTest::newRow("inline") << static_cast<int>(RefillContext::Inline);
    QTest::newRow("workqueue") << static_cast<int>(RefillContext::Workqueue);
    QTest::newRow("thread") << static_cast<int>(RefillContext::Thread);
}

void TstRefill::refillsToFullAndRespectsThreshold()
{
    QFETCH(int, context);
    Rig rig(static_cast<RefillContext>(context));
    QCOMPARE(rig.nic->rxFree(), 0u); // primed: the ring is full before the link comes up

    // 40 frames (constant 1 Mpps): 40 descriptors free, below the threshold of 64.
    QCOMPARE(rig.consume(40), 40u);
    QCOMPARE(rig.nic->rxFree(), 40u);
    rig.refill->afterHarvest(nowNs(), rig.counters);
    QCOMPARE(rig.total(CounterId::RefillWakeups), std::uint64_t{0}); // nobody was asked to refill
    QCOMPARE(rig.nic->rxFree(), 40u);

    // 30 more: 70 free, past the threshold: the context refills the whole ring.
    QCOMPARE(rig.consume(70), 30u);
    rig.refill->afterHarvest(nowNs(), rig.counters);
    QTRY_COMPARE(rig.nic->rxFree(), 0u);
    QCOMPARE(rig.total(CounterId::RxMissed), std::uint64_t{0});
    if (context != static_cast<int>(RefillContext::Inline))
        QTRY_VERIFY(rig.total(CounterId::RefillWakeups) >= 1);
    QCOMPARE(rig.total(CounterId::AllocFail), std::uint64_t{0});
    QCOMPARE(rig.pool->available(), rig.pool->size() - 256u);
}

void TstRefill::poolExhaustionIsCountedAndRetried_data()
{
    refillsToFullAndRespectsThreshold_data();
}

void TstRefill::poolExhaustionIsCountedAndRetried()
{
    QFETCH(int, context);
    // A pool of 64 behind a ring of 256: priming already runs dry.
    Rig rig(static_cast<RefillContext>(context),
            {{"rx.pool_buffers", "64"}, {"refill.retry_ms", "5"}});
    QTRY_VERIFY(rig.total(CounterId::AllocFail) >= 1);
    QCOMPARE(rig.nic->rxPosted(), 64u);
    QCOMPARE(rig.pool->available(), 0u);
    // Frames beyond the 64 posted buffers find no descriptor.
    Buffer *bufs[256];
    const std::uint32_t n = rig.nic->rxHarvest(bufs, 256, rig.t0 + 100'000, rig.counters);
    QCOMPARE(n, 64u);
    QCOMPARE(rig.counters.get(CounterId::RxMissed), std::uint64_t{100 - 64});
    // Buffers come back; the retry (or the next harvest past the retry time) refills them.
    rig.pool->release(bufs, n);
    rig.refill->afterHarvest(nowNs() + 10'000'000, rig.counters);
    QTRY_COMPARE(rig.nic->rxPosted(), 64u);
    QCOMPARE(rig.pool->available(), 0u);
}

QTEST_GUILESS_MAIN(TstRefill)
#include "tst_refill.moc"
