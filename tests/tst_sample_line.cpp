// SPDX-License-Identifier: GPL-2.0-or-later
// A sample line (JSON lines, the stream, the API): its format stays the documented one
// (tests/data/sample_line.json, every field set to a value of its own), it reads back into
// the same sample, and a line missing a figure is refused naming it. Every metric of the
// metric table is written in the line unless it is derived from others.
#include <QtTest>

#include <fstream>
#include <limits>

#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_json.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/metrics/summary.h"

using namespace ringlab;
using nlohmann::json;

class TstSampleLine : public QObject {
    Q_OBJECT
  private slots:
    void theLineIsTheDocumentedFormat();
    void aLineReadsBackAsTheSample();
    void aLineMissingAFigureIsRefusedNamingIt_data();
    void aLineMissingAFigureIsRefusedNamingIt();
    void aCountBeyondADoubleIsRefused();
    void figuresWithoutAValueAreLeftOut();
    void everyMetricIsInTheLineUnlessDerived();
    void theSummaryNamesFiguresAsTheSessionDoes();
};

namespace {
// Every field a value no other field has, so that a figure written under another's name shows.
Sample filledSample()
{
    Sample s;
    s.seq = 42;
    s.t = 12.5;
    s.interval = 0.25;
    s.stall = Stall::Sampler;
    for (std::size_t k = 0; k < kCounterCount; ++k) {
        s.rate[k] = 1000.0 * static_cast<double>(k + 1) + 0.5;
        s.total[k] = 100000 * (k + 1) + 7;
    }
    s.rxMbps = 812.25;
    s.txMbps = 798.75;
    s.rate[static_cast<std::size_t>(CounterId::RxBytes)] = s.rxMbps * 1e6 / 8;
    s.rate[static_cast<std::size_t>(CounterId::TxBytes)] = s.txMbps * 1e6 / 8;
    s.latency = {11.5, 19.5, 31.5, 47.5, 63.5, 14.25, 9001, {}};
    s.rtt = {101.5, 109.5, 131.5, 147.5, 163.5, 114.25, 37, {}};
    s.latency.sampleEvery = 16;
    for (std::size_t k = 0; k < kStageSpans; ++k)
        s.stageUs[k] = 1.25 * static_cast<double>(k + 1);
    s.processCpuMsPerS = 612.5;
    s.processCpuPct = 61.25;
    s.machineCpuPct = 73.5;
    s.neighbourCpuMsPerS = 41.5;
    s.engineCpuMsPerS = 598.5;
    s.threads = {{"poll", 512.5, 51.25, 8123.5, 96.5}, {"txclean", 86.5, 8.65, 4321.5, -1}};
    s.poolFree = 3001;
    s.rxPosted = 511;
    s.txPending = 17;
    s.handoffDepth = 9;
    s.rxModerationUs = 33;
    s.txCoalesceUs = 1000;
    s.device = {{"link_mbps", "Mbit/s", 10000, false}, {"port_rx_missed", "packets", 12, true}};
    return s;
}

json golden()
{
    std::ifstream in(RINGLAB_TEST_DATA "/sample_line.json");
    return json::parse(in);
}

Sample readBack(const json &line)
{
    auto s = sampleFromJson(line);
    if (!s.ok()) qFatal("%s", s.error().c_str());
    return std::move(s).value();
}

// Removes the value at a dotted path ("cpu.threads.0.wakeups_per_s").
void erase(json &j, const std::string &path)
{
    json *at = &j;
    std::size_t from = 0;
    for (;;) {
        const std::size_t dot = path.find('.', from);
        const std::string key = path.substr(from, dot - from);
        if (dot == std::string::npos) {
            if (at->is_array())
                at->erase(std::stoul(key));
            else
                at->erase(key);
            return;
        }
        at = at->is_array() ? &(*at)[std::stoul(key)] : &(*at)[key];
        from = dot + 1;
    }
}
} // namespace

void TstSampleLine::theLineIsTheDocumentedFormat()
{
    const json line = toJson(filledSample());
    if (line != golden()) qWarning("the line written:\n%s", line.dump(2).c_str());
    QCOMPARE(line.dump(), golden().dump());
}

void TstSampleLine::aLineReadsBackAsTheSample()
{
    const Sample s = filledSample();
    const Sample back = readBack(toJson(s));
    QCOMPARE(toJson(back).dump(), toJson(s).dump());
    // Every stored figure, by name: what a session records from a line is what it would have
    // recorded from the sample.
    const auto a = flattenSample(s), b = flattenSample(back);
    QCOMPARE(b.size(), a.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
        QCOMPARE(b[k].name, a[k].name);
        QCOMPARE(b[k].thread, a[k].thread);
        QCOMPARE(b[k].unit, a[k].unit);
        QCOMPARE(b[k].value, a[k].value);
    }
}

