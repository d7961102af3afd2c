// SPDX-License-Identifier: GPL-2.0-or-later
// The engine facade: live and restart changes while running, rejected changes, events.
#include <QtTest>

#include "engine/datapath/sampler.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstEngine : public QObject {
    Q_OBJECT
  private slots:
    void restartWhileRunningKeepsMeasuring();
    void rejectedChangeKeepsEverything();
    void fifoDepthIsReported();
    void arrivalsAreCreditedToTheTimeTheyCover();
    void failuresToStartAreStatuses();
    void failedRestartsRollBackOrEndTheRun();
};

void TstEngine::restartWhileRunningKeepsMeasuring()
{
    Engine engine(params({{"load.rate_pps", "50000"}}), simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(10));
    const Status st = engine.apply(
        {{"rx.ring_size", "2048"}, {"refill.context", "thread"}, {"refill.threshold", "682"}},
        "test");
    QVERIFY2(st.ok(), st.error.c_str());
    QCOMPARE(engine.params().integer(TunableId::RxRingSize), 2048);
    const std::size_t at = c->samples().size();
    QVERIFY(c->waitSamples(at + 10));
    engine.stop();

    const auto s = c->samples();
    const auto ev = c->events();
    QVERIFY(std::any_of(ev.begin(), ev.end(), [](const Event &e) { return e.kind == "restart"; }));
    QCOMPARE(std::count_if(ev.begin(), ev.end(), [](const Event &e) { return e.kind == "param"; }),
             3);
    // Totals never go backwards across the rebuild, and traffic flows on after it.
    for (std::size_t k = 1; k < s.size(); ++k)
        for (std::size_t j = 0; j < kCounterCount; ++j)
            QVERIFY(s[k]->total[j] >= s[k - 1]->total[j]);
    // Traffic flows on after it: at least a fifth of the offered 50 kpps over the last
    // samples (the rest of the CPU may belong to whatever else this machine runs).
    const Sample &last = *s[s.size() - 2];
    const Sample &after = *s[at + 2];
    const double rx = static_cast<double>(last.totalOf(CounterId::RxPackets) -
                                          after.totalOf(CounterId::RxPackets)) /
                      (last.t - after.t);
    QVERIFY2(rx > 10000, qPrintable(QString::number(rx)));
    QVERIFY(last.thread("refill") != nullptr); // the new refill context runs
    // In the bigger ring: it is primed full at the restart (how full it stays afterwards
    // depends on how much CPU the refill thread gets).
    std::uint32_t posted = 0;
    for (std::size_t k = at; k < s.size(); ++k)
        posted = std::max(posted, s[k]->rxPosted);
    QVERIFY2(posted > 1024, qPrintable(QString::number(posted)));
}

void TstEngine::rejectedChangeKeepsEverything()
{
    Engine engine(ParamSet{}, simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(2));
    const Status st = engine.apply({{"poll.budget", "32"}, {"rx.ring_size", "1000"}}, "test");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("rx.ring_size: \"1000\" is not a power of two") != std::string::npos,
             st.error.c_str());
    QCOMPARE(engine.params().integer(TunableId::PollBudget), 64);
    engine.stop();
    for (const auto &e : c->events())
        QVERIFY(e.kind != "param" && e.kind != "restart");
}

void TstEngine::fifoDepthIsReported()
{
    // A consumer slower than the load: the fifo fills and says so.
    const auto s = runFor(params({{"handoff.mode", "fifo"},
                                  {"handoff.queue_len", "256"},
                                  {"load.rate_pps", "20000"},
                                  {"proc.ns_per_packet", "100000"}}),
                          8, 50);
    const Sample &last = *s[s.size() - 2];
    std::uint32_t deepest = 0;
    for (const auto &x : s)
        deepest = std::max(deepest, x->handoffDepth);
    QVERIFY2(deepest > 100, qPrintable(QString::number(deepest)));
    QVERIFY(last.rateOf(CounterId::HandoffFull) > 0);
}

