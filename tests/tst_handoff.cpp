// SPDX-License-Identifier: GPL-2.0-or-later
// Every hand-off mode delivers every packet exactly once, in order where the mode keeps
// order. The test thread plays the poll thread; the real transmitter and TX clean thread
// complete the packets on the simulated wire.
#include <QtTest>

#include "drivers/sim/sim_nic.h"
#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/handoff.h"
#include "tests/test_support.h"

using namespace ringlab;
using ringlab::test::counterTotal;

class TstHandoff : public QObject {
    Q_OBJECT
  private slots:
    void exactlyOnce_data();
    void exactlyOnce();
    void fullQueueDropsAndCounts();
};

void TstHandoff::exactlyOnce_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("workers");
    QTest::addColumn<bool>("ordered");
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("queue");
    const int shared = static_cast<int>(WorkQueueKind::Shared);
    const int dedicated = static_cast<int>(WorkQueueKind::Dedicated);
    QTest::newRow("direct") << static_cast<int>(HandoffMode::Direct) << 1 << true << 32 << shared;
    QTest::newRow("fifo") << static_cast<int>(HandoffMode::Fifo) << 1 << true << 32 << shared;
    QTest::newRow("fifo, one at a time")
        << static_cast<int>(HandoffMode::Fifo) << 1 << true << 1 << shared;
    QTest::newRow("work, 1 worker")
        << static_cast<int>(HandoffMode::Work) << 1 << true << 32 << shared;
    QTest::newRow("work, 3 workers")
        << static_cast<int>(HandoffMode::Work) << 3 << false << 32 << shared;
    QTest::newRow("work, dedicated queue")
        << static_cast<int>(HandoffMode::Work) << 3 << true << 32 << dedicated;
}

void TstHandoff::exactlyOnce()
{
    QFETCH(int, mode);
    QFETCH(int, workers);
    QFETCH(bool, ordered);
    QFETCH(int, batch);
    QFETCH(int, queue);
    const auto queueKind = static_cast<WorkQueueKind>(queue);
    ParamSet ps;
    QVERIFY(ps.set({{"handoff.batch", std::to_string(batch)},
                    {"tx.ring_size", "8192"},
                    {"tx.coalesce_frames", "16"},
                    {"tx.coalesce_usecs", "200"},
                    {"proc.ns_per_packet", "100"},
                    {"link.mbps", "100000"},
                    {"rx.pool_buffers", "8192"}})
                .ok());
    LiveParams live(ps);
    sim::SimNic nic(ps, live);
    BufferPool pool(8192);
    ThreadRegistry reg;
    WorkQueue wq(reg, workers);
    Transmitter tx(live, nic, pool, reg, workers > 1 && queueKind == WorkQueueKind::Shared);
    auto handoff = makeHandoff(static_cast<HandoffMode>(mode),
                               HandoffDeps{live, pool, tx, reg, wq, 8192, queueKind});
    handoff->start();

    Counters own;
    constexpr std::uint64_t kPackets = 50000;
    std::uint64_t seq = 0;
    Buffer *bufs[32];
    while (seq < kPackets) {
        const std::uint32_t n = pool.alloc(
            bufs, static_cast<std::uint32_t>(std::min<std::uint64_t>(32, kPackets - seq)));
        for (std::uint32_t k = 0; k < n; ++k) {
            bufs[k]->seq = seq++;
            bufs[k]->len = 64;
            bufs[k]->probe = false;
            bufs[k]->at(Stage::Arrival) = bufs[k]->at(Stage::Harvest) = nowNs();
        }
        if (n) handoff->deliver(bufs, n, own);
        // The pool refills as TX clean completes packets; otherwise wait for it.
        else
            QTRY_VERIFY(pool.available() > 0);
    }
    QTRY_COMPARE_WITH_TIMEOUT(counterTotal(reg, own, CounterId::TxPackets), kPackets, 20000);
    QCOMPARE(counterTotal(reg, own, CounterId::Processed), kPackets);
    QCOMPARE(counterTotal(reg, own, CounterId::HandoffFull), std::uint64_t{0});
    QCOMPARE(counterTotal(reg, own, CounterId::TxFull), std::uint64_t{0});
    QCOMPARE(tx.latency().snapshot().total.total(), kPackets); // each completion recorded once
    QTRY_COMPARE(pool.available(), pool.size());               // every buffer back, none twice
    if (ordered) QCOMPARE(counterTotal(reg, own, CounterId::Reordered), std::uint64_t{0});
    // A take per packet where the mode takes one at a time (Zephyr: one net_pkt per
    // k_fifo_get, one k_work per packet); batches of up to 32 otherwise.
    const std::uint64_t takes = counterTotal(reg, own, CounterId::HandoffTakes);
    if (mode == static_cast<int>(HandoffMode::Direct))
        QCOMPARE(takes, std::uint64_t{0});
    else if (mode == static_cast<int>(HandoffMode::Work) || batch == 1)
        QCOMPARE(takes, kPackets);
    else
        QVERIFY2(takes >= kPackets / 32 && takes <= kPackets, qPrintable(QString::number(takes)));
    if (queueKind == WorkQueueKind::Dedicated) {
        const auto threads = reg.entries();
        QVERIFY(std::any_of(threads.begin(), threads.end(),
                            [](const auto &e) { return e->name == "rx_q/0"; }));
    }
    handoff->stop();
    wq.stop();
    tx.stop();
}

void TstHandoff::fullQueueDropsAndCounts()
{
    // A fifo of 16 whose consumer is slowed by 1 ms per packet overflows at once.
    ParamSet ps;
    QVERIFY(ps.set({{"proc.ns_per_packet", "1000000"}}).ok());
    LiveParams live(ps);
    sim::SimNic nic(ps, live);
    BufferPool pool(1024);
    ThreadRegistry reg;
    WorkQueue wq(reg, 1);
    Transmitter tx(live, nic, pool, reg, false);
    auto handoff = makeHandoff(HandoffMode::Fifo,
                               HandoffDeps{live, pool, tx, reg, wq, 16, WorkQueueKind::Shared});
    handoff->start();
    Counters own;
    Buffer *bufs[200];
    QCOMPARE(pool.alloc(bufs, 200), 200u);
    for (std::uint32_t k = 0; k < 200; ++k) {
        bufs[k]->seq = k;
        bufs[k]->len = 64;
    }
    handoff->deliver(bufs, 200, own);
    QVERIFY2(own.get(CounterId::HandoffFull) >= 200 - 16 - 1,
             qPrintable(QString::number(own.get(CounterId::HandoffFull))));
    handoff->stop(); // drops what is queued, returns it to the pool
    wq.stop();
    tx.stop();
    Buffer *rest[1024];
    while (std::uint32_t k = nic.txDrain(rest, 1024))
        pool.release(rest, k);
    QCOMPARE(pool.available(), pool.size());
}

QTEST_GUILESS_MAIN(TstHandoff)
#include "tst_handoff.moc"
