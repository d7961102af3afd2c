// SPDX-License-Identifier: GPL-2.0-or-later
// The TX path's logic at exact virtual times (issue 47 item 5): the transmitter reads a
// ManualClock and its clean context is run by the test, one wake at a time, so every arm,
// fire, clean and cancel is asserted at the nanosecond it happens, with no thread, no sleep
// and no rate window. The stmmac model (engine/datapath/transmitter.h): a frame arms the
// coalesce timer, every tx.coalesce_frames-th frame schedules the TX NAPI, the timer's fire
// schedules it too; under tx.timer_policy rearm (before the fix) a frame posted while the TX
// NAPI is scheduled arms the timer again, and the timer then fires into an empty ring (a clean
// that reclaims nothing); skip_if_scheduled cancels it instead.
// tst_tx_timer measures the same on the real clock, with its own clean thread.
#include <QtTest>

#include <deque>

#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/transmitter.h"
#include "tests/test_support.h"

using namespace ringlab;

class TstTxVirtualTime : public QObject {
    Q_OBJECT
  private slots:
    void everyArmFireAndCleanAtItsTime_data();
    void everyArmFireAndCleanAtItsTime();
    void theTimerFiresAtItsExpiryNotBefore();
};

namespace {

constexpr std::int64_t kUs = 1000;

// A descriptor ring whose frames complete as soon as they are posted (their wire time is not
// modelled): a clean reclaims whatever is posted.
class CompletingRing final : public test::TxOnlyPort {
  public:
    explicit CompletingRing(std::uint32_t size) : size_(size) {}
    std::uint32_t txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t) override
    {
        const std::uint32_t k = std::min(n, txFree());
        ring_.insert(ring_.end(), bufs, bufs + k);
        return k;
    }
    std::uint32_t txReclaim(Buffer **out, std::uint32_t max, std::int64_t nowNs) override
    {
        std::uint32_t k = 0;
        for (; k < max && !ring_.empty(); ++k) {
            out[k] = ring_.front();
            out[k]->at(Stage::TxDone) = nowNs;
            ring_.pop_front();
        }
        return k;
    }
    std::uint32_t txPending() const override { return static_cast<std::uint32_t>(ring_.size()); }
    std::uint32_t txFree() const override { return size_ - txPending(); }

  private:
    const std::uint32_t size_;
    std::deque<Buffer *> ring_;
};

// The counters the TX path keeps, as one comparable row.
struct TxCounts {
    std::uint64_t arms, cancels, fires, cleans, kicks, sent;
    friend bool operator==(const TxCounts &, const TxCounts &) = default;
};
TxCounts countsOf(const Counters &c)
{
    return {c.get(CounterId::TimerArms),    c.get(CounterId::TimerCancels),
            c.get(CounterId::TimerFires),   c.get(CounterId::TxCleans),
            c.get(CounterId::TxCleanKicks), c.get(CounterId::TxPackets)};
}
QString text(const TxCounts &t)
{
    return QStringLiteral("arms %1 cancels %2 fires %3 cleans %4 kicks %5 sent %6")
        .arg(t.arms)
        .arg(t.cancels)
        .arg(t.fires)
        .arg(t.cleans)
        .arg(t.kicks)
        .arg(t.sent);
}

// One transmitter on a ManualClock, its clean run by the test.
struct Bench {
    explicit Bench(const char *policy)
    {
        const Status st = ps.set({{"poll.mode", "sleep"},
                                  {"tx.coalesce_frames", "4"},
                                  {"tx.coalesce_usecs", "100"},
                                  {"tx.timer_policy", policy}});
        if (!st.ok()) qFatal("%s", st.error.c_str());
        live = std::make_unique<LiveParams>(ps);
        tx = std::make_unique<Transmitter>(*live, ring, pool, reg, false, false, clock,
                                           Transmitter::CleanContext::Caller);
    }
    // `n` frames posted at `atUs` after the start.
    void xmit(std::int64_t atUs, std::uint32_t n)
    {
        clock.set(start + atUs * kUs);
        Buffer *bufs[16];
        QVERIFY(pool.alloc(bufs, n) == n);
        for (std::uint32_t k = 0; k < n; ++k) {
            bufs[k]->seq = seq++;
            bufs[k]->len = 64;
            bufs[k]->probe = false;
            bufs[k]->sampled = true;
            bufs[k]->at(Stage::Arrival) = clock.now();
        }
        tx->xmit(bufs, n, c, clock.now());
    }
    // The clean context wakes at `atUs` (its timer's descriptor readable, or a kick).
    void wake(std::int64_t atUs)
    {
        clock.set(start + atUs * kUs);
        tx->cleanOnce(c);
    }
    // The timer's expiry in us after the start; -1: idle.
    std::int64_t expiryUs() const
    {
        const std::int64_t e = tx->timerExpiryNs();
        return e == 0 ? -1 : (e - start) / kUs;
    }

    ParamSet ps;
    std::unique_ptr<LiveParams> live;
    ManualClock clock;
    const std::int64_t start = clock.now();
    BufferPool pool{256};
    CompletingRing ring{64};
    ThreadRegistry reg;
    Counters c;
    std::uint64_t seq = 0;
    std::unique_ptr<Transmitter> tx;
};

} // namespace

Q_DECLARE_METATYPE(TxCounts)

