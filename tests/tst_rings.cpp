// SPDX-License-Identifier: GPL-2.0-or-later
#include <QtTest>
#include <atomic>
#include <set>
#include <thread>

#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/desc_ring.h"
#include "engine/datapath/histogram.h"
#include "engine/datapath/mpmc_ring.h"
#include "engine/datapath/spsc_queue.h"

using namespace ringlab;

class TstRings : public QObject {
    Q_OBJECT
  private slots:
    void rxRingWrapsFullAndEmpty();
    void mpmcBulkIsAllOrNothing();
    void mpmcConcurrentExactlyOnce();
    void spscWrapsAndBounds();
    void spscConcurrentInOrder();
    void poolExhaustionAndReturn();
    void histogramPrecision();
    void histogramIntervals();
};

void TstRings::rxRingWrapsFullAndEmpty()
{
    RxRing ring(8);
    std::vector<Buffer> storage(32);
    std::vector<Buffer *> bufs;
    for (int k = 0; k < 64; ++k)
        bufs.push_back(&storage[k % 32]); // windows may run past 32
    QCOMPARE(ring.freeCount(), 8u);
    QCOMPARE(ring.post(bufs.data(), 5, 100), 5u);
    QCOMPARE(ring.freeCount(), 3u);
    QCOMPARE(ring.post(bufs.data() + 5, 10, 200), 3u); // full: only 3 fit
    QCOMPARE(ring.freeCount(), 0u);
    QCOMPARE(ring.postedCount(), 8u);
    // Wrap the indices many times: device fills, driver cleans, driver posts again.
    std::uint32_t next = 8;
    for (int round = 0; round < 100; ++round) {
        ring.hw_.store(ring.hw_.load() + 6);
        ring.clean_.store(ring.clean_.load() + 6);
        QCOMPARE(ring.freeCount(), 6u);
        QCOMPARE(ring.post(bufs.data() + (next % 32), 6, round), 6u);
        QCOMPARE(ring.at(ring.tail_.load() - 1).buf, bufs[(next % 32) + 5]);
        QCOMPARE(ring.at(ring.tail_.load() - 1).postedNs, static_cast<std::int64_t>(round));
        next += 6;
    }
    // Index arithmetic survives the 32-bit wrap.
    RxRing wrap(4);
    wrap.tail_ = wrap.hw_ = wrap.clean_ = 0xFFFFFFFEu;
    QCOMPARE(wrap.freeCount(), 4u);
    QCOMPARE(wrap.post(bufs.data(), 4, 0), 4u);
    QCOMPARE(wrap.freeCount(), 0u);
    QCOMPARE(wrap.tail_.load(), 2u);
}

