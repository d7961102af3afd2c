// SPDX-License-Identifier: GPL-2.0-or-later
#include <QtTest>
#include <atomic>
#include <set>
#include <thread>

#include "engine/datapath/clock.h"
#include "engine/datapath/work_queue.h"

using namespace ringlab;

class TstWorkQueue : public QObject {
    Q_OBJECT
  private slots:
    void everyItemExactlyOnce_data();
    void everyItemExactlyOnce();
    void pendingItemIsNotQueuedTwice();
    void delayedWorkWaits();
    void workersAreNamedAndCounted();
    void anItemNeverRunsTwiceAtOnce();
    void anItemMayEndItsLifeInItsFunction();
};

namespace {
struct Probe {
    WorkItem item;
    std::atomic<int> runs{0};
};
void countRun(WorkItem *w)
{
    static_cast<Probe *>(w->ctx)->runs.fetch_add(1);
}
} // namespace

void TstWorkQueue::everyItemExactlyOnce_data()
{
    QTest::addColumn<int>("workers");
    QTest::newRow("1 worker") << 1;
    QTest::newRow("3 workers") << 3;
}

void TstWorkQueue::everyItemExactlyOnce()
{
    QFETCH(int, workers);
    ThreadRegistry reg;
    WorkQueue wq(reg, workers);
    constexpr int kItems = 20000;
    std::vector<Probe> probes(kItems);
    std::atomic<int> total{0};
    for (auto &p : probes) {
        p.item.ctx = &p;
        p.item.fn = [](WorkItem *w) { countRun(w); };
    }
    // Two threads queue disjoint halves at once.
    {
        std::jthread a([&] {
            for (int k = 0; k < kItems; k += 2)
                QVERIFY(wq.queue(&probes[k].item));
        });
        std::jthread b([&] {
            for (int k = 1; k < kItems; k += 2)
                QVERIFY(wq.queue(&probes[k].item));
        });
    }
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                 int sum = 0;
                                 for (auto &p : probes)
                                     sum += p.runs.load();
                                 total = sum;
                                 return sum == kItems;
                             }()),
                             20000);
    for (auto &p : probes)
        QCOMPARE(p.runs.load(), 1);
    QCOMPARE(wq.depth(), std::size_t{0});
}

void TstWorkQueue::pendingItemIsNotQueuedTwice()
{
    ThreadRegistry reg;
    WorkQueue wq(reg, 1);
    // Block the single worker so the second item stays pending.
    std::atomic<bool> release{false};
    std::atomic<bool> blocking{false};
    WorkItem blocker;
    blocker.ctx = nullptr;
    struct Ctx {
        std::atomic<bool> *release, *blocking;
    } ctx{&release, &blocking};
    blocker.ctx = &ctx;
    blocker.fn = [](WorkItem *w) {
        auto *c = static_cast<Ctx *>(w->ctx);
        c->blocking->store(true);
        while (!c->release->load())
            std::this_thread::yield();
    };
    Probe p;
    p.item.ctx = &p;
    p.item.fn = [](WorkItem *w) { countRun(w); };
    QVERIFY(wq.queue(&blocker));
    QTRY_VERIFY(blocking.load());
    QVERIFY(wq.queue(&p.item));
    QVERIFY(!wq.queue(&p.item)); // already pending: not queued again
    QVERIFY(!wq.queue(&p.item));
    release = true;
    QTRY_COMPARE(p.runs.load(), 1);
    QVERIFY(wq.queue(&p.item)); // runnable again once it has started
    QTRY_COMPARE(p.runs.load(), 2);
}

void TstWorkQueue::delayedWorkWaits()
{
    ThreadRegistry reg;
    WorkQueue wq(reg, 2);
    struct Timed {
        WorkItem item;
        std::atomic<std::int64_t> ranAt{0};
    } t;
    t.item.ctx = &t;
    t.item.fn = [](WorkItem *w) { static_cast<Timed *>(w->ctx)->ranAt = nowNs(); };
    const std::int64_t queuedAt = nowNs();
    QVERIFY(wq.queueDelayed(&t.item, 30'000'000));
    QVERIFY(!wq.queue(&t.item)); // pending while it waits
    QTRY_VERIFY(t.ranAt.load() != 0);
    QVERIFY2(t.ranAt.load() - queuedAt >= 30'000'000,
             qPrintable(QString::number(t.ranAt.load() - queuedAt)));
}

void TstWorkQueue::workersAreNamedAndCounted()
{
    ThreadRegistry reg;
    {
        WorkQueue wq(reg, 2);
        Probe p;
        p.item.ctx = &p;
        p.item.fn = [](WorkItem *w) { countRun(w); };
        for (int k = 0; k < 50; ++k) {
            QVERIFY(wq.queue(&p.item));
            QTRY_COMPARE(p.runs.load(), k + 1);
        }
        QTRY_COMPARE(static_cast<int>(reg.entries().size()), 2);
        std::uint64_t items = 0;
        std::set<std::string> names;
        for (const auto &e : reg.entries()) {
            items += e->counters.get(CounterId::WorkItems);
            names.insert(e->name);
        }
        QCOMPARE(items, std::uint64_t{50});
        QVERIFY(names == (std::set<std::string>{"kworker/0", "kworker/1"}));
    }
    for (const auto &e : reg.entries())
        QVERIFY(e->exited.load()); // stopped with the queue
}

void TstWorkQueue::anItemNeverRunsTwiceAtOnce()
{
    // Queued again while it runs (as refill work is), an item runs again after, on the same
    // worker, never on a second one at the same time.
    ThreadRegistry reg;
    WorkQueue wq(reg, 3);
    struct Reentry {
        WorkItem item;
        std::atomic<int> inside{0}, overlaps{0}, runs{0};
    } r;
    r.item.ctx = &r;
    r.item.fn = [](WorkItem *w) {
        auto *x = static_cast<Reentry *>(w->ctx);
        if (x->inside.fetch_add(1) != 0) x->overlaps.fetch_add(1);
        for (int k = 0; k < 2000; ++k)
            asm volatile("" ::: "memory");
        x->inside.fetch_sub(1);
        x->runs.fetch_add(1);
    };
    // Each queue() succeeds once the previous one has started to run, i.e. while it runs.
    int queued = 0;
    for (int k = 0; k < 500; ++k, ++queued)
        while (!wq.queue(&r.item))
            std::this_thread::yield();
    QTRY_VERIFY(!r.item.pending.load() && r.inside.load() == 0 && r.runs.load() == queued);
    QCOMPARE(r.overlaps.load(), 0);
    QVERIFY(queued > 1);
}

void TstWorkQueue::anItemMayEndItsLifeInItsFunction()
{
    // As a kernel work function may free its work_struct: the queue must not touch the item
    // after its function returned. (It did, which ASan caught as a use after free.)
    ThreadRegistry reg;
    WorkQueue wq(reg, 2);
    constexpr int kItems = 2000;
    std::atomic<int> done{0};
    for (int k = 0; k < kItems; ++k) {
        auto *w = new WorkItem;
        w->ctx = &done;
        w->fn = [](WorkItem *self) {
            auto *count = static_cast<std::atomic<int> *>(self->ctx);
            delete self;
            count->fetch_add(1);
        };
        QVERIFY(wq.queue(w));
    }
    QTRY_COMPARE_WITH_TIMEOUT(done.load(), kItems, 20000);
}

QTEST_GUILESS_MAIN(TstWorkQueue)
#include "tst_workqueue.moc"
