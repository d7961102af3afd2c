// SPDX-License-Identifier: GPL-2.0-or-later
// The Prometheus exposition of a run: names and label values escaped; Prometheus's own
// linter (promtool check metrics) accepts a live run's text; and every figure agrees with the
// samples the same run delivered (counters, per-thread CPU, the latency histogram, the
// tunables in force after a live change).
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>
#include <algorithm>
#include <map>
#include <sstream>

#include "engine/metrics/prometheus_exporter.h"
#include "engine/run/run_service.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

namespace {
// "name{labels}" -> value, for every sample line of an exposition.
std::map<std::string, double> parseExposition(const std::string &text)
{
    std::map<std::string, double> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const auto space = line.rfind(' ');
        if (space == std::string::npos) qFatal("not a sample line: %s", line.c_str());
        const std::string v = line.substr(space + 1);
        out[line.substr(0, space)] = v == "+Inf" ? INFINITY : std::stod(v);
    }
    return out;
}

double at(const std::map<std::string, double> &m, const std::string &series)
{
    const auto it = m.find(series);
    if (it == m.end()) qFatal("no series %s in the exposition", series.c_str());
    return it->second;
}
} // namespace

class TstPrometheus : public QObject {
    Q_OBJECT
  private slots:
    void namesAndLabelsAreEscaped();
    void liveRunPassesPromtoolAndAgreesWithItsSamples();
};

void TstPrometheus::namesAndLabelsAreEscaped()
{
    QCOMPARE(promLabelValue("a\"b\\c\nd"), std::string("a\\\"b\\\\c\\nd"));
    QCOMPARE(promName("poll.sleep_min_us"), std::string("poll_sleep_min_us"));
    QCOMPARE(promName("9-lives"), std::string("__lives"));
    QCOMPARE(promName(""), std::string("_"));

    // Before any sample: the run's facts only, and a profile name that needs escaping.
    PrometheusExporter e({0, "sim0", "my \"best\"\nprofile"}, ParamSet{});
    const std::string text = e.text();
    QVERIFY2(text.find("profile=\"my \\\"best\\\"\\nprofile\"") != std::string::npos, text.c_str());
    QVERIFY(text.find("ringlab_rx_packets_total") == std::string::npos);
}

void TstPrometheus::liveRunPassesPromtoolAndAgreesWithItsSamples()
{
    const QString promtool = QStandardPaths::findExecutable("promtool");
    if (promtool.isEmpty())
        QFAIL("promtool is not installed (apt-get install prometheus; packaging/bootstrap.sh "
              "installs it)");

    RunSetup setup;
    setup.params = params({{"load.rate_pps", "50000"}});
    setup.profile = "default";
    auto exporter = std::make_shared<PrometheusExporter>(
        PrometheusExporter::RunLabels{0, "sim0", "default"}, setup.params);
    auto c = std::make_shared<Collector>();
    RunService service;
    const StartStatus st = service.start(setup, nullptr, {exporter, c});
    QVERIFY2(st.ok(), st.error.c_str());
    QVERIFY(c->waitSamples(5));
    QVERIFY(
        service.apply({{"poll.sleep_min_us", "300"}, {"poll.sleep_max_us", "400"}}, "test").ok());
    QVERIFY(c->waitSamples(12));
    service.stop(); // both subscribers have every sample now
    const std::string text = exporter->text();

    QProcess check;
    check.start(promtool, {"check", "metrics"});
    QVERIFY(check.waitForStarted());
    check.write(QByteArray::fromStdString(text));
    check.closeWriteChannel();
    QVERIFY(check.waitForFinished(30'000));
    QVERIFY2(check.exitStatus() == QProcess::NormalExit && check.exitCode() == 0,
             qPrintable(QString("promtool: %1\n%2")
                            .arg(QString::fromUtf8(check.readAll()))
                            .arg(QString::fromStdString(text))));

    const auto m = parseExposition(text);
    const auto samples = c->samples();
    QVERIFY(samples.size() >= 12);
    const Sample &last = *samples.back();
    QCOMPARE(at(m, "ringlab_rx_packets_total"), double(last.totalOf(C::RxPackets)));
    QVERIFY(at(m, "ringlab_rx_packets_total") > 0);
    for (C cause : kDropCauses)
        QCOMPARE(at(m, "ringlab_dropped_frames_total{cause=\"" + std::string(counterName(cause)) +
                           "\"}"),
                 double(last.totalOf(cause)));
    QVERIFY(m.count("ringlab_rx_missed_total") == 0); // drops live in one family

    // Per-thread CPU: the samples' rates times their intervals.
    double pollCpuS = 0;
    std::uint64_t latencyCount = 0;
    for (const auto &s : samples) {
        if (const ThreadStat *t = s->thread("poll")) pollCpuS += t->cpuMsPerS * s->interval / 1e3;
        latencyCount += s->latency.count;
    }
    QVERIFY(pollCpuS > 0);
    QVERIFY(std::fabs(at(m, "ringlab_thread_cpu_seconds_total{thread=\"poll\"}") - pollCpuS) <=
            1e-9 * pollCpuS);
    QVERIFY(at(m, "ringlab_thread_poll_gap_max_seconds{thread=\"poll\"}") >= 0);
    QVERIFY(m.count("ringlab_thread_poll_gap_max_seconds{thread=\"sampler\"}") == 0);

    // The latency histogram: every frame counted once, buckets cumulative.
    QCOMPARE(at(m, "ringlab_latency_seconds_count"), double(latencyCount));
    QCOMPARE(at(m, "ringlab_latency_seconds_bucket{le=\"+Inf\"}"), double(latencyCount));
    std::vector<std::pair<double, double>> buckets; // le, count
    const std::string prefix = "ringlab_latency_seconds_bucket{le=\"";
    for (const auto &[series, v] : m)
        if (series.rfind(prefix, 0) == 0) {
            const std::string le = series.substr(prefix.size(), series.size() - prefix.size() - 2);
            buckets.emplace_back(le == "+Inf" ? INFINITY : std::stod(le), v);
        }
    std::sort(buckets.begin(), buckets.end());
    QCOMPARE(buckets.size(), kLatencyBucketCount);
    for (std::size_t k = 0; k + 1 < buckets.size(); ++k) {
        QVERIFY(std::fabs(buckets[k].first - kLatencyBucketBoundsUs[k] / 1e6) <=
                1e-12 * buckets[k].first);
        QVERIFY(buckets[k].second <= buckets[k + 1].second); // cumulative
    }
    QVERIFY(at(m, "ringlab_latency_seconds_sum") > 0);

    // The tunables in force, after the live change.
    bool found = false;
    for (const auto &[series, v] : m)
        if (series.rfind("ringlab_tunables_info{", 0) == 0) {
            found = true;
            QCOMPARE(v, 1.0);
            QVERIFY2(series.find("poll_sleep_min_us=\"300\"") != std::string::npos &&
                         series.find("poll_sleep_max_us=\"400\"") != std::string::npos &&
                         series.find("poll_mode=\"sleep\"") != std::string::npos,
                     series.c_str());
        }
    QVERIFY(found);
}

QTEST_GUILESS_MAIN(TstPrometheus)
#include "tst_prometheus.moc"
