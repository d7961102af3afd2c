// SPDX-License-Identifier: GPL-2.0-or-later
#include <QtTest>

#include "engine/datapath/clock.h"
#include "engine/datapath/poll_loop.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstPollModes : public QObject {
    Q_OBJECT
  private slots:
    void deadlines();
    void tickRoundsUpToJiffies();
    void sleepHonoursTheRange();
    void interruptModeration_data();
    void interruptModeration();
    void busyNeverSleeps();
};

void TstPollModes::deadlines()
{
    std::int64_t slack = 0;
    const std::int64_t tick = 4'000'000; // 250 Hz
    const std::int64_t now = 1000 * tick + 1'000'000;
    QCOMPARE(PollLoop::sleepDeadline(PollMode::Tick, now, 5, 10, 250, slack), 1001 * tick);
    QCOMPARE(slack, std::int64_t{1});
    QCOMPARE(PollLoop::sleepDeadline(PollMode::Tick, now, 4000, 4000, 250, slack), 1001 * tick);
    QCOMPARE(PollLoop::sleepDeadline(PollMode::Tick, now, 4001, 5000, 250, slack), 1002 * tick);
    QCOMPARE(PollLoop::sleepDeadline(PollMode::Sleep, now, 100, 200, 250, slack), now + 100'000);
    QCOMPARE(slack, std::int64_t{100'000});
    QCOMPARE(PollLoop::sleepDeadline(PollMode::Sleep, now, 50, 50, 250, slack), now + 50'000);
    QCOMPARE(slack, std::int64_t{0});
}

// Real sleeps through the engine's own wait primitive, as the poll thread does them.
static double meanSleepUs(PollMode mode, int minUs, int maxUs, int hz, int rounds)
{
    Waiter w;
    const std::int64_t start = nowNs();
    for (int k = 0; k < rounds; ++k) {
        std::int64_t slack = 0;
        const std::int64_t deadline =
            PollLoop::sleepDeadline(mode, nowNs(), minUs, maxUs, hz, slack);
        setTimerSlackNs(slack);
        w.waitUntil(deadline);
    }
    return static_cast<double>(nowNs() - start) / rounds / 1e3;
}

void TstPollModes::tickRoundsUpToJiffies()
{
    // The KNI case: schedule_timeout(usecs_to_jiffies(5)) sleeps to the next tick.
    const double tickMean = meanSleepUs(PollMode::Tick, 5, 10, 250, 40);
    QVERIFY2(tickMean >= 1000.0,
             qPrintable(QString("tick mode slept %1 us on average").arg(tickMean)));
    QVERIFY2(tickMean <= 4000.0 * 1.5,
             qPrintable(QString("tick mode slept %1 us on average").arg(tickMean)));
}

void TstPollModes::sleepHonoursTheRange()
{
    const double sleepMean = meanSleepUs(PollMode::Sleep, 5, 10, 250, 400);
    QVERIFY2(sleepMean < 500.0,
             qPrintable(QString("sleep mode slept %1 us on average").arg(sleepMean)));
    const double longer = meanSleepUs(PollMode::Sleep, 2000, 2100, 250, 20);
    QVERIFY2(longer >= 2000.0,
             qPrintable(QString("usleep_range(2000, 2100) slept %1 us").arg(longer)));
}

void TstPollModes::interruptModeration_data()
{
    QTest::addColumn<QString>("usecs");
    QTest::addColumn<QString>("frames");
    QTest::addColumn<double>("expectedIrqPerS");
    // 500 frames/s, evenly spaced (every 2 ms), and the time bound 1 ms before a frame: more
    // than a wakeup is late even on a busy machine, so a late poll thread does not merge two
    // windows into one interrupt (NAPI keeps the interrupt masked while it polls).
    QTest::newRow("one interrupt per frame") << "0"
                                             << "1" << 500.0;
    QTest::newRow("frames bound: every 4 frames") << "100000"
                                                  << "4" << 125.0;
    QTest::newRow("time bound: 7 ms after the first frame") << "7000"
                                                            << "4096" << 125.0;
}

void TstPollModes::interruptModeration()
{
    QFETCH(QString, usecs);
    QFETCH(QString, frames);
    QFETCH(double, expectedIrqPerS);
    const auto s = runFor(params({{"poll.mode", "interrupt"},
                                  {"load.rate_pps", "500"},
                                  {"load.pattern", "constant"},
                                  {"probe.rate_hz", "0"},
                                  {"irq.usecs", usecs.toStdString()},
                                  {"irq.frames", frames.toStdString()}}),
                          22);
    const double irq =
        meanOf(s, 2, s.size() - 1, [](const Sample &x) { return x.rateOf(CounterId::Interrupts); });
    QVERIFY2(std::abs(irq - expectedIrqPerS) / expectedIrqPerS < 0.1,
             qPrintable(QString("interrupts/s %1, expected %2").arg(irq).arg(expectedIrqPerS)));
    const double rx =
        meanOf(s, 2, s.size() - 1, [](const Sample &x) { return x.rateOf(CounterId::RxPackets); });
    QVERIFY2(std::abs(rx - 500) < 50, qPrintable(QString::number(rx)));
    // The poll thread sleeps between interrupts: about one wakeup per interrupt.
    const double wakeups =
        meanOf(s, 2, s.size() - 1, [](const Sample &x) { return x.thread("poll")->wakeupsPerS; });
    QVERIFY2(wakeups < expectedIrqPerS * 1.5, qPrintable(QString::number(wakeups)));
}

void TstPollModes::busyNeverSleeps()
{
    const auto s = runFor(params({{"poll.mode", "busy"}, {"load.rate_pps", "1000"}}), 6);
    const Sample &last = *s[s.size() - 2];
    const ThreadStat *poll = last.thread("poll");
    QVERIFY(poll);
    // Never sleeping shows as no voluntary context switches; the CPU it gets depends on
    // what else this machine runs, so only "it ran" is judged there.
    QVERIFY2(poll->wakeupsPerS < 20, qPrintable(QString::number(poll->wakeupsPerS)));
    QVERIFY2(poll->cpuPct > 20, qPrintable(QString::number(poll->cpuPct)));
    QVERIFY2(last.rateOf(CounterId::EmptyPolls) > 100 * last.rateOf(CounterId::RxPackets),
             qPrintable(QString::number(last.rateOf(CounterId::EmptyPolls))));
}

QTEST_GUILESS_MAIN(TstPollModes)
#include "tst_poll_modes.moc"
