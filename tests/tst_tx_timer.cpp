// SPDX-License-Identifier: GPL-2.0-or-later
// The stmmac case: under the same load, arming the coalesce timer only when a TX clean is
// not already scheduled arms far fewer timers than re-arming on every transmit.
#include <QtTest>

#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstTxTimer : public QObject {
    Q_OBJECT
  private slots:
    void skipIfScheduledArmsFewer();
    void timerCleansWhenFramesDoNot();
};

static Assignments load(const std::string &policy)
{
    return {{"load.rate_pps", "500000"}, {"load.frame_bytes", "64"},  {"poll.mode", "busy"},
            {"proc.ns_per_packet", "0"}, {"tx.coalesce_frames", "4"}, {"tx.coalesce_usecs", "1000"},
            {"tx.timer_policy", policy}};
}

void TstTxTimer::skipIfScheduledArmsFewer()
{
    const auto rearm = runFor(params(load("rearm")), 10);
    const auto skip = runFor(params(load("skip_if_scheduled")), 10);
    auto armsPerPacket = [](const std::vector<std::shared_ptr<const Sample>> &s) {
        const Sample &last = *s.back();
        return static_cast<double>(last.totalOf(C::TimerArms)) /
               static_cast<double>(last.totalOf(C::TxPackets));
    };
    const double a = armsPerPacket(rearm), b = armsPerPacket(skip);
    QVERIFY2(rearm.back()->totalOf(C::TxPackets) > 400'000, "the load went through");
    QVERIFY2(
        b < 0.6 * a,
        qPrintable(QString("timer arms per packet: rearm %1, skip_if_scheduled %2").arg(a).arg(b)));
    QVERIFY(skip.back()->totalOf(C::TimerCancels) > 0);
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
    QVERIFY(last.totalOf(C::TimerFires) > 0);
    QCOMPARE(last.totalOf(C::TxCleanKicks), std::uint64_t{0});
    QVERIFY(last.totalOf(C::TxPackets) + 5 >= last.totalOf(C::RxPackets));
    // Latency ends at completion on the wire, not at the clean: the timer period is not in it.
    const double p50 = meanOf(s, 2, s.size(), [](const Sample &x) { return x.latency.p50; });
    QVERIFY2(p50 < 2000, qPrintable(QString::number(p50)));
}

QTEST_GUILESS_MAIN(TstTxTimer)
#include "tst_tx_timer.moc"
