// SPDX-License-Identifier: GPL-2.0-or-later
// The simulated NIC's accounting: exact arrivals, misses, wire time, and conservation of
// frames through a whole engine run.
#include <QtTest>

#include "engine/datapath/clock.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstSimNic : public QObject {
    Q_OBJECT
  private slots:
    void exactArrivalsAndMisses();
    void linkCapsTheRate();
    void poissonAndBurstyMeanRates_data();
    void poissonAndBurstyMeanRates();
    void wireTimeOrdersCompletions();
    void interruptTimeFollowsModeration();
    void deliveredPlusDroppedEqualsOffered();
    void noMissesWithLargeRingInline();
    void missesWhenRefillIsStarved();
};

namespace {
struct Nic {
    explicit Nic(const Assignments &a)
        : ps(params(a)), live(ps), nic(ps, live),
          pool(static_cast<std::uint32_t>(ps.integer(TunableId::RxPoolBuffers)))
    {
    }
    std::uint32_t post(std::uint32_t n)
    {
        std::vector<Buffer *> b(n);
        const std::uint32_t got = pool.alloc(b.data(), n);
        return nic.rxPost(b.data(), got, 0);
    }
    ParamSet ps;
    LiveParams live;
    sim::SimNic nic;
    BufferPool pool;
    Counters c;
};
} // namespace

void TstSimNic::exactArrivalsAndMisses()
{
    Nic n({{"load.rate_pps", "1000000"},
           {"load.pattern", "constant"},
           {"probe.rate_hz", "0"},
           {"link.mbps", "100000"}});
    QCOMPARE(n.post(64), 64u);
    const std::int64_t t0 = nowNs();
    n.nic.linkUp(t0);
    Buffer *out[1024];
    // 1 ms at 1 Mpps: exactly 1000 arrivals, 64 land in posted buffers, 936 are missed.
    QCOMPARE(n.nic.rxHarvest(out, 1024, t0 + 1'000'000, n.c), 64u);
    QCOMPARE(n.c.get(CounterId::Offered), std::uint64_t{1000});
    QCOMPARE(n.c.get(CounterId::RxMissed), std::uint64_t{936});
    for (std::uint32_t k = 0; k < 64; ++k) {
        QCOMPARE(out[k]->seq, std::uint64_t{k});
        QCOMPARE(out[k]->at(Stage::Arrival), t0 + 1000 * static_cast<std::int64_t>(k + 1));
        QCOMPARE(out[k]->len, 256u);
    }
    // Nothing more until time moves on; a harvest at the same time finds nothing.
    QCOMPARE(n.nic.rxHarvest(out, 1024, t0 + 1'000'000, n.c), 0u);
    QCOMPARE(n.c.get(CounterId::Offered), std::uint64_t{1000});
}

void TstSimNic::linkCapsTheRate()
{
    // 64-byte frames at 1 Gbit/s: at most 1e9 / (84 * 8) = 1488095 pps.
    Nic n({{"load.rate_pps", "5000000"},
           {"load.frame_bytes", "64"},
           {"load.pattern", "constant"},
           {"probe.rate_hz", "0"},
           {"link.mbps", "1000"}});
    const std::int64_t t0 = nowNs();
    n.nic.linkUp(t0);
    Buffer *out[8];
    n.nic.rxHarvest(out, 8, t0 + 100'000'000, n.c);
    QVERIFY2(std::abs(static_cast<double>(n.c.get(CounterId::Offered)) - 148809.5) < 2,
             qPrintable(QString::number(n.c.get(CounterId::Offered))));
}

void TstSimNic::poissonAndBurstyMeanRates_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<double>("expected");
    QTest::newRow("poisson") << "poisson" << 100000.0;
    QTest::newRow("bursty 1 ms on, 3 ms off") << "bursty" << 25000.0;
}

