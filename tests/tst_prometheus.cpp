// SPDX-License-Identifier: GPL-2.0-or-later
// The Prometheus exposition of a run: names and label values escaped; Prometheus's own
// linter (promtool check metrics) accepts a live run's text; and every figure agrees with the
// samples the same run delivered (counters, per-thread CPU, the latency histogram, the
// tunables in force after a live change).
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QProcess>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/metrics_endpoint.h"
#include "drivers/registry_devices.h"
#include "engine/datapath/sampler.h"
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

// What promtool says is wrong with an exposition; empty when nothing.
QString promtoolProblems(const std::string &text)
{
    const QString promtool = QStandardPaths::findExecutable("promtool");
    if (promtool.isEmpty())
        return "promtool is not installed (apt-get install prometheus; packaging/bootstrap.sh "
               "installs it)";
    QProcess check;
    check.start(promtool, {"check", "metrics"});
    if (!check.waitForStarted()) return "promtool did not start";
    check.write(QByteArray::fromStdString(text));
    check.closeWriteChannel();
    if (!check.waitForFinished(30'000)) return "promtool did not finish";
    if (check.exitStatus() == QProcess::NormalExit && check.exitCode() == 0) return {};
    return QString("promtool: %1\n%2")
        .arg(QString::fromUtf8(check.readAll()))
        .arg(QString::fromStdString(text));
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
    void loopbackOnly();
    void coarseBucketsAreConservative();
    void deviceFiguresPassPromtool();
    void prometheusScrapesARun();
    void prometheusScrapesAServedEngineWithItsToken();
    void servedEngineExposesItsBuildWithOrWithoutARun();
};

void TstPrometheus::namesAndLabelsAreEscaped()
{
    QCOMPARE(promLabelValue("a\"b\\c\nd"), std::string("a\\\"b\\\\c\\nd"));
    QCOMPARE(promName("poll.sleep_min_us"), std::string("poll_sleep_min_us"));
    QCOMPARE(promName("9-lives"), std::string("x_lives")); // "__" is Prometheus's own
    QCOMPARE(promName(""), std::string("_"));

    // Before any sample: the run's facts only, and a profile name that needs escaping.
    PrometheusExporter e({0, "sim0", "my \"best\"\nprofile"}, ParamSet{});
    const std::string text = e.text();
    QVERIFY2(text.find("profile=\"my \\\"best\\\"\\nprofile\"") != std::string::npos, text.c_str());
    QVERIFY(text.find("ringlab_rx_packets_total") == std::string::npos);
}

void TstPrometheus::liveRunPassesPromtoolAndAgreesWithItsSamples()
{
    RunSetup setup;
    setup.params = params({{"load.rate_pps", "50000"}});
    setup.profile = "default";
    auto exporter = std::make_shared<PrometheusExporter>(
        PrometheusExporter::RunLabels{0, "sim0", "default"}, setup.params);
    auto c = std::make_shared<Collector>();
    RunService service(registryDevices());
    const Status st = service.start(setup, nullptr, {exporter, c});
    QVERIFY2(st.ok(), st.error.c_str());
    QVERIFY(c->waitSamples(5));
    QVERIFY(
        service.apply({{"poll.sleep_min_us", "300"}, {"poll.sleep_max_us", "400"}}, "test").ok());
    QVERIFY(c->waitSamples(12));
    service.stop(); // both subscribers have every sample now
    const std::string text = exporter->text();

    const QString problems = promtoolProblems(text);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));

    const auto m = parseExposition(text);
    const auto samples = c->samples();
    QVERIFY(samples.size() >= 12);
    const Sample &last = *samples.back();
    QCOMPARE(at(m, "ringlab_rx_packets_total"), double(last.totalOf(CounterId::RxPackets)));
    QVERIFY(at(m, "ringlab_rx_packets_total") > 0);
    for (CounterId cause : kDropCauses)
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

void TstPrometheus::loopbackOnly()
{
    std::string host;
    int port = -1;
    QVERIFY(parseLoopbackListen("127.0.0.1:9187", host, port).ok());
    QCOMPARE(host, std::string("127.0.0.1"));
    QCOMPARE(port, 9187);
    QVERIFY(parseLoopbackListen("[::1]:0", host, port).ok());
    QCOMPARE(host, std::string("::1"));
    QVERIFY(parseLoopbackListen("localhost:80", host, port).ok());
    for (const char *bad : {"0.0.0.0:9187", "198.18.0.1:1", "127.0.0.1:99999", "127.0.0.1:", "9187",
                            ":9187", "127.0.0.1:x", "lab1:9187"}) {
        const Status st = parseLoopbackListen(bad, host, port);
        QVERIFY2(!st.ok(), bad);
        QVERIFY2(st.error.find(bad) != std::string::npos &&
                     st.error.find("loopback") != std::string::npos,
                 st.error.c_str());
    }
}

namespace {
int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0)
        qFatal("no free port: %s", strerror(errno));
    ::close(fd);
    return ntohs(a.sin_port);
}

