// SPDX-License-Identifier: GPL-2.0-or-later
// The stmmac case: the coalesce timer is armed per frame (rearm, before the fix) or only
// while the TX NAPI is not scheduled (skip_if_scheduled, the fix).
#include <poll.h>
#include <unistd.h>

#include <QtTest>

#include "engine/datapath/clock.h"
#include "engine/datapath/coalesce_timer.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstTxTimer : public QObject {
    Q_OBJECT
  private slots:
    void rearmArmsOncePerFrame();
    void skipArmsNoneWhileNapiIsHeld();
    void timerCleansWhenFramesDoNot();
    void pushedOutArmCostsNoSystemCall();
    void timerFiresAtItsLatestExpiry();
    void cancelledTimerFindsNothingDue();
};

// Waits (up to 2 s) until the timer's descriptor is readable, consumes it, and returns what
// expire() made of it.
static bool waitExpire(CoalesceTimer &t)
{
    pollfd p{t.fd(), POLLIN, 0};
    if (::poll(&p, 1, 2000) != 1) qFatal("the coalesce timer's descriptor never became readable");
    std::uint64_t v = 0;
    if (read(t.fd(), &v, sizeof v) != sizeof v) qFatal("reading the coalesce timer failed");
    return t.expire(nowNs());
}

// 20 kpps, evenly spaced: far below what this machine transmits, so every frame goes out.
static Assignments load(const std::string &policy, int cleanNsPerFrame)
{
    return {{"load.rate_pps", "20000"},
            {"load.pattern", "constant"},
            {"probe.rate_hz", "0"},
            {"tx.coalesce_frames", "25"},
            {"tx.coalesce_usecs", "1000"},
            {"tx.timer_policy", policy},
            {"cost.tx_clean_ns", std::to_string(cleanNsPerFrame)}};
}

static double armsPerFrame(const std::vector<std::shared_ptr<const Sample>> &s)
{
    const Sample &last = *s.back();
    if (last.totalOf(CounterId::Processed) < 10'000)
        qFatal("only %llu frames transmitted",
               (unsigned long long)last.totalOf(CounterId::Processed));
    return static_cast<double>(last.totalOf(CounterId::TimerArms)) /
           static_cast<double>(last.totalOf(CounterId::Processed));
}

void TstTxTimer::rearmArmsOncePerFrame()
{
    // stmmac_xmit() arms the timer for every frame; the TX poll adds an arm when frames are
    // still pending at its end.
    const auto s = runFor(params(load("rearm", 0)), 10);
    const double a = armsPerFrame(s);
    QVERIFY2(a >= 0.99 && a <= 1.1, qPrintable(QString("timer arms per frame %1").arg(a)));
    QCOMPARE(s.back()->totalOf(CounterId::TimerCancels), std::uint64_t{0});
}

void TstTxTimer::skipArmsNoneWhileNapiIsHeld()
{
    // A TX clean slower than the traffic (100 us per frame on the target) keeps the TX NAPI
    // scheduled: every interrupt-marked frame finds it polling and marks it missed. With
    // skip_if_scheduled no frame arms the timer; with rearm every frame still does.
    const auto skip = runFor(params(load("skip_if_scheduled", 100'000)), 10);
    const double b = armsPerFrame(skip);
    QVERIFY2(b < 0.01, qPrintable(QString("skip_if_scheduled: timer arms per frame %1").arg(b)));
    const auto rearm = runFor(params(load("rearm", 100'000)), 10);
    const double a = armsPerFrame(rearm);
    QVERIFY2(a >= 0.99, qPrintable(QString("rearm: timer arms per frame %1").arg(a)));
}

void TstTxTimer::timerCleansWhenFramesDoNot()
{
    // 100 frames/s never reach tx.coalesce_frames=64: only the 2 ms timer cleans them.
    const auto s = runFor(params({{"load.rate_pps", "100"},
                                  {"load.pattern", "constant"},
                                  {"probe.rate_hz", "0"},
                                  {"tx.coalesce_frames", "64"},
                                  {"tx.coalesce_usecs", "2000"}}),
                          12);
    const Sample &last = *s.back();
    // Every 64th frame is marked to interrupt on completion (stmmac counts frames across
    // cleans), so at most a couple of cleans come from interrupts: the timer does the rest.
    QVERIFY(last.totalOf(CounterId::TimerFires) > 0);
    QVERIFY2(last.totalOf(CounterId::TxCleanKicks) <= last.totalOf(CounterId::Processed) / 64 + 1,
             qPrintable(QString::number(last.totalOf(CounterId::TxCleanKicks))));
    QVERIFY(last.totalOf(CounterId::TimerFires) > last.totalOf(CounterId::TxCleanKicks));
    QVERIFY(last.totalOf(CounterId::TxPackets) + 5 >= last.totalOf(CounterId::RxPackets));
    // Latency ends at completion on the wire, not at the clean: the timer period is not in it.
    const double p50 = meanOf(s, 2, s.size(), [](const Sample &x) { return x.latency.p50; });
    QVERIFY2(p50 < 2000, qPrintable(QString::number(p50)));
}

void TstTxTimer::pushedOutArmCostsNoSystemCall()
{
    // hrtimer_start() on an armed timer that only moves later: the clock event keeps the
    // earlier expiry, no reprogramming (stmmac arms per frame: a system call each would cost
    // the poll thread more than the frame).
    CoalesceTimer t;
    const std::int64_t now = nowNs();
    for (int k = 0; k < 10'000; ++k)
        t.start(now + 1'000'000'000 + k);
    QCOMPARE(t.reprograms(), std::uint64_t{1});
    QVERIFY(t.armed());
    t.start(now + 500'000'000); // earlier than what the timerfd holds: it must follow
    QCOMPARE(t.reprograms(), std::uint64_t{2});
    t.cancel();
    QVERIFY(!t.armed());
    t.start(now + 900'000'000); // after a cancel, later than the programmed expiry: none
    QCOMPARE(t.reprograms(), std::uint64_t{2});
}

void TstTxTimer::timerFiresAtItsLatestExpiry()
{
    CoalesceTimer t;
    const std::int64_t start = nowNs();
    t.start(start + 2'000'000);
    t.start(start + 6'000'000); // pushed out: fires at 2 ms, finds 6 ms, sleeps again
    QVERIFY(!waitExpire(t));
    QVERIFY(nowNs() < start + 6'000'000 + 1'000'000); // woke near 2 ms, not after 6
    QVERIFY(t.armed());
    QVERIFY(waitExpire(t));
    QVERIFY(nowNs() >= start + 6'000'000);
    QVERIFY(!t.armed());
    QCOMPARE(t.reprograms(), std::uint64_t{2});
}

void TstTxTimer::cancelledTimerFindsNothingDue()
{
    CoalesceTimer t;
    t.start(nowNs() + 1'000'000);
    t.cancel();
    QVERIFY(!waitExpire(t)); // the timerfd still fires once, as a remote clock event does
    QVERIFY(!t.armed());
    // Armed again after the fire: programmed anew, and expires.
    t.start(nowNs() + 1'000'000);
    QVERIFY(waitExpire(t));
}

QTEST_GUILESS_MAIN(TstTxTimer)
#include "tst_tx_timer.moc"
