// SPDX-License-Identifier: GPL-2.0-or-later
// DPDK ports through the engine, on PMDs that need no privilege (net_null, net_ring): exact
// forwarding counts, txonly pacing, port reconfiguration by restart tunables, live poll-mode
// changes, and the refusals a port gives for what it cannot do.
#include <QtTest>

#include <net/if.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_memory.h>

#include <set>

#include "drivers/dpdk/eal.h"
#include "drivers/dpdk/mbuf_pool.h"
#include "drivers/dpdk/poll_events.h"
#include "drivers/registry.h"
#include "engine/datapath/engine.h"
#include "engine/datapath/sample_collector.h"
#include "require.h"
#include "test_support.h"

using namespace ringlab;
using ringlab::test::growthIn;
using ringlab::test::medianOf;
using ringlab::test::params;
using ringlab::test::unstalledSamples;

namespace {

DeviceFactory dpdkPorts(const std::string &spec)
{
    DeviceOptions dev;
    dev.spec = spec;
    return deviceFactory(dev);
}

double metric(const Sample &s, const std::string &name)
{
    const DeviceMetric *m = s.deviceMetric(name);
    return m ? m->value : -1;
}

// The device events of a run whose message starts with `prefix`.
std::size_t deviceEvents(const SampleCollector &c, const std::string &prefix)
{
    std::size_t n = 0;
    for (const Event &e : c.events())
        if (e.kind == "device" && e.message.rfind(prefix, 0) == 0) ++n;
    return n;
}

// Polls the direct pass took between samples `from` and `to`.
double directPolls(const std::vector<std::shared_ptr<const Sample>> &s, std::size_t from,
                   std::size_t to)
{
    return metric(*s[to], "direct_polls") - metric(*s[from], "direct_polls");
}

} // namespace

class TstDpdk : public QObject {
    Q_OBJECT
  private slots:
    void ioForwardingCountsAreExact();
    void singlePortModes_data();
    void singlePortModes();
    void txonlyDeliversTheSetRate();
    void busyPollLoopDrainsTheTxBuffer();
    void directPassForwardsWhileStagesPassFramesThrough();
    void directPassDrainsAsTheStagedPathDoes();
    void directPassDropsWhatTheRingCannotHold();
    void restartTunablesReconfigureThePort();
    void mbufPoolOnHugePagesUnlessAskedOtherwise();
    void mbufPoolLayouts();
    void livePollModeChangeCutsIdleWakeups();
    void pmdPauseIsDpdksOwnPowerManagement();
    void portRefusesWhatItCannotDo();
    void portsAreAttachedAndDetachedByHotplug();
    void anAfPacketPortLeavesItsInterfaceAsItFoundIt();
    void pollEventsAreKeptOrCountedLost();
};