// One instant-vector query; the results, or an empty array.
nlohmann::json query(httplib::Client &prom, const std::string &q)
{
    const auto r = prom.Get("/api/v1/query", httplib::Params{{"query", q}}, httplib::Headers{});
    if (!r || r->status != 200) return nlohmann::json::array();
    const auto j = nlohmann::json::parse(r->body, nullptr, false);
    if (j.is_discarded() || j.value("status", "") != "success") return nlohmann::json::array();
    return j["data"]["result"];
}

// A real Prometheus scraping every second with `scrapeConfigs` (YAML list items); the port
// its query API answers on, or 0.
int startPrometheus(QProcess &prom, const QTemporaryDir &dir, const QString &scrapeConfigs)
{
    const QString bin = QStandardPaths::findExecutable("prometheus");
    if (bin.isEmpty()) return 0;
    const int port = freePort();
    const QString config = dir.filePath("prometheus.yml");
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly)) return 0;
    f.write(("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n" +
             scrapeConfigs)
                .toUtf8());
    f.close();
    prom.setProcessChannelMode(QProcess::MergedChannels);
    prom.start(bin, {"--config.file=" + config, "--storage.tsdb.path=" + dir.filePath("data"),
                     QString("--web.listen-address=127.0.0.1:%1").arg(port), "--log.level=warn"});
    return prom.waitForStarted() ? port : 0;
}

// The port a started engine says it serves on (its standard error, matched by `at`), or 0.
int announcedPort(QProcess &engine, const QRegularExpression &at)
{
    QString err;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 30'000 && engine.state() != QProcess::NotRunning) {
        engine.waitForReadyRead(200);
        err += QString::fromUtf8(engine.readAllStandardError());
        if (const auto m = at.match(err); m.hasMatch()) return m.captured(1).toInt();
    }
    qWarning("%s", qPrintable(err));
    return 0;
}

// Kills what is still running when the test ends, however it ends.
auto killAtEnd(std::initializer_list<QProcess *> processes)
{
    return qScopeGuard([list = std::vector<QProcess *>(processes)] {
        for (QProcess *p : list)
            if (p->state() != QProcess::NotRunning) {
                p->kill();
                p->waitForFinished(10'000);
            }
    });
}

double firstValue(const nlohmann::json &result)
{
    return std::stod(result.at(0).at("value").at(1).get<std::string>());
}
} // namespace