void TstSampleLine::aLineMissingAFigureIsRefusedNamingIt_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("named");
    QTest::newRow("a rate") << "throughput.rx_pps"
                            << "rx_pps";
    QTest::newRow("a drop cause") << "drops_per_s.rx_missed"
                                  << "rx_missed";
    QTest::newRow("an event") << "events_per_s.timer_arms"
                              << "timer_arms";
    QTest::newRow("a percentile") << "latency_us.p99"
                                  << "p99";
    QTest::newRow("a stage") << "stages_us.handoff"
                             << "handoff";
    QTest::newRow("a thread's figure") << "cpu.threads.0.wakeups_per_s"
                                       << "wakeups_per_s";
    QTest::newRow("a gauge") << "gauges.pool_free"
                             << "pool_free";
    QTest::newRow("a total") << "totals.tx_packets"
                             << "tx_packets";
}

void TstSampleLine::aCountBeyondADoubleIsRefused()
{
    // Counts travel as doubles in the table: one they cannot hold exactly is refused, not
    // rounded (UINT64_MAX would round to 2^64, which no count converts back from).
    json line = toJson(filledSample());
    line["latency_us"]["count"] = std::numeric_limits<std::uint64_t>::max();
    auto s = sampleFromJson(line);
    QVERIFY(!s.ok());
    QVERIFY2(s.error().find("latency_us.count") != std::string::npos, s.error().c_str());
    line["latency_us"]["count"] = std::uint64_t{1} << 53;
    s = sampleFromJson(line);
    QVERIFY2(s.ok(), s.error().c_str());
    QCOMPARE(s.value().latency.count, std::uint64_t{1} << 53);
}

void TstSampleLine::aLineMissingAFigureIsRefusedNamingIt()
{
    QFETCH(QString, path);
    QFETCH(QString, named);
    json line = toJson(filledSample());
    erase(line, path.toStdString());
    const auto s = sampleFromJson(line);
    QVERIFY(!s.ok());
    QVERIFY2(QString::fromStdString(s.error()).contains(named), s.error().c_str());
}

void TstSampleLine::figuresWithoutAValueAreLeftOut()
{
    // No packet completed: no latency figure is stored; a thread that does not poll has no
    // poll gap; no neighbour figure before the first tick.
    Sample s = filledSample();
    s.latency = {};
    s.neighbourCpuMsPerS = -1;
    const json line = toJson(s);
    QVERIFY(!line["cpu"].contains("neighbour_ms_per_s"));
    QVERIFY(!line["cpu"]["threads"][1].contains("poll_gap_max_us"));
    const Sample back = readBack(line);
    for (const auto &m : flattenSample(back)) {
        QVERIFY2(!m.name.starts_with("latency_p") && !m.name.starts_with("stage_"), m.name.c_str());
        QVERIFY(m.name != "neighbour_cpu_ms_per_s");
        QVERIFY(!(m.name == "poll_gap_max_us" && m.thread == "txclean"));
    }
}

void TstSampleLine::everyMetricIsInTheLineUnlessDerived()
{
    // Change one figure at a time: the line changes, unless the metric is derived (its
    // sources are in the line).
    const Sample s = filledSample();
    const std::string before = toJson(s).dump();
    for (const MetricDef &d : metricTable()) {
        if (!d.write && !d.writeThread) continue; // derived
        Sample changed = s;
        if (d.perThread())
            d.writeThread(changed.threads[0], 4242);
        else
            d.write(changed, 4242);
        QVERIFY2(toJson(changed).dump() != before, d.name.c_str());
    }
}

void TstSampleLine::theSummaryNamesFiguresAsTheSessionDoes()
{
    // One name per figure: what a session stores is what the summary reports, a derived
    // metric (one entry of the table) included.
    const Sample s = filledSample();
    RunSummarizer summarizer(0);
    summarizer.add(s);
    const RunSummary r = summarizer.result();
    std::size_t engineFigures = 0;
    for (const MetricValue &m : flattenSample(s)) {
        if (m.thread.empty() && !findMetric(m.name)) {
            QVERIFY2(!r.metrics.count(m.name), m.name.c_str()); // the device's: apart
            continue;
        }
        ++engineFigures;
        QVERIFY2(r.metrics.count(m.label()), m.label().c_str());
        QCOMPARE(r.metrics.at(m.label()).mean, m.value);
    }
    QCOMPARE(r.metrics.size(), engineFigures);
    QCOMPARE(r.metrics.at("rx_per_poll").mean,
             s.rateOf(CounterId::RxPackets) / s.rateOf(CounterId::Polls));
    QCOMPARE(r.metrics.at("cpu_ms_per_s[poll]").mean, 512.5);
    QCOMPARE(r.metrics.at("rtt_p50_us").mean, 101.5);
    // Derived: its sources are in the line, not it.
    QVERIFY(toJson(s).dump().find("rx_per_poll") == std::string::npos);
    // Every entry is a metric a tune or a sweep may name, with a value in this sample or not.
    for (const char *name : {"rx_per_poll", "neighbour_cpu_ms_per_s", "cpu_ms_per_s[poll]"})
        QVERIFY2(isEngineMetric(name), name);
    QVERIFY(!isEngineMetric("rx_per_pol"));
}

QTEST_GUILESS_MAIN(TstSampleLine)
#include "tst_sample_line.moc"