void TstDpdk::ioForwardingCountsAreExact()
{
    // Busy polling, direct hand-off: net_null offers full bursts on both ports, forever.
    const ParamSet ps = params({{"fwd.mode", "io"},
                                {"poll.mode", "busy"},
                                {"proc.ns_per_packet", "0"},
                                {"tx.coalesce_frames", "32"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0+net_null1"), EngineOptions{50'000'000, true});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(10));
    // Each port's facts, as a session records them: the PMD, DPDK's version, the EAL's
    // arguments; what a null port cannot have is absent with the reason.
    const Environment ports = engine.portFacts();
    for (const char *port : {"net_null0", "net_null1"}) {
        auto fact = [&](const char *spec) { return ports.find(factKey(spec, port)); };
        for (const auto &s : factSpecs())
            if (s.scope == FactScope::Port) QVERIFY2(fact(s.key.data()), s.key.data());
        QVERIFY2(fact("port.driver")->value.find("net_null") == 0, port);
        QVERIFY(fact("port.dpdk_version")->value.rfind("DPDK ", 0) == 0); // rte_version()
        QVERIFY(fact("port.eal_args")->value.find("--no-huge") != std::string::npos);
        QCOMPARE(fact("port.firmware")->absent,
                 std::string("a DPDK port with no kernel interface behind it"));
    }
    engine.stop();
    const auto s = c->samples();
    QVERIFY(s.size() >= 10);
    const Sample &last = *s.back();
    const std::uint64_t rx = last.totalOf(CounterId::RxPackets),
                        tx = last.totalOf(CounterId::TxPackets);
    QVERIFY2(rx > 10000, qPrintable(QString::number(rx)));
    // Every frame the engine took from a port was sent on the other or counted as dropped;
    // nothing is left in flight after the stop.
    std::uint64_t dropped = 0;
    for (CounterId cause : kDropCauses)
        dropped += last.totalOf(cause);
    QCOMPARE(rx, tx + dropped);
    // The ports agree with the engine to the frame.
    const double inA = metric(last, "port_a_ipackets"), inB = metric(last, "port_b_ipackets");
    const double outA = metric(last, "port_a_opackets"), outB = metric(last, "port_b_opackets");
    QCOMPARE(static_cast<std::uint64_t>(inA + inB), rx);
    QCOMPARE(static_cast<std::uint64_t>(outA + outB), tx);
    // io: what came in on A went out on B and the other way round (less A's own drops).
    QVERIFY(outB <= inA && outA <= inB);
    QCOMPARE(static_cast<std::uint64_t>(inA - outB + inB - outA), dropped);
}

void TstDpdk::singlePortModes_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<bool>("sends");
    QTest::newRow("macswap: back out of the same port") << "macswap" << true;
    QTest::newRow("io on one port: back out of it") << "io" << true;
    QTest::newRow("rxonly: received, processed, dropped") << "rxonly" << false;
}

void TstDpdk::singlePortModes()
{
    QFETCH(QString, mode);
    QFETCH(bool, sends);
    const ParamSet ps = params(
        {{"fwd.mode", mode.toStdString()}, {"poll.mode", "busy"}, {"proc.ns_per_packet", "0"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0"), EngineOptions{50'000'000, true});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(4));
    engine.stop();
    const Sample &last = *c->samples().back();
    const std::uint64_t rx = last.totalOf(CounterId::RxPackets);
    QVERIFY(rx > 1000);
    QCOMPARE(last.totalOf(CounterId::Processed), rx);
    const auto out = static_cast<std::uint64_t>(metric(last, "port_a_opackets"));
    QCOMPARE(static_cast<std::uint64_t>(metric(last, "port_a_ipackets")), rx);
    if (sends) {
        QCOMPARE(out, last.totalOf(CounterId::TxPackets));
        QCOMPARE(out + last.totalOf(CounterId::TxFull), rx);
    } else {
        QCOMPARE(out, std::uint64_t{0});
        QCOMPARE(last.totalOf(CounterId::TxPackets), std::uint64_t{0});
    }
}

void TstDpdk::txonlyDeliversTheSetRate()
{
    constexpr double kRate = 50'000;
    const ParamSet ps = params({{"fwd.mode", "txonly"},
                                {"load.rate_pps", "50000"},
                                {"load.pattern", "constant"},
                                {"load.frame_bytes", "128"},
                                {"poll.mode", "sleep"},
                                {"poll.sleep_min_us", "50"},
                                {"poll.sleep_max_us", "100"},
                                {"tx.coalesce_usecs", "200"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0"), EngineOptions{100'000'000});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(35));
    engine.stop();
    auto s = c->samples();
    s.resize(35);
    // After a half-second warm-up, the samples in which the host did not stop the poll thread
    // for 5 ms: the generator gives up frames more than 10 ms behind (counted as missed), so a
    // stall shortens what the port sends (seen on a shared CI machine: 1269 frames given up).
    double frames = 0, seconds = 0;
    std::uint64_t missed = 0;
    std::size_t judged = 0;
    for (std::size_t k : unstalledSamples(s, 5'000, 15)) {
        if (k < 5) continue; // a half-second warm-up
        ++judged;
        frames += metric(*s[k], "port_a_tx_pps") * s[k]->interval;
        seconds += s[k]->interval;
        missed += growthIn(s, k, CounterId::RxMissed);
    }
    QVERIFY2(judged >= 10, qPrintable(QString("%1 samples to judge").arg(judged)));
    const double rate = frames / seconds;
    QVERIFY2(std::abs(rate - kRate) <= 0.02 * kRate,
             qPrintable(QString("port sent %1 pps, asked for %2").arg(rate).arg(kRate)));
    QCOMPARE(missed, std::uint64_t{0});
}

void TstDpdk::busyPollLoopDrainsTheTxBuffer()
{
    // 20 frames per millisecond and a flush only every 500 frames: every frame leaves by the
    // drain. A busy poll loop checks it itself, as l2fwd's lcore does; a sleeping one leaves
    // it to the coalesce timer's thread. Busy, then sleeping, then busy again; latency on one
    // load frame in 16, so most batches carry no clock reading.
    const ParamSet ps = params({{"fwd.mode", "txonly"},
                                {"load.rate_pps", "20000"},
                                {"load.pattern", "constant"},
                                {"poll.mode", "busy"},
                                {"tx.coalesce_frames", "500"},
                                {"tx.coalesce_usecs", "200"},
                                {"latency.sample_every", "16"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0"), EngineOptions{100'000'000});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(8));
    QVERIFY(engine.apply({{"poll.mode", "sleep"}}, "test").ok());
    const std::size_t slept = c->samples().size();
    QVERIFY(c->waitSamples(slept + 8));
    QVERIFY(engine.apply({{"poll.mode", "busy"}}, "test").ok());
    const std::size_t back = c->samples().size();
    QVERIFY(c->waitSamples(back + 8));
    engine.stop();
    const auto s = c->samples();
    QVERIFY(s.size() >= back + 8);
    auto median = [&](std::size_t from, std::size_t to, auto of) {
        return medianOf(s, from, to, of);
    };
    auto rate = [](CounterId id) { return [id](const Sample &x) { return x.rateOf(id); }; };
    auto cleanWakeups = [](const Sample &x) {
        const ThreadStat *t = x.thread("txclean");
        return t ? t->wakeupsPerS : NAN;
    };
    auto p50 = [](const Sample &x) { return x.latency.p50; };
    const std::pair<std::size_t, std::size_t> busy{3, slept - 1}, sleeping{slept + 3, back - 1},
        busyAgain{back + 3, s.size()};
    for (auto [from, to] : {busy, sleeping, busyAgain}) {
        // Every frame goes out, each drain period ending in a flush (~4,000 a second).
        const double sent = median(from, to, rate(CounterId::TxPackets));
        QVERIFY2(std::abs(sent - 20'000) <= 400, qPrintable(QString::number(sent)));
        const double fires = median(from, to, rate(CounterId::TimerFires));
        QVERIFY2(fires > 1000, qPrintable(QString::number(fires)));
    }
    // Busy, the poll loop drained and the timer thread slept, also after a sleeping spell
    // (its last timer cancelled, not armed again); sleeping, the timer thread woke.
    QCOMPARE(median(busy.first, busy.second, cleanWakeups), 0.0);
    QCOMPARE(median(busyAgain.first, busyAgain.second, cleanWakeups), 0.0);
    QVERIFY(median(busy.first, busy.second, rate(CounterId::TimerArms)) > 1000);
    const double woken = median(sleeping.first, sleeping.second, cleanWakeups);
    QVERIFY2(woken > 1000, qPrintable(QString::number(woken)));
    // Busy, a frame waits in the buffer for the rest of the period it arrived in: half of it
    // on average (measured 100.6 us); sleeping, the poll's own sleep comes on top.
    const double wait = median(busy.first, busy.second, p50);
    QVERIFY2(wait > 50 && wait < 200, qPrintable(QString::number(wait)));
    // One load frame in 16 measured, though most batches read no clock.
    std::uint64_t measured = 0;
    for (std::size_t k = busy.first; k < busy.second; ++k)
        measured += s[k]->latency.count;
    const std::uint64_t sent = s[busy.second - 1]->totalOf(CounterId::TxPackets) -
                               s[busy.first - 1]->totalOf(CounterId::TxPackets);
    QVERIFY2(std::abs(static_cast<double>(measured) * 16 - static_cast<double>(sent)) <
                 0.05 * static_cast<double>(sent),
             qPrintable(QString("%1 measured of %2").arg(measured).arg(sent)));
}

void TstDpdk::directPassForwardsWhileStagesPassFramesThrough()
{
    // Nothing to do per frame between RX and TX (no processing cost, no header, busy polling,
    // direct hand-off): the device forwards the rounds itself. Then, live: a header per frame
    // brings the stages back; taking it off, the pass again; a TX buffer that holds bursts
    // (tx.coalesce_frames above a burst, both ports' frames waiting together); DPDK's PMD
    // power management, which stops and starts the ports under the pass's waiting frames.
    // Every count stays exact throughout.
    const ParamSet ps = params({{"fwd.mode", "io"},
                                {"poll.mode", "busy"},
                                {"proc.ns_per_packet", "0"},
                                {"tx.header", "none"},
                                {"tx.coalesce_frames", "32"},
                                {"latency.sample_every", "16"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0+net_null1"), EngineOptions{50'000'000, true});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    struct Phase {
        Assignments change;
        bool direct;
        std::size_t from = 0; // its first sample
    };
    std::vector<Phase> phases = {{{}, true},
                                 {{{"tx.header", "precomputed"}}, false},
                                 {{{"tx.header", "none"}}, true},
                                 {{{"tx.coalesce_frames", "100"}}, true},
                                 {{{"poll.mode", "pmd_pause"}}, true}};
    for (Phase &p : phases) {
        if (!p.change.empty()) QVERIFY(engine.apply(p.change, "test").ok());
        p.from = c->samples().size();
        QVERIFY(c->waitSamples(p.from + 6));
    }
    engine.stop();
    const auto s = c->samples();
    QVERIFY(s.size() >= phases.back().from + 6);

    for (std::size_t k = 0; k < phases.size(); ++k) {
        // Judged from the second sample of a phase (the one after a change may hold both) to
        // the last before the next change.
        const std::size_t from = phases[k].from + 1,
                          to = (k + 1 < phases.size() ? phases[k + 1].from : s.size()) - 1;
        const QString what = QString("phase %1, samples %2..%3").arg(k).arg(from).arg(to);
        if (!phases[k].direct) {
            QVERIFY2(directPolls(s, from, to) == 0, qPrintable(what));
            continue;
        }
        QVERIFY2(directPolls(s, from, to) > 1000, qPrintable(what));
        const auto grew = [&](CounterId id) { return s[to]->totalOf(id) - s[from]->totalOf(id); };
        const std::uint64_t sent = grew(CounterId::TxPackets);
        // Each flush by count sends what waits: a burst of 64 at tx.coalesce_frames 32, two
        // bursts (128 frames) at 100, from phase 3 on.
        const double perFlush =
            static_cast<double>(sent) / static_cast<double>(grew(CounterId::TxInlineCleans));
        const double expected = k >= 3 ? 128 : 64;
        QVERIFY2(std::abs(perFlush - expected) < 0.1 * expected,
                 qPrintable(what + QString(": %1 frames a flush").arg(perFlush)));
        // One load frame in 16 measured, as on the staged path.
        std::uint64_t measured = 0;
        for (std::size_t j = from + 1; j <= to; ++j)
            measured += s[j]->latency.count;
        QVERIFY2(std::abs(static_cast<double>(measured) * 16 - static_cast<double>(sent)) <
                     0.05 * static_cast<double>(sent),
                 qPrintable(what + QString(": %1 measured of %2").arg(measured).arg(sent)));
        QCOMPARE(s[to]->latency.sampleEvery, 16u);
    }
    QCOMPARE(deviceEvents(*c, "direct pass on"), std::size_t{2});
    QCOMPARE(deviceEvents(*c, "direct pass off"), std::size_t{1}); // the header
    QCOMPARE(deviceEvents(*c, "PMD power management (PAUSE) enabled"), std::size_t{1});

    // Exact across both paths and every change: every frame taken from a port was sent on
    // the other, processed once, and the ports agree to the frame.
    const Sample &last = *s.back();
    const std::uint64_t rx = last.totalOf(CounterId::RxPackets),
                        tx = last.totalOf(CounterId::TxPackets);
    std::uint64_t dropped = 0;
    for (CounterId cause : kDropCauses)
        dropped += last.totalOf(cause);
    // net_null takes every frame, and the buffer never overflows: nothing is dropped.
    QCOMPARE(dropped, std::uint64_t{0});
    QCOMPARE(tx, rx);
    QCOMPARE(last.totalOf(CounterId::Processed), rx);
    QCOMPARE(last.totalOf(CounterId::Offered), rx);
    QCOMPARE(last.totalOf(CounterId::RxBytes), last.totalOf(CounterId::TxBytes));
    QCOMPARE(static_cast<std::uint64_t>(metric(last, "port_a_ipackets") +
                                        metric(last, "port_b_ipackets")),
             rx);
    QCOMPARE(static_cast<std::uint64_t>(metric(last, "port_a_opackets") +
                                        metric(last, "port_b_opackets")),
             tx);
}

void TstDpdk::directPassDrainsAsTheStagedPathDoes()
{
    // A net_ring port sends into its own RX ring. txonly puts a few hundred frames in it;
    // io then circulates that population for ever, each frame out of the port it came in on.
    // With tx.coalesce_frames above the population no flush is ever due by count: every frame
    // waits in the TX buffer until the drain, tx.coalesce_usecs after the first of a period
    // began to wait. The staged path (fwd.direct_pass 0) and the direct pass must behave alike: one
    // flush of the whole population per period, and a frame's latency the period's.
    const ParamSet ps = params({{"fwd.mode", "txonly"},
                                {"load.rate_pps", "1000"},
                                {"load.pattern", "constant"},
                                {"load.frame_bytes", "64"},
                                {"poll.mode", "busy"},
                                {"proc.ns_per_packet", "0"},
                                {"tx.header", "none"},
                                {"fwd.direct_pass", "0"},
                                {"tx.coalesce_frames", "1000"},
                                {"tx.coalesce_usecs", "1000"}});
    Engine engine(ps, dpdkPorts("dpdk:net_ring0"), EngineOptions{100'000'000});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(3));
    QVERIFY(engine.apply({{"fwd.mode", "io"}}, "test").ok());
    const std::size_t staged = c->samples().size();
    QVERIFY(c->waitSamples(staged + 8));
    QVERIFY(engine.apply({{"fwd.direct_pass", "1"}}, "test").ok());
    const std::size_t direct = c->samples().size();
    QVERIFY(c->waitSamples(direct + 8));
    engine.stop();
    const auto s = c->samples();
    QVERIFY(s.size() >= direct + 8);
    QCOMPARE(directPolls(s, staged + 2, direct - 1), 0.0);
    QVERIFY(directPolls(s, direct + 2, direct + 7) > 1000);

    struct Phase {
        double perFlush, flushes, byCount, p50;
    };
    auto phase = [&](std::size_t from, std::size_t to) {
        const auto grew = [&](CounterId id) {
            return static_cast<double>(s[to]->totalOf(id) - s[from]->totalOf(id));
        };
        const auto median = [&](auto of) { return medianOf(s, from + 1, to + 1, of); };
        return Phase{grew(CounterId::TxPackets) / grew(CounterId::TimerFires),
                     median([](const Sample &x) { return x.rateOf(CounterId::TimerFires); }),
                     grew(CounterId::TxInlineCleans),
                     median([](const Sample &x) { return x.latency.p50; })};
    };
    const Phase a = phase(staged + 2, direct - 1), b = phase(direct + 2, direct + 7);
    const QString text = QString("staged %1 frames a flush, %2 flushes/s, p50 %3 us; direct %4, "
                                 "%5, %6")
                             .arg(a.perFlush)
                             .arg(a.flushes)
                             .arg(a.p50)
                             .arg(b.perFlush)
                             .arg(b.flushes)
                             .arg(b.p50);
    qInfo("%s", qPrintable(text));
    // The population txonly left, a few hundred frames, flushed whole once a period: the same
    // population on both paths (a frame lost or sent twice would change it).
    QVERIFY2(a.perFlush > 50 && a.perFlush < 1000, qPrintable(text));
    QVERIFY2(std::abs(b.perFlush - a.perFlush) <= 0.02 * a.perFlush, qPrintable(text));
    for (const Phase &p : {a, b}) {
        QCOMPARE(p.byCount, 0.0); // the population stays under tx.coalesce_frames
        // A period is 1 ms and a poll round: just under 1,000 flushes a second, fewer when
        // the host stalls the poll thread (ctest -j2 runs another test beside it).
        QVERIFY2(p.flushes > 500 && p.flushes <= 1010, qPrintable(text));
        // Received at the start of a period, sent at its end.
        QVERIFY2(p.p50 > 700 && p.p50 < 1300, qPrintable(text));
    }
    // Nothing lost between the paths: what circulates is what txonly sent.
    QCOMPARE(s.back()->totalOf(CounterId::TxFull), std::uint64_t{0});
}

void TstDpdk::directPassDropsWhatTheRingCannotHold()
{
    // A poll round of 2,048 frames into a TX ring of 1,024: the staged path posts the round as
    // one chunk and the ring refuses the second half (tx_full). The pass takes the same chunk
    // and must drop the same half, with port A idle so that every frame comes from B.
    const ParamSet ps = params({{"fwd.mode", "io"},
                                {"poll.mode", "busy"},
                                {"proc.ns_per_packet", "0"},
                                {"tx.header", "none"},
                                {"poll.budget", "2048"},
                                {"tx.ring_size", "1024"},
                                {"fwd.direct_pass", "0"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0,no-rx=1+net_null1"),
                  EngineOptions{50'000'000, true});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(6));
    QVERIFY(engine.apply({{"fwd.direct_pass", "1"}}, "test").ok());
    const std::size_t direct = c->samples().size();
    QVERIFY(c->waitSamples(direct + 6));
    engine.stop();
    const auto s = c->samples();
    QVERIFY(s.size() >= direct + 6);
    QCOMPARE(directPolls(s, 1, direct - 1), 0.0);
    QVERIFY(directPolls(s, direct + 1, s.size() - 1) > 100);
    for (const auto &range : {std::pair{std::size_t{1}, direct - 1}, {direct + 1, s.size() - 1}}) {
        // Plain locals: clang 14 (the sanitizer tree) cannot capture structured bindings.
        const std::size_t from = range.first, to = range.second;
        const auto grew = [&](CounterId id) {
            return static_cast<double>(s[to]->totalOf(id) - s[from]->totalOf(id));
        };
        const QString what = QString("samples %1..%2: %3 received, %4 refused, %5 flushes")
                                 .arg(from)
                                 .arg(to)
                                 .arg(grew(CounterId::RxPackets))
                                 .arg(grew(CounterId::TxFull))
                                 .arg(grew(CounterId::TxInlineCleans));
        QVERIFY2(grew(CounterId::RxPackets) > 100'000, qPrintable(what));
        QVERIFY2(std::abs(grew(CounterId::TxFull) / grew(CounterId::RxPackets) - 0.5) < 0.01,
                 qPrintable(what));
        // One flush of the 1,024 the ring holds per round.
        QVERIFY2(std::abs(grew(CounterId::TxPackets) / grew(CounterId::TxInlineCleans) - 1024) < 10,
                 qPrintable(what));
    }
    const Sample &last = *s.back();
    QCOMPARE(last.totalOf(CounterId::RxPackets),
             last.totalOf(CounterId::TxPackets) + last.totalOf(CounterId::TxFull));
    QCOMPARE(static_cast<std::uint64_t>(metric(last, "port_a_opackets")),
             last.totalOf(CounterId::TxPackets));
}

void TstDpdk::restartTunablesReconfigureThePort()
{
    // The mbufs in the EAL's memory (-m 512), which cannot hold the largest pool.
    const ParamSet ps = params({{"fwd.mode", "io"},
                                {"poll.mode", "sleep"},
                                {"poll.sleep_min_us", "20"},
                                {"poll.sleep_max_us", "40"},
                                {"rx.pool_memory", "eal"}});
    Engine engine(ps, dpdkPorts("dpdk:net_ring0"), EngineOptions{50'000'000});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(3));
    QCOMPARE(c->samples().back()->poolFree, 4096u); // nothing arrives: every mbuf is free
    // The mempool and the queues are rebuilt: stop, reconfigure, start.
    QVERIFY(engine.apply({{"rx.pool_buffers", "2048"}, {"rx.ring_size", "512"}}, "test").ok());
    const std::size_t at = c->samples().size();
    QVERIFY(c->waitSamples(at + 3));
    QCOMPARE(c->samples().back()->poolFree, 2048u); // a new mempool of the new size
    // More mbufs than DPDK's memory holds: refused, rolled back, the port still runs.
    const Status st = engine.apply({{"rx.pool_buffers", "262144"}}, "test");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("mbuf pool") != std::string::npos, st.error.c_str());
    QCOMPARE(engine.params().integer(TunableId::RxPoolBuffers), std::int64_t{2048});
    const std::size_t after = c->samples().size();
    QVERIFY(c->waitSamples(after + 2));
    QCOMPARE(c->samples().back()->poolFree, 2048u);
    // A threshold is a queue setting: it restarts the port too, and net_ring says it ignores it.
    QVERIFY(engine.apply({{"refill.threshold", "64"}}, "test").ok());
    engine.stop();
    int restarts = 0, ignored = 0;
    for (const auto &e : c->events()) {
        restarts += e.kind == "restart";
        ignored += e.kind == "warning" && e.tunable == "refill.threshold" &&
                   e.message.find("rx_free_thresh") != std::string::npos;
    }
    QCOMPARE(restarts, 2); // the failed one is a warning and a rollback, not a restart
    QCOMPARE(ignored, 1);
}

void TstDpdk::mbufPoolOnHugePagesUnlessAskedOtherwise()
{
    // io between two net_null ports; the pool says where it is when it is built.
    const ParamSet ps = params({{"fwd.mode", "io"}, {"poll.mode", "busy"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0+net_null1"), EngineOptions{50'000'000});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(4));
    QVERIFY(engine.apply({{"rx.pool_memory", "eal"}}, "test").ok());
    const std::size_t at = c->samples().size();
    QVERIFY(c->waitSamples(at + 4));
    QVERIFY(engine.apply({{"rx.pool_memory", "eal_paged"}}, "test").ok());
    const std::size_t paged = c->samples().size();
    QVERIFY(c->waitSamples(paged + 4));
    engine.stop();
    QStringList pools;
    for (const auto &e : c->events())
        if (e.kind == "device" && e.message.rfind("mbuf pool ", 0) == 0)
            pools << QString::fromStdString(e.message);
    QCOMPARE(pools.size(), 3);
    // The default: packed on memory advised for transparent huge pages, and unless the kernel
    // has them off, backed by them (4096 mbufs of 2.5 KB: 10 MB).
    QVERIFY2(pools[0].contains("4096 mbufs packed on 10 MB advised for 2 MB transparent huge "
                               "pages"),
             qPrintable(pools[0]));
    QFile thp("/sys/kernel/mm/transparent_hugepage/enabled");
    if (thp.open(QIODevice::ReadOnly) && !thp.readAll().contains("[never]"))
        QVERIFY2(!pools[0].contains(", 0 MB of it"), qPrintable(pools[0]));
    // Asked for the EAL's memory: a new pool there, the port restarted, frames still forwarded;
    // then the same memory in DPDK's layout.
    QVERIFY2(pools[1].contains("4096 mbufs packed on the EAL's 4 KB pages"), qPrintable(pools[1]));
    QVERIFY2(pools[2].contains("on the EAL's 4 KB pages, one mbuf per page"), qPrintable(pools[2]));
    const auto s = c->samples();
    for (std::size_t k : {at + 2, paged + 2}) {
        QVERIFY(s[k]->rateOf(CounterId::TxPackets) > 0);
        QCOMPARE(s[k]->totalOf(CounterId::TxFull), std::uint64_t{0});
    }
}

void TstDpdk::mbufPoolLayouts()
{
    if (auto st = dpdk::Eal::init({}, {}); !st.ok()) QFAIL(st.error.c_str());
    // Where each mbuf of a pool lies (header to trailer): the 4 KB pages its start falls in,
    // how many cross a page boundary, and whether each is in the EAL's memory.
    struct Layout {
        std::set<std::uintptr_t> startPages;
        std::size_t objects = 0, crossing = 0, inEal = 0;
    };
    auto layoutOf = [](PoolMemory memory, bool &packed) {
        dpdk::MbufPool pool("layout" + std::to_string(static_cast<int>(memory)), 1024, memory);
        packed = pool.packed();
        Layout l;
        rte_mempool_obj_iter(
            pool.mempool(),
            [](rte_mempool *mp, void *arg, void *obj, unsigned) {
                auto &out = *static_cast<Layout *>(arg);
                const auto at = reinterpret_cast<std::uintptr_t>(obj);
                const std::uintptr_t first = at - mp->header_size,
                                     last = at + mp->elt_size + mp->trailer_size - 1;
                ++out.objects;
                out.startPages.insert(first >> 12);
                out.crossing += (first >> 12) != (last >> 12);
                out.inEal += rte_mem_virt2memseg(obj, nullptr) != nullptr;
            },
            &l);
        return l;
    };
    bool packed = false;
    if (rte_eal_has_hugepages()) {
        // With hugepages every pool is the EAL's, in DPDK's layout, whatever was asked.
        for (PoolMemory m : {PoolMemory::Eal, PoolMemory::EalPaged, PoolMemory::Thp}) {
            const Layout l = layoutOf(m, packed);
            QVERIFY(!packed);
            QCOMPARE(l.inEal, l.objects);
        }
        return;
    }
    // eal: packed back to back across the EAL's pages, 1.6 mbufs (2,496 bytes each) a page.
    const Layout eal = layoutOf(PoolMemory::Eal, packed);
    QVERIFY(packed);
    QCOMPARE(eal.objects, std::size_t{1024});
    QCOMPARE(eal.inEal, eal.objects);
    QVERIFY2(eal.startPages.size() < 700, qPrintable(QString::number(eal.startPages.size())));
    QVERIFY2(eal.crossing > 100, qPrintable(QString::number(eal.crossing)));
    // eal_paged, DPDK's layout (testpmd's default pool): each mbuf within a page of its own.
    const Layout paged = layoutOf(PoolMemory::EalPaged, packed);
    QVERIFY(!packed);
    QCOMPARE(paged.objects, std::size_t{1024});
    QCOMPARE(paged.inEal, paged.objects);
    QCOMPARE(paged.startPages.size(), std::size_t{1024});
    QCOMPARE(paged.crossing, std::size_t{0});
}

void TstDpdk::livePollModeChangeCutsIdleWakeups()
{
    // An idle port (no-rx=1): every poll is empty, so the poll thread's wakeups are the
    // sleep policy's.
    const ParamSet ps =
        params({{"poll.mode", "sleep"}, {"poll.sleep_min_us", "20"}, {"poll.sleep_max_us", "40"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0,no-rx=1"), EngineOptions{100'000'000});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(8));
    QVERIFY(
        engine.apply({{"poll.sleep_min_us", "2000"}, {"poll.sleep_max_us", "2500"}}, "test").ok());
    const std::size_t at = c->samples().size();
    QVERIFY(c->waitSamples(at + 8));
    engine.stop();
    const auto s = c->samples();
    auto wakeups = [&](std::size_t from, std::size_t to) {
        return medianOf(s, from, to, [](const Sample &x) {
            const ThreadStat *t = x.thread("poll");
            return t ? t->wakeupsPerS : NAN;
        });
    };
    const double before = wakeups(2, at), after = wakeups(at + 2, at + 8);
    QVERIFY2(before > 2000, qPrintable(QString::number(before)));
    QVERIFY2(after < 600 && after > 100, qPrintable(QString::number(after)));
    QVERIFY(s[at + 4]->rateOf(CounterId::EmptyPolls) > 0);
    QCOMPARE(s[at + 4]->rateOf(CounterId::RxPackets), 0.0);
}

void TstDpdk::pmdPauseIsDpdksOwnPowerManagement()
{
    // An idle port: busy polling spins through empty polls; DPDK's PAUSE management pauses
    // 1 us per empty poll once 512 came in a row, so the same thread polls far less often.
    const ParamSet ps = params({{"poll.mode", "busy"}});
    Engine engine(ps, dpdkPorts("dpdk:net_null0,no-rx=1"), EngineOptions{100'000'000});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(6));
    QVERIFY(engine.apply({{"poll.mode", "pmd_pause"}}, "test").ok());
    const std::size_t at = c->samples().size();
    QVERIFY(c->waitSamples(at + 6));
    QVERIFY(engine.apply({{"poll.mode", "busy"}}, "test").ok());
    const std::size_t back = c->samples().size();
    QVERIFY(c->waitSamples(back + 4));
    engine.stop();
    const auto s = c->samples();
    auto polls = [&](std::size_t from, std::size_t to) {
        return medianOf(s, from, to, [](const Sample &x) { return x.rateOf(CounterId::Polls); });
    };
    const double busy = polls(2, at), paused = polls(at + 2, at + 6);
    // Each paused empty poll costs at least 1 us: at most about a million a second (2e6 with
    // margin), and well below busy polling (a debug or sanitizer build polls slower, so not a fixed
    // ratio).
    QVERIFY2(paused < 2e6 && paused < 0.5 * busy,
             qPrintable(QString("%1 vs %2 polls/s").arg(paused).arg(busy)));
    QVERIFY(polls(back + 2, back + 4) > 0.5 * busy); // and off again
    int enabled = 0, disabled = 0;
    for (const auto &e : c->events()) {
        enabled += e.kind == "device" && e.message.find("(PAUSE) enabled") != std::string::npos;
        disabled += e.kind == "device" && e.message.find("disabled") != std::string::npos;
    }
    QCOMPARE(enabled, 1);
    QCOMPARE(disabled, 1);
    // It is DPDK's: the simulated NIC refuses it.
    DeviceOptions sim;
    Engine onSim(ParamSet{}, deviceFactory(sim), EngineOptions{});
    const Status st = onSim.apply({{"poll.mode", "pmd_pause"}}, "test");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("simulated NIC") != std::string::npos, st.error.c_str());
}

void TstDpdk::portRefusesWhatItCannotDo()
{
    Engine engine(ParamSet{}, dpdkPorts("dpdk:net_null0"), EngineOptions{});
    QCOMPARE(engine.deviceInfo().driver, std::string("net_null"));
    Status st = engine.apply({{"refill.context", "thread"}}, "test");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("rte_eth_rx_burst") != std::string::npos, st.error.c_str());
    st = engine.apply({{"poll.mode", "interrupt"}}, "test");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("no RX interrupts") != std::string::npos, st.error.c_str());
    QCOMPARE(engine.params().text(TunableId::PollMode), std::string("sleep")); // unchanged
    st = engine.apply({{"fwd.mode", "txonly"}, {"load.frame_bytes", "9000"}}, "test");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("1518") != std::string::npos, st.error.c_str());
    bool loadIgnored = false;
    for (const auto &sup : engine.deviceSupport())
        loadIgnored |= sup.id == TunableId::LoadRatePps && sup.support == Support::Ignored;
    QVERIFY(loadIgnored);
}

void TstDpdk::portsAreAttachedAndDetachedByHotplug()
{
    // One EAL per process; each device attaches its ports and detaches them when it goes, so
    // the same names can be used again.
    for (int round = 0; round < 3; ++round) {
        Engine engine(params({{"fwd.mode", "io"}, {"poll.mode", "busy"}}),
                      dpdkPorts("dpdk:net_null5+net_ring5"), EngineOptions{50'000'000});
        auto c = std::make_shared<SampleCollector>();
        engine.subscribe(c);
        if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
        QVERIFY(c->waitSamples(2));
        engine.stop();
        QVERIFY(c->samples().back()->totalOf(CounterId::TxPackets) > 0);
    }
    // The registry's spec check, before anything is attached.
    DeviceSpec spec;
    QVERIFY(!parseDeviceSpec("dpdk:", spec).ok());
    QVERIFY(!parseDeviceSpec("dpdk:net_null0+net_null1+net_null2", spec).ok());
    QVERIFY(!parseDeviceSpec("dpdk:net_null0+net_null0", spec).ok());
    QVERIFY(!parseDeviceSpec("nic0", spec).ok());
    QVERIFY(parseDeviceSpec("dpdk:0000:03:00.0", spec).ok());
    QCOMPARE(spec.ports.front(), std::string("0000:03:00.0"));
    QVERIFY(parseDeviceSpec("dpdk:net_tap0,iface=rl0+net_tap1,iface=rl1", spec).ok());
    QCOMPARE(spec.ports.size(), std::size_t{2});
}

// Issue 45 item 1: net_af_packet puts its interface in promiscuous mode while it runs; the
// run puts it back, so that lo is as the run found it (it stayed promiscuous).
void TstDpdk::anAfPacketPortLeavesItsInterfaceAsItFoundIt()
{
    RINGLAB_REQUIRE(geteuid() == 0, "net_af_packet opens a raw socket: needs root");
    const auto loFlags = [] {
        QFile f("/sys/class/net/lo/flags");
        return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed().toInt(nullptr, 16) : -1;
    };
    const int before = loFlags();
    QVERIFY(before >= 0);
    RINGLAB_REQUIRE(!(before & IFF_PROMISC), "lo is promiscuous already: nothing to put back");
    {
        Engine engine(params({{"fwd.mode", "io"}, {"poll.mode", "sleep"}}),
                      dpdkPorts("dpdk:net_af_packet0,iface=lo"), EngineOptions{50'000'000});
        auto c = std::make_shared<SampleCollector>();
        engine.subscribe(c);
        if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
        QVERIFY(c->waitSamples(2));
        QVERIFY2(loFlags() & IFF_PROMISC, "the port did not make lo promiscuous: nothing tested");
        engine.stop();
    }
    QCOMPARE(loFlags(), before);
}

void TstDpdk::pollEventsAreKeptOrCountedLost()
{
    // The poll thread's events wait for the next reading in a queue of 64; past that, a
    // reading says how many were lost rather than blocking the poll thread.
    dpdk::PollEvents events;
    for (int k = 0; k < 70; ++k)
        events.post({k % 2 ? dpdk::PollEvent::Kind::PassOff : dpdk::PollEvent::Kind::PassOn});
    events.post({dpdk::PollEvent::Kind::PauseFailed, 1, 1, -EINVAL});
    std::vector<std::string> out;
    events.drain(out, {"net_null0", "net_null1"});
    QCOMPARE(out.size(), std::size_t{65});
    QVERIFY(out[0].starts_with("direct pass on"));
    QVERIFY(out[1].starts_with("direct pass off"));
    QCOMPARE(out.back(), std::string("7 poll-thread events lost: more than 64 between two "
                                     "readings"));
    out.clear();
    events.post({dpdk::PollEvent::Kind::PauseFailed, 1, 1, -EINVAL});
    events.drain(out, {"net_null0", "net_null1"});
    QCOMPARE(out.size(), std::size_t{1});
    QVERIFY2(out[0].find("on net_null1 failed: ") != std::string::npos, out[0].c_str());
}

QTEST_GUILESS_MAIN(TstDpdk)
#include "tst_dpdk.moc"