void TstPrometheus::prometheusScrapesARun()
{
    const QString prometheusBin = QStandardPaths::findExecutable("prometheus");
    if (prometheusBin.isEmpty())
        QFAIL("prometheus is not installed (apt-get install prometheus; packaging/bootstrap.sh "
              "installs it)");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    // The engine serves its run on a free loopback port and says which.
    QProcess engine, prom;
    const auto cleanup = killAtEnd({&prom, &engine});
    // Its samples are not read here: a full pipe would stall the sampler.
    engine.setStandardOutputFile(QProcess::nullDevice());
    engine.start(RINGLAB_ENGINE_BIN, {"run", "--duration", "60", "--no-record", "--set",
                                      "load.rate_pps=50000", "--metrics-listen", "127.0.0.1:0"});
    QVERIFY(engine.waitForStarted());
    const int port = announcedPort(
        engine, QRegularExpression("Prometheus metrics at http://127\\.0\\.0\\.1:(\\d+)/metrics"));
    QVERIFY(port > 0);

    httplib::Client direct("127.0.0.1", port);
    auto r = direct.Get("/metrics");
    QVERIFY(r && r->status == 200);
    QVERIFY(r->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0) == 0);
    r = direct.Get("/nothing");
    QVERIFY(r && r->status == 404);

    // A real Prometheus scrapes it every second.
    const int promPort = startPrometheus(
        prom, dir,
        QString("  - job_name: ringlab\n    static_configs:\n      - targets: ['127.0.0.1:%1']\n")
            .arg(port));
    QVERIFY(promPort > 0);
    httplib::Client client("127.0.0.1", promPort);
    client.set_connection_timeout(2, 0);
    client.set_read_timeout(5, 0);

    // Until Prometheus has two scrapes of the run: a rate between the last two (rate() over a
    // window that is not yet full would extrapolate).
    nlohmann::json rate = nlohmann::json::array();
    QTRY_VERIFY_WITH_TIMEOUT(
        !(rate = query(client, "irate(ringlab_rx_packets_total{job=\"ringlab\"}[5s])")).empty(),
        60'000);
    QCOMPARE(firstValue(query(client, "up{job=\"ringlab\"}")), 1.0);
    const double pps = firstValue(rate);
    QVERIFY2(pps > 0.5 * 50'000 && pps < 1.5 * 50'000, qPrintable(QString::number(pps)));
    QVERIFY(firstValue(query(client, "ringlab_thread_cpu_seconds_total{thread=\"poll\"}")) > 0);
    QVERIFY(!query(client, "ringlab_tunables_info{load_rate_pps=\"50000\",poll_mode=\"sleep\"}")
                 .empty());
    QVERIFY(!query(client, "ringlab_dropped_frames_total{cause=\"rx_missed\"}").empty());
    const double p99 =
        firstValue(query(client, "histogram_quantile(0.99, ringlab_latency_seconds_bucket)"));
    QVERIFY2(p99 > 0 && p99 < 1, qPrintable(QString::number(p99)));

    prom.terminate();
    engine.terminate(); // SIGTERM: the run stops cleanly
    QVERIFY(prom.waitForFinished(30'000));
    QVERIFY(engine.waitForFinished(30'000));
    QCOMPARE(engine.exitStatus(), QProcess::NormalExit);
}

void TstPrometheus::prometheusScrapesAServedEngineWithItsToken()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString tokenFile = dir.filePath("token");
    QFile t(tokenFile);
    QVERIFY(t.open(QIODevice::WriteOnly));
    t.write("prometheus-scrape-token-0123456789\n");
    t.close();
    t.setPermissions(QFile::ReadOwner | QFile::WriteOwner);

    QProcess engine, prom;
    const auto cleanup = killAtEnd({&prom, &engine});
    engine.start(RINGLAB_ENGINE_BIN, {"serve", "--listen", "tcp:127.0.0.1:0", "--token-file",
                                      tokenFile, "--no-record"});
    const int port = announcedPort(
        engine, QRegularExpression("serving API v1 at http://127\\.0\\.0\\.1:(\\d+)"));
    QVERIFY(port > 0);
    httplib::Client api("127.0.0.1", port);
    api.set_bearer_token_auth("prometheus-scrape-token-0123456789");
    const auto started =
        api.Post("/v1/run/start", R"({"set":{"load.rate_pps":50000}})", "application/json");
    QVERIFY(started && started->status == 201);
    // Recording nothing, it keeps no database: no sessions, and none found.
    const auto sessions = api.Get("/v1/sessions");
    QVERIFY(sessions && sessions->status == 200);
    QCOMPARE(QByteArray::fromStdString(sessions->body).trimmed(), QByteArray("[]"));
    const auto one = api.Get("/v1/sessions/1");
    QVERIFY(one && one->status == 404);

    // One job with the token file, as a lab's Prometheus is set up; one without.
    const int promPort = startPrometheus(
        prom, dir,
        QString("  - job_name: lab\n    authorization:\n      credentials_file: %1\n"
                "    static_configs:\n      - targets: ['127.0.0.1:%2']\n"
                "  - job_name: stranger\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%2']\n")
            .arg(tokenFile)
            .arg(port));
    QVERIFY2(promPort > 0, "prometheus did not start (packaging/bootstrap.sh installs it)");
    httplib::Client client("127.0.0.1", promPort);
    client.set_connection_timeout(2, 0);
    client.set_read_timeout(5, 0);
    nlohmann::json cpu = nlohmann::json::array();
    QTRY_VERIFY_WITH_TIMEOUT(
        !(cpu = query(client, "ringlab_thread_cpu_seconds_total{job=\"lab\",thread=\"poll\"}"))
             .empty(),
        60'000);
    QVERIFY(firstValue(cpu) > 0);
    QCOMPARE(firstValue(query(client, "up{job=\"lab\"}")), 1.0);
    nlohmann::json stranger = nlohmann::json::array();
    QTRY_VERIFY_WITH_TIMEOUT(!(stranger = query(client, "up{job=\"stranger\"}")).empty(), 30'000);
    QCOMPARE(firstValue(stranger), 0.0); // refused with 401: the token guards the metrics too
}

void TstPrometheus::servedEngineExposesItsBuildWithOrWithoutARun()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString tokenFile = dir.filePath("token");
    QFile t(tokenFile);
    QVERIFY(t.open(QIODevice::WriteOnly));
    t.write("build-info-token-0123456789\n");
    t.close();
    t.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    QProcess engine;
    const auto cleanup = killAtEnd({&engine});
    engine.start(RINGLAB_ENGINE_BIN, {"serve", "--listen", "tcp:127.0.0.1:0", "--token-file",
                                      tokenFile, "--no-record"});
    const int port = announcedPort(
        engine, QRegularExpression("serving API v1 at http://127\\.0\\.0\\.1:(\\d+)"));
    QVERIFY(port > 0);
    httplib::Client api("127.0.0.1", port);
    api.set_bearer_token_auth("build-info-token-0123456789");
    const QRegularExpression build(
        "^ringlab_build_info\\{version=\"[0-9][^\"]*\",revision=\"[^\"]+\"\\} 1$",
        QRegularExpression::MultilineOption);
    const auto scrape = [&](int active) {
        const auto r = api.Get("/metrics");
        if (!r || r->status != 200) return QString("no 200 reply to GET /metrics");
        const QString text = QString::fromStdString(r->body);
        if (!build.match(text).hasMatch()) return "no ringlab_build_info line in:\n" + text;
        if (!text.contains(QString("\nringlab_run_active %1\n").arg(active)))
            return QString("no ringlab_run_active %1 in:\n").arg(active) + text;
        return promtoolProblems(r->body);
    };
    // Before any run: the build and run_active 0, never an empty body.
    QString problems = scrape(0);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    const auto started =
        api.Post("/v1/run/start", R"({"set":{"load.rate_pps":1000}})", "application/json");
    QVERIFY(started && started->status == 201);
    problems = scrape(1);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    const std::string control =
        nlohmann::json::parse(started->body).at("control").get<std::string>();
    const auto stopped = api.Post("/v1/run/stop", {{"X-Ringlab-Control", control}}, "", "");
    QVERIFY(stopped && stopped->status == 200);
    problems = scrape(0); // the last run's series stay, marked as not active
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

void TstPrometheus::coarseBucketsAreConservative()
{
    // ns -> the coarse bucket it must land in (index into kLatencyBucketBoundsUs, 14: above).
    // 5000 ns shares a fine bucket ([4992, 5024) ns) with values above 5 us: it is counted
    // above, never below, its bound.
    const std::pair<std::uint64_t, std::size_t> cases[] = {
        {200, 0},  {3000, 0},    {4991, 0},        {4992, 1},          {5000, 1},
        {9000, 1}, {150'000, 5}, {99'000'000, 13}, {1'000'000'000, 14}};
    Histogram::Snapshot h;
    std::array<std::uint64_t, kLatencyBucketCount> want{};
    for (const auto &[ns, k] : cases) {
        h.counts[Histogram::bucketOf(ns)] += 1;
        want[k] += 1;
    }
    const LatencySummary l = summarizeLatency(h);
    QCOMPARE(l.count, std::uint64_t{std::size(cases)});
    for (std::size_t k = 0; k < kLatencyBucketCount; ++k)
        QVERIFY2(
            l.buckets[k] == want[k],
            qPrintable(QString("bucket %1: %2, want %3").arg(k).arg(l.buckets[k]).arg(want[k])));
}

void TstPrometheus::deviceFiguresPassPromtool()
{
    // Figures of a two-port DPDK device and of iperf3 through the lab, as their devices name
    // them: labels of two families, which Prometheus's linter accepts.
    auto s = std::make_shared<Sample>();
    s->interval = 0.1;
    s->device = {{"port_a_ipackets", "packets", 1000, true},
                 {"port_b_opackets", "packets", 990, true},
                 {"port_b_rx_mbps", "Mbit/s", 12.5, false},
                 {"iperf_jitter_ms", "ms", 0.02, false}};
    s->threads = {{"poll", 100, 10, 50, 120}};
    PrometheusExporter e({3, "net_null0+net_null1", "kni-tick"}, ParamSet{});
    e.onSample(s);
    const std::string text = e.text();
    const QString problems = promtoolProblems(text);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
    const auto m = parseExposition(text);
    QCOMPARE(at(m, "ringlab_device_total{name=\"port_b_opackets\",unit=\"packets\"}"), 990.0);
    QCOMPARE(at(m, "ringlab_device_value{name=\"iperf_jitter_ms\",unit=\"ms\"}"), 0.02);
    QCOMPARE(at(m, "ringlab_thread_poll_gap_max_seconds{thread=\"poll\"}"), 120e-6);
    // A later sample without the thread: no stale gap.
    auto later = std::make_shared<Sample>(*s);
    later->threads = {{"refill", 1, 0.1, 5, -1}};
    e.onSample(later);
    QVERIFY(e.text().find("ringlab_thread_poll_gap_max_seconds{") == std::string::npos);
}

QTEST_GUILESS_MAIN(TstPrometheus)
#include "tst_prometheus.moc"