// Issue 9 item 7: a poll thread that stalled for 2 s counts the frames that arrived meanwhile
// when it wakes. The sample in which it woke must not credit them to its own 100 ms.
void TstEngine::arrivalsAreCreditedToTheTimeTheyCover()
{
    ThreadRegistry reg;
    auto block = reg.counterBlock("poll");
    constexpr std::int64_t kMs = 1'000'000, t0 = 1'000 * kMs;
    std::int64_t until = t0; // the device's arrivals are counted up to here
    Sampler sampler(
        reg,
        [&] {
            DatapathReading r;
            r.device.arrivalsUntilNs = until;
            return r;
        },
        t0);
    auto arrive = [&](std::int64_t toNs, double pps) {
        const auto n = static_cast<std::uint64_t>(pps * static_cast<double>(toNs - until) / 1e9);
        block->counters.add(CounterId::Offered, n);
        until = toNs;
    };
    arrive(t0 + 100 * kMs, 100'000);
    const auto s1 = sampler.take(t0 + 100 * kMs);
    QCOMPARE(s1->rateOf(CounterId::Offered), 100'000.0);
    // The stall: the sampler runs 2.1 s later; the poll thread has not counted anything.
    const auto s2 = sampler.take(t0 + 2'200 * kMs);
    QCOMPARE(s2->interval, 2.1);
    QCOMPARE(s2->rateOf(CounterId::Offered), 0.0);
    // The poll thread wakes and counts 2.2 s of arrivals; the next sample covers 100 ms.
    arrive(t0 + 2'300 * kMs, 100'000);
    const auto s3 = sampler.take(t0 + 2'300 * kMs);
    QCOMPARE(s3->interval, 0.1);
    QVERIFY2(std::fabs(s3->rateOf(CounterId::Offered) - 100'000) < 1,
             qPrintable(QString::number(s3->rateOf(CounterId::Offered))));
    // Without the device's time (a device that counts as frames arrive), the interval rules.
    until = -1;
    block->counters.add(CounterId::Offered, 5'000);
    const auto s4 = sampler.take(t0 + 2'350 * kMs);
    QVERIFY(std::fabs(s4->rateOf(CounterId::Offered) - 100'000) < 1);
}

// The engine's failures come back as a Status and leave nothing half started: a device
// that refuses the parameters, a device that cannot be had.
void TstEngine::failuresToStartAreStatuses()
{
    Engine engine(params({{"poll.mode", "pmd_pause"}}), simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    const Status refused = engine.start();
    QVERIFY(!refused.ok());
    QVERIFY2(QString::fromStdString(refused.error).contains("cannot apply on the simulated NIC"),
             refused.error.c_str());
    QVERIFY(!engine.running());
    QVERIFY(c->events().empty()); // no start event for a run that did not start
    QVERIFY(engine.apply({{"poll.mode", "busy"}}, "test").ok());
    const Status started = engine.start();
    QVERIFY2(started.ok(), started.error.c_str());
    QVERIFY(c->waitSamples(2));
    engine.stop();

    std::unique_ptr<Engine> none;
    const DeviceFactory gone = [](const ParamSet &, const LiveParams &) -> std::unique_ptr<Device> {
        throw std::runtime_error("port 0000:03:00.0 is not there");
    };
    const Status st = Engine::create(ParamSet{}, gone, {}, none);
    QCOMPARE(st.error, std::string("port 0000:03:00.0 is not there"));
    QVERIFY(!none);
}

void TstEngine::failedRestartsRollBackOrEndTheRun()
{
    std::atomic<bool> gone{false};
    const DeviceFactory failing = [&](const ParamSet &p, const LiveParams &live) {
        // Out of memory for a 2048-descriptor ring; for any, once the device is gone.
        return std::unique_ptr<Device>(
            std::make_unique<FailingNic>(p, live, [&gone](const ParamSet &ps) -> std::string {
                if (gone) return "the device is gone";
                if (ps.integer(TunableId::RxRingSize) == 2048)
                    return "no memory for 2048 descriptors";
                return {};
            }));
    };
    Engine engine(params({{"rx.ring_size", "2048"}}), failing, EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    // A datapath that cannot be built: no run, no event, and a start with other values works.
    const Status refused = engine.start();
    QCOMPARE(refused.error, std::string("no memory for 2048 descriptors"));
    QVERIFY(!engine.running());
    QVERIFY(c->events().empty());
    QVERIFY(engine.apply({{"rx.ring_size", "1024"}}, "test").ok());
    QVERIFY(engine.start().ok());
    QVERIFY(c->waitSamples(2));
    // A restart that fails goes back to the values that ran, and the run goes on.
    const Status back = engine.apply({{"rx.ring_size", "2048"}}, "test");
    QVERIFY2(QString::fromStdString(back.error).endsWith("previous settings restored"),
             back.error.c_str());
    QVERIFY(engine.running());
    QCOMPARE(engine.params().integer(TunableId::RxRingSize), 1024);
    const std::size_t at = c->samples().size();
    QVERIFY(c->waitSamples(at + 2));
    QVERIFY(c->samples().back()->totalOf(CounterId::RxPackets) >
            c->samples()[at - 1]->totalOf(CounterId::RxPackets));
    // When the previous values cannot be rebuilt either, the run ends, and says so.
    gone = true;
    const Status ended = engine.apply({{"rx.ring_size", "4096"}}, "test");
    QVERIFY2(QString::fromStdString(ended.error).endsWith("the run stopped"), ended.error.c_str());
    QVERIFY(!engine.running());
    const auto ev = c->events();
    QCOMPARE(ev.back().kind, std::string("stop"));
    QVERIFY(std::any_of(ev.begin(), ev.end(), [](const Event &e) {
        return e.kind == "warning" && e.message.find("the device is gone") != std::string::npos;
    }));
    engine.stop(); // nothing left to stop, and nothing breaks
}

QTEST_GUILESS_MAIN(TstEngine)
#include "tst_engine.moc"
