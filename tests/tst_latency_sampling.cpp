// SPDX-License-Identifier: GPL-2.0-or-later
// latency.sample_every: one load frame in N measured, compared with every frame measured on
// the same frames; probes always measured; the samples say the rate, live and in a line.
#include <QtTest>

#include <algorithm>
#include <random>

#include "engine/datapath/latency_stats.h"
#include "engine/datapath/sampler.h"
#include "engine/metrics/sample_json.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstLatencySampling : public QObject {
    Q_OBJECT
  private slots:
    void sampledPercentilesFollowTheExactOnes();
    void probesAreAlwaysMeasured();
    void oneMeansEveryFrame();
    void aBurstCompletingNowTakesItsReading();
    void aBurstMarkedWholeMeasuresTheSameFrames();
    void aRunSaysItsRateAndMeasuresThatShare();
};

namespace {
// A burst of frames with a long-tailed latency (lognormal, median ~20 us, p99 ~200 us) and
// per-stage spans that add up to it, as a loaded queue gives.
struct Frames {
    std::vector<Buffer> bufs;
    std::vector<const Buffer *> ptrs;
    explicit Frames(std::size_t n, unsigned seed, std::size_t probeEvery = 0) : bufs(n)
    {
        std::mt19937_64 rng(seed);
        std::lognormal_distribution<double> lat(std::log(20'000.0), 1.0);
        for (std::size_t k = 0; k < n; ++k) {
            Buffer &b = bufs[k];
            const auto total = static_cast<std::int64_t>(lat(rng));
            for (std::size_t s = 0; s < kStageCount; ++s)
                b.ts[s] = 1'000'000 + total * static_cast<std::int64_t>(s) / (kStageCount - 1);
            b.seq = k;
            b.probe = probeEvery && k % probeEvery == 0;
            ptrs.push_back(&b);
        }
    }
    SampleMarker marker; // the poll loop's
    // Marked as a poll loop marks them (one load frame in `every`, every probe), then
    // recorded in bursts of 64 (a TX clean's), into `st`.
    void record(LatencyStats &st, std::uint32_t every)
    {
        marker.setEvery(every);
        for (Buffer &b : bufs)
            marker.mark(b);
        for (std::size_t k = 0; k < ptrs.size(); k += 64)
            st.record(ptrs.data() + k,
                      static_cast<std::uint32_t>(std::min<std::size_t>(64, ptrs.size() - k)),
                      every);
    }
};

double relative(double a, double b)
{
    return std::abs(a - b) / b;
}
} // namespace

void TstLatencySampling::sampledPercentilesFollowTheExactOnes()
{
    // 200,000 frames: 20 ms of a 10 Mpps run, what one sample interval holds at high rates.
    Frames f(200'000, 7);
    LatencyStats exact, sampled;
    f.record(exact, 1);
    f.record(sampled, 16);
    const auto e = exact.snapshot(), s = sampled.snapshot();
    QCOMPARE(e.sampleEvery, 1u);
    QCOMPARE(s.sampleEvery, 16u);
    const LatencySummary le = summarizeLatency(e.total), ls = summarizeLatency(s.total);
    QCOMPARE(le.count, std::uint64_t{200'000});
    QCOMPARE(ls.count, std::uint64_t{200'000 / 16});
    qInfo("exact p50 %.1f p99 %.1f p99.9 %.1f us; 1 in 16: p50 %.1f p99 %.1f p99.9 %.1f us", le.p50,
          le.p99, le.p999, ls.p50, ls.p99, ls.p999);
    QVERIFY2(relative(ls.p50, le.p50) < 0.03, qPrintable(QString::number(ls.p50)));
    QVERIFY2(relative(ls.p90, le.p90) < 0.05, qPrintable(QString::number(ls.p90)));
    QVERIFY2(relative(ls.p99, le.p99) < 0.10, qPrintable(QString::number(ls.p99)));
    QVERIFY2(relative(ls.mean, le.mean) < 0.05, qPrintable(QString::number(ls.mean)));
    // The stage spans are summed over the same frames as the histogram counts: their means
    // agree too.
    for (std::size_t k = 0; k < kStageSpans; ++k) {
        const double me = static_cast<double>(e.stageNs[k]) / static_cast<double>(le.count);
        const double ms = static_cast<double>(s.stageNs[k]) / static_cast<double>(ls.count);
        QVERIFY2(relative(ms, me) < 0.05,
                 qPrintable(QString("stage %1: %2 against %3").arg(k).arg(ms).arg(me)));
    }
}

void TstLatencySampling::probesAreAlwaysMeasured()
{
    Frames f(10'000, 3, 100); // a probe every 100 frames
    LatencyStats st;
    f.record(st, 64);
    const auto s = st.snapshot();
    QCOMPARE(s.rtt.total(), std::uint64_t{100});
    // Of the 9,900 load frames, one in 64 (the first, then every 64th load frame).
    QCOMPARE(s.total.total(), std::uint64_t{(9'900 + 63) / 64});
}

void TstLatencySampling::oneMeansEveryFrame()
{
    Frames f(1'000, 5, 10);
    LatencyStats st;
    f.record(st, 8);
    f.record(st, 1); // changed live: the marker starts again, every frame
    const auto s = st.snapshot();
    QCOMPARE(s.sampleEvery, 1u);
    QCOMPARE(s.total.total(), std::uint64_t{(900 + 7) / 8 + 900});
    QCOMPARE(s.rtt.total(), std::uint64_t{200});
}

void TstLatencySampling::aBurstMarkedWholeMeasuresTheSameFrames()
{
    // The direct pass marks a burst at once (SampleMarker::measuredFrom) and writes only the
    // measured frames: the same frames as marking them one by one, across bursts of every
    // size and a rate changed between them.
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::uint32_t> size(1, 64), rate(1, 40);
    SampleMarker one, whole;
    std::uint32_t every = 16;
    std::uint64_t measured = 0;
    for (int burst = 0; burst < 5'000; ++burst) {
        if (burst % 500 == 499) every = rate(rng);
        one.setEvery(every);
        whole.setEvery(every);
        const std::uint32_t n = size(rng);
        std::vector<bool> expected(n);
        for (std::uint32_t k = 0; k < n; ++k) {
            Buffer b;
            b.probe = false;
            expected[k] = one.mark(b);
        }
        std::vector<bool> got(n);
        for (std::uint32_t k = whole.measuredFrom(n); k < n; k += whole.every())
            got[k] = true;
        QVERIFY2(
            got == expected,
            qPrintable(QString("burst %1 of %2 frames, 1 in %3").arg(burst).arg(n).arg(every)));
        measured += static_cast<std::uint64_t>(std::count(got.begin(), got.end(), true));
    }
    QVERIFY(measured > 1000); // the bursts did measure frames
}

void TstLatencySampling::aBurstCompletingNowTakesItsReading()
{
    // A DPDK TX buffer completes when handed to the PMD: the clean records the burst with its
    // own reading and no TxDone stamp is read (here: left at a value that would show).
    std::vector<Buffer> bufs(4);
    std::vector<const Buffer *> ptrs;
    for (std::size_t k = 0; k < bufs.size(); ++k) {
        Buffer &b = bufs[k];
        b.len = 60 + static_cast<std::uint32_t>(k);
        b.sampled = k % 2 == 0; // two measured
        for (std::size_t s = 0; s < kStageCount - 1; ++s)
            b.at(static_cast<Stage>(s)) = 1'000'000 + 1'000 * static_cast<std::int64_t>(s);
        b.at(Stage::TxDone) = 999'000'000;
        ptrs.push_back(&b);
    }
    LatencyStats st;
    const std::uint64_t bytes = st.record(ptrs.data(), 4, 2, 1'010'000);
    QCOMPARE(bytes, std::uint64_t{60 + 61 + 62 + 63}); // every frame's, measured or not
    const auto s = st.snapshot();
    QCOMPARE(s.total.total(), std::uint64_t{2});
    // Arrival 1,000,000 to the reading 1,010,000: 10 us each.
    const LatencySummary l = summarizeLatency(s.total);
    QVERIFY2(relative(l.p50, 10.0) < 0.05 && relative(l.max, 10.0) < 0.05,
             qPrintable(QString("p50 %1 max %2 us").arg(l.p50).arg(l.max)));
    for (std::size_t k = 0; k + 1 < kStageSpans; ++k)
        QCOMPARE(s.stageNs[k], std::uint64_t{2 * 1'000});
    // The last span runs from TX posted (1,004,000) to the reading.
    QCOMPARE(s.stageNs[kStageSpans - 1], std::uint64_t{2 * 6'000});

    // Without a reading, each frame's own TxDone stamp counts.
    LatencyStats own;
    own.record(ptrs.data(), 4, 2);
    QCOMPARE(own.snapshot().stageNs[kStageSpans - 1], std::uint64_t{2 * (999'000'000 - 1'004'000)});
}

void TstLatencySampling::aRunSaysItsRateAndMeasuresThatShare()
{
    Engine engine(
        params(
            {{"load.rate_pps", "200000"}, {"probe.rate_hz", "0"}, {"latency.sample_every", "16"}}),
        simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) QFAIL(st.error.c_str());
    QVERIFY(c->waitSamples(12));
    engine.stop();
    const auto s = c->samples();
    std::uint64_t measured = 0;
    for (std::size_t k = 2; k < s.size(); ++k) {
        QCOMPARE(s[k]->latency.sampleEvery, 16u);
        measured += s[k]->latency.count;
    }
    const std::uint64_t sent =
        s.back()->totalOf(CounterId::TxPackets) - s[1]->totalOf(CounterId::TxPackets);
    QVERIFY2(sent > 50'000, qPrintable(QString::number(sent)));
    // One in 16 of what completed, give or take a clean straddling a sample boundary.
    QVERIFY2(relative(static_cast<double>(measured) * 16, static_cast<double>(sent)) < 0.02,
             qPrintable(QString("%1 measured of %2").arg(measured).arg(sent)));
    // A sample line carries the rate, and a line without it (written before it existed)
    // reads as every frame.
    const nlohmann::json line = toJson(*s.back());
    QCOMPARE(line.at("latency_us").at("sample_every").get<int>(), 16);
    nlohmann::json old = line;
    old["latency_us"].erase("sample_every");
    const auto back = sampleFromJson(old);
    QVERIFY2(back.ok(), back.error().c_str());
    QCOMPARE(back.value().latency.sampleEvery, 1u);
}

QTEST_GUILESS_MAIN(TstLatencySampling)
#include "tst_latency_sampling.moc"