void TstRings::mpmcBulkIsAllOrNothing()
{
    MpmcRing<int> r(10); // rounded up to 16 slots, capacity stays 10
    QCOMPARE(r.capacity(), 10u);
    int in[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    QVERIFY(r.enqueueBulk(in, 7));
    QVERIFY(!r.enqueueBulk(in, 4)); // 7 + 4 > 10
    QCOMPARE(r.count(), 7u);
    QVERIFY(r.enqueueBulk(in + 7, 3));
    int out[16] = {};
    QCOMPARE(r.dequeueBurst(out, 16), 10u);
    for (int k = 0; k < 10; ++k)
        QCOMPARE(out[k], k);
    QCOMPARE(r.dequeueBurst(out, 1), 0u);
}

void TstRings::mpmcConcurrentExactlyOnce()
{
    constexpr int kProducers = 3, kPerProducer = 200000;
    MpmcRing<int> r(256);
    std::vector<std::atomic<int>> seen(kProducers * kPerProducer);
    std::atomic<int> consumed{0};
    std::vector<std::jthread> threads;
    for (int p = 0; p < kProducers; ++p)
        threads.emplace_back([&, p] {
            for (int k = 0; k < kPerProducer;) {
                int batch[8];
                const int n = std::min(8, kPerProducer - k);
                for (int j = 0; j < n; ++j)
                    batch[j] = p * kPerProducer + k + j;
                if (r.enqueueBulk(batch, static_cast<std::uint32_t>(n)))
                    k += n;
                else
                    std::this_thread::yield();
            }
        });
    for (int c = 0; c < 2; ++c)
        threads.emplace_back([&] {
            int batch[16];
            while (consumed.load() < kProducers * kPerProducer) {
                const std::uint32_t n = r.dequeueBurst(batch, 16);
                for (std::uint32_t j = 0; j < n; ++j)
                    seen[batch[j]].fetch_add(1);
                consumed.fetch_add(static_cast<int>(n));
                if (!n) std::this_thread::yield();
            }
        });
    threads.clear();
    for (auto &s : seen)
        QCOMPARE(s.load(), 1);
}

void TstRings::spscWrapsAndBounds()
{
    SpscQueue<int> q(5);
    int in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    QCOMPARE(q.push(in, 8), 5u);
    int out[8] = {};
    QCOMPARE(q.pop(out, 2), 2u);
    QCOMPARE(out[0], 1);
    QCOMPARE(q.push(in + 5, 3), 2u);
    QCOMPARE(q.pop(out, 8), 5u);
    const int expect[] = {3, 4, 5, 6, 7};
    for (int k = 0; k < 5; ++k)
        QCOMPARE(out[k], expect[k]);
    QVERIFY(q.empty());
}

void TstRings::spscConcurrentInOrder()
{
    constexpr int kCount = 1'000'000;
    SpscQueue<int> q(64);
    std::jthread producer([&] {
        for (int k = 0; k < kCount;) {
            int batch[4] = {k, k + 1, k + 2, k + 3};
            k += static_cast<int>(
                q.push(batch, static_cast<std::uint32_t>(std::min(4, kCount - k))));
        }
    });
    int expect = 0;
    bool inOrder = true;
    while (expect < kCount) {
        int out[32];
        const std::uint32_t n = q.pop(out, 32);
        for (std::uint32_t j = 0; j < n; ++j)
            inOrder &= out[j] == expect++;
    }
    QVERIFY(inOrder);
}

void TstRings::poolExhaustionAndReturn()
{
    BufferPool pool(64);
    QCOMPARE(pool.available(), 64u);
    Buffer *bufs[100];
    QCOMPARE(pool.alloc(bufs, 40), 40u);
    QCOMPARE(pool.alloc(bufs + 40, 60),
             24u); // only 24 left: the shortfall is the caller's to count
    QCOMPARE(pool.alloc(bufs + 64, 1), 0u);
    std::set<std::uint32_t> indices;
    for (int k = 0; k < 64; ++k) {
        indices.insert(bufs[k]->index);
        QVERIFY(bufs[k]->data != nullptr);
        QCOMPARE(bufs[k]->room, BufferPool::kDataRoom);
        bufs[k]->data[BufferPool::kDataRoom - 1] = 0xAB; // the whole room is writable
    }
    QCOMPARE(indices.size(), std::size_t{64});
    pool.release(bufs, 64);
    QCOMPARE(pool.available(), 64u);

    // A pool whose resident pages no machine holds is refused with figures, before anything
    // is allocated (4e9 buffers would keep 15 TiB).
    try {
        BufferPool huge(4'000'000'000u);
        QFAIL("a pool of 4e9 buffers was made");
    } catch (const std::runtime_error &e) {
        const QString why = QString::fromUtf8(e.what());
        QVERIFY2(why.contains("4000000000 buffers keep") && why.contains("rx.pool_buffers"),
                 e.what());
    }
}

void TstRings::histogramPrecision()
{
    // Every bucket is at most 1 % wide relative to its lower edge.
    for (std::size_t b = 256; b < Histogram::kBuckets; b += 37) {
        const double lo = static_cast<double>(Histogram::bucketLow(b));
        const double hi = static_cast<double>(Histogram::bucketHigh(b));
        QVERIFY2((hi - lo) / lo <= 0.01, qPrintable(QString::number(b)));
        QCOMPARE(Histogram::bucketOf(Histogram::bucketLow(b)), b);
        QCOMPARE(Histogram::bucketOf(Histogram::bucketHigh(b) - 1), b);
    }
    Histogram h;
    for (std::uint64_t v = 1; v <= 100000; ++v)
        h.record(v * 1000); // 1 us .. 100 ms, uniform
    const auto s = h.snapshot();
    QCOMPARE(s.total(), 100000u);
    auto near = [](double got, double want) { return std::abs(got - want) / want < 0.01; };
    QVERIFY2(near(s.quantile(0.5), 50e6), qPrintable(QString::number(s.quantile(0.5))));
    QVERIFY2(near(s.quantile(0.99), 99e6), qPrintable(QString::number(s.quantile(0.99))));
    QVERIFY2(near(s.quantile(0.999), 99.9e6), qPrintable(QString::number(s.quantile(0.999))));
    QVERIFY(near(s.maxValue(), 100e6));
    QVERIFY(near(s.mean(), 50.0005e6));
}

void TstRings::histogramIntervals()
{
    Histogram h;
    for (int k = 0; k < 1000; ++k)
        h.record(10'000);
    const auto first = h.snapshot();
    for (int k = 0; k < 10; ++k)
        h.record(5'000'000);
    const auto interval = h.snapshot().minus(first);
    QCOMPARE(interval.total(), 10u);
    QVERIFY(std::abs(interval.quantile(0.5) - 5e6) / 5e6 < 0.01);
    QCOMPARE(Histogram::Snapshot{}.quantile(0.5), 0.0);
}

QTEST_GUILESS_MAIN(TstRings)
#include "tst_rings.moc"
