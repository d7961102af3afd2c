// SPDX-License-Identifier: GPL-2.0-or-later
// The stmmac case: the coalesce timer is armed per frame (rearm, before the fix) or only
// while the TX NAPI is not scheduled (skip_if_scheduled, the fix).
#include <QtTest>

#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstTxTimer : public QObject {
    Q_OBJECT
  private slots:
    void rearmArmsOncePerFrame();
    void skipArmsNoneWhileNapiIsHeld();
    void timerCleansWhenFramesDoNot();
};

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
    if (last.totalOf(C::Processed) < 10'000)
        qFatal("only %llu frames transmitted", (unsigned long long)last.totalOf(C::Processed));
    return static_cast<double>(last.totalOf(C::TimerArms)) /
           static_cast<double>(last.totalOf(C::Processed));
}

void TstTxTimer::rearmArmsOncePerFrame()
{
    // stmmac_xmit() arms the timer for every frame; the TX poll adds an arm when frames are
    // still pending at its end.
    const auto s = runFor(params(load("rearm", 0)), 10);
    const double a = armsPerFrame(s);
    QVERIFY2(a >= 0.99 && a <= 1.1, qPrintable(QString("timer arms per frame %1").arg(a)));
    QCOMPARE(s.back()->totalOf(C::TimerCancels), std::uint64_t{0});
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
    QVERIFY(last.totalOf(C::TimerFires) > 0);
    QVERIFY2(last.totalOf(C::TxCleanKicks) <= last.totalOf(C::Processed) / 64 + 1,
             qPrintable(QString::number(last.totalOf(C::TxCleanKicks))));
    QVERIFY(last.totalOf(C::TimerFires) > last.totalOf(C::TxCleanKicks));
    QVERIFY(last.totalOf(C::TxPackets) + 5 >= last.totalOf(C::RxPackets));
    // Latency ends at completion on the wire, not at the clean: the timer period is not in it.
    const double p50 = meanOf(s, 2, s.size(), [](const Sample &x) { return x.latency.p50; });
    QVERIFY2(p50 < 2000, qPrintable(QString::number(p50)));
}

QTEST_GUILESS_MAIN(TstTxTimer)
#include "tst_tx_timer.moc"