void TstTxVirtualTime::everyArmFireAndCleanAtItsTime_data()
{
    QTest::addColumn<QString>("policy");
    // After each step: the counters, the timer's expiry (us, -1 idle), the TX NAPI scheduled.
    QTest::addColumn<QList<TxCounts>>("counts");
    QTest::addColumn<QList<int>>("expiry");
    QTest::addColumn<QList<bool>>("scheduled");
    //                         arms cancels fires cleans kicks sent
    QTest::newRow("rearm (before the fix)")
        << QStringLiteral("rearm")
        << QList<TxCounts>{{1, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 0},
                           {2, 0, 1, 1, 0, 2}, {6, 0, 1, 1, 1, 2}, {7, 0, 1, 1, 1, 2},
                           {7, 0, 1, 2, 1, 7}, {7, 0, 2, 3, 1, 7}}
        << QList<int>{100, 130, 130, -1, 300, 310, 310, -1}
        << QList<bool>{false, false, false, false, true, true, false, false};
    QTest::newRow("skip_if_scheduled (the fix)")
        << QStringLiteral("skip_if_scheduled")
        << QList<TxCounts>{{1, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 0}, {2, 0, 0, 0, 0, 0},
                           {2, 0, 1, 1, 0, 2}, {4, 1, 1, 1, 1, 2}, {4, 1, 1, 1, 1, 2},
                           {4, 1, 1, 2, 1, 7}, {4, 1, 1, 2, 1, 7}}
        << QList<int>{100, 130, 130, -1, -1, -1, -1, -1}
        << QList<bool>{false, false, false, false, true, true, false, false};
}

void TstTxVirtualTime::everyArmFireAndCleanAtItsTime()
{
    QFETCH(QString, policy);
    QFETCH(QList<TxCounts>, counts);
    QFETCH(QList<int>, expiry);
    QFETCH(QList<bool>, scheduled);
    Bench b(policy.toLatin1().constData());
    int step = 0;
    auto check = [&](const char *what) {
        const TxCounts now = countsOf(b.c);
        const QString where = QStringLiteral("step %1 (%2)").arg(step + 1).arg(what);
        if (!(now == counts.at(step)))
            return QStringLiteral("%1: %2, expected %3")
                .arg(where, text(now), text(counts.at(step)));
        if (b.expiryUs() != expiry.at(step))
            return QStringLiteral("%1: timer expires at %2 us, expected %3")
                .arg(where)
                .arg(b.expiryUs())
                .arg(expiry.at(step));
        if (b.tx->napiIsScheduled() != scheduled.at(step))
            return QStringLiteral("%1: TX NAPI %2scheduled")
                .arg(where, scheduled.at(step) ? "not " : "");
        ++step;
        return QString();
    };
#define STEP(call, what)                                                                           \
    call;                                                                                          \
    if (const QString e = check(what); !e.isEmpty()) QFAIL(qPrintable(e));
    STEP(b.xmit(0, 1), "a frame at 0 us arms the timer for 100 us");
    STEP(b.xmit(30, 1), "a frame at 30 us pushes it out to 130 us");
    STEP(b.wake(129), "the clean woken at 129 us: not due, nothing happens");
    STEP(b.wake(130), "at 130 us it fires: the TX NAPI cleans both frames and completes");
    STEP(b.xmit(200, 4), "4 frames at 200 us: the 2 up to the interrupt-marked one arm, it "
                         "schedules the TX NAPI, the policy decides for the 2 after it");
    STEP(b.xmit(210, 1), "a frame at 210 us, the TX NAPI scheduled: rearm arms again");
    STEP(b.wake(220), "the clean at 220 us reclaims all 5; nothing left, so it does not arm");
    STEP(b.wake(310), "at 310 us: rearm's timer fires into an empty ring");
#undef STEP
    QCOMPARE(step, counts.size());
}

void TstTxVirtualTime::theTimerFiresAtItsExpiryNotBefore()
{
    // One frame at 0 us: the timer is due at exactly 100,000 ns; a wake 1 ns before finds it
    // not due (and leaves it armed), the wake at its expiry fires it.
    Bench b("skip_if_scheduled");
    b.xmit(0, 1);
    QCOMPARE(b.tx->timerExpiryNs(), b.start + 100 * kUs);
    b.clock.set(b.start + 100 * kUs - 1);
    b.tx->cleanOnce(b.c);
    QCOMPARE(b.c.get(CounterId::TimerFires), 0u);
    QCOMPARE(b.tx->timerExpiryNs(), b.start + 100 * kUs);
    b.clock.set(b.start + 100 * kUs);
    b.tx->cleanOnce(b.c);
    QCOMPARE(b.c.get(CounterId::TimerFires), 1u);
    QCOMPARE(b.c.get(CounterId::TxCleans), 1u);
    QCOMPARE(b.c.get(CounterId::TxPackets), 1u);
    QCOMPARE(b.tx->timerExpiryNs(), 0);
    // The frame's latency is the virtual time from its post to the clean: 100 us exactly.
    const auto snap = b.tx->latency().snapshot();
    QCOMPARE(snap.total.total(), 1u);
    QVERIFY2(snap.total.quantile(0.5) >= 90'000 && snap.total.quantile(0.5) <= 110'000,
             qPrintable(QString::number(snap.total.quantile(0.5))));
}

QTEST_GUILESS_MAIN(TstTxVirtualTime)
#include "tst_tx_virtual_time.moc"