void TstSimNic::poissonAndBurstyMeanRates()
{
    QFETCH(QString, pattern);
    QFETCH(double, expected);
    Nic n({{"load.rate_pps", "100000"},
           {"load.pattern", pattern.toStdString()},
           {"probe.rate_hz", "0"},
           {"load.burst_on_us", "1000"},
           {"load.burst_off_us", "3000"}});
    const std::int64_t t0 = nowNs();
    n.nic.linkUp(t0);
    Buffer *out[8];
    n.nic.rxHarvest(out, 8, t0 + 2'000'000'000, n.c); // two simulated seconds
    const double rate = static_cast<double>(n.c.get(CounterId::Offered)) / 2.0;
    QVERIFY2(std::abs(rate - expected) / expected < 0.02, qPrintable(QString::number(rate)));
}

void TstSimNic::wireTimeOrdersCompletions()
{
    Nic n(Assignments{{"link.mbps", "1000"}});
    Buffer *b[4];
    QCOMPARE(n.pool.alloc(b, 4), 4u);
    for (auto *x : b)
        x->len = 1480; // (1480 + 20) * 8 bits at 1 Gbit/s = 12 us each
    const std::int64_t t = 1'000'000'000;
    QCOMPARE(n.nic.txPost(b, 4, t), 4u);
    QCOMPARE(n.nic.txPending(), 4u);
    Buffer *done[4];
    QCOMPARE(n.nic.txReclaim(done, 4, t + 11'999), 0u);
    QCOMPARE(n.nic.txReclaim(done, 4, t + 24'000), 2u);
    QCOMPARE(done[0], b[0]);
    QCOMPARE(b[3]->at(Stage::TxDone), t + 48'000);
    QCOMPARE(n.nic.txReclaim(done, 4, t + 48'000), 2u);
    QCOMPARE(n.nic.txPending(), 0u);
}

void TstSimNic::interruptTimeFollowsModeration()
{
    Nic n({{"load.rate_pps", "10000"},
           {"load.pattern", "constant"},
           {"probe.rate_hz", "0"},
           {"irq.usecs", "250"},
           {"irq.frames", "2"}});
    const std::int64_t t0 = nowNs();
    n.nic.linkUp(t0);
    // Frames every 100 us; the 2nd frame (t0 + 200 us) comes before first + 250 us.
    QCOMPARE(n.nic.nextInterruptNs(t0, 250, 2), t0 + 200'000);
    n.live.publish(params({{"load.rate_pps", "10000"},
                           {"load.pattern", "constant"},
                           {"probe.rate_hz", "0"},
                           {"irq.usecs", "50"},
                           {"irq.frames", "2"}}));
    QCOMPARE(n.nic.nextInterruptNs(t0, 50, 2), t0 + 150'000); // first frame + 50 us
    n.live.publish(params({{"load.rate_pps", "0"}, {"probe.rate_hz", "0"}}));
    QCOMPARE(n.nic.nextInterruptNs(t0, 50, 2), std::int64_t{-1}); // no traffic, no interrupt
}

void TstSimNic::deliveredPlusDroppedEqualsOffered()
{
    const double rate = 200000;
    const auto s = runFor(params({{"load.rate_pps", "200000"}, {"load.pattern", "constant"}}), 15);
    const Sample &last = *s.back();
    const std::uint64_t offered = last.totalOf(CounterId::Offered);
    const std::uint64_t accounted =
        last.totalOf(CounterId::TxPackets) + last.totalOf(CounterId::RxMissed) +
        last.totalOf(CounterId::TxFull) + last.totalOf(CounterId::HandoffFull);
    QVERIFY(offered > 0.9 * rate * last.t);
    // What is unaccounted was in flight when the run stopped: less than one interval's worth.
    QVERIFY2(offered >= accounted && offered - accounted <= rate * 0.1,
             qPrintable(QString("offered %1, accounted %2").arg(offered).arg(accounted)));
}

void TstSimNic::noMissesWithLargeRingInline()
{
    const auto s = runFor(params({{"rx.ring_size", "4096"},
                                  {"rx.pool_buffers", "16384"},
                                  {"refill.context", "inline"},
                                  {"load.rate_pps", "100000"}}),
                          30);
    // 4096 descriptors cover 41 ms at 100,000 pps: only a poll thread the host stopped for
    // longer can miss (seen on a shared CI machine: 4435 misses in one run). Judge the rest.
    // This also guards the pool: faulting each buffer's page in on its first trip through
    // the poll loop cost 1,000 to 9,000 misses in the first 0.3 s of every run.
    std::uint64_t missed = 0;
    for (std::size_t k : unstalledSamples(s, 20'000, 15))
        missed += growthIn(s, k, CounterId::RxMissed);
    QCOMPARE(missed, std::uint64_t{0});
    QCOMPARE(s.back()->totalOf(CounterId::AllocFail), std::uint64_t{0});
}

void TstSimNic::missesWhenRefillIsStarved()
{
    // 128 buffers for a 1024-descriptor ring, held in the TX ring for up to 50 ms before
    // they are cleaned: the pool runs dry, refill fails, and arrivals find no descriptor.
    const auto s = runFor(params({{"rx.pool_buffers", "128"},
                                  {"tx.coalesce_frames", "1000"},
                                  {"tx.coalesce_usecs", "50000"},
                                  {"load.rate_pps", "100000"}}),
                          10);
    QVERIFY(s.back()->totalOf(CounterId::RxMissed) > 1000);
    QVERIFY(s.back()->totalOf(CounterId::AllocFail) > 0);
}

QTEST_GUILESS_MAIN(TstSimNic)
#include "tst_sim_nic.moc"
