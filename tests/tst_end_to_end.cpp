// SPDX-License-Identifier: GPL-2.0-or-later
// ringlab-engine as a user runs it: JSON lines with every field, live changes on standard
// input, clear errors for bad input.
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <set>
#include <unistd.h>

#include "engine/profile/reference_cases.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_store.h"
#include "require.h"

class TstEndToEnd : public QObject {
    Q_OBJECT
  private slots:
    // Runs record into the default database: keep it in a scratch directory.
    void initTestCase() { qputenv("XDG_DATA_HOME", dataHome_.path().toLocal8Bit()); }
    void versionAndParams();
    void headlessRunPrintsCompleteSamples();
    void liveSetChangesBehaviour();
    void badInputIsRejected_data();
    void badInputIsRejected();
    void recordedRunIsASession();
    void seedIsStoredAndUnknownMetricIsAnError();
    void invalidUtf8LabelIsKeptAndEscaped();
    void damagedDatabaseIsAnErrorNotACrash();
    void fullDiskMidRunSaysWhatWasLost();
    void readOnlyDatabaseCanBeRead();
    void workbenchRefusesBadSizeAndUnreadableDatabaseWithoutADialog();
    void renderNeedsNoDisplay();
    void workbenchEndsItsSessionOnSigterm();
    void workbenchKeepsCommandLineTrafficForTheLab();
    void reproducePrintsEveryCaseWithVerdicts();
    void engineCpuAgreesHeadlessAndInTheWorkbench();

  private:
    QTemporaryDir dataHome_;
    struct Output {
        QList<QJsonObject> samples, events;
        QJsonObject summary, params;
        QString stderrText;
        int exitCode = -1;
    };
    static void collect(QProcess &p, Output &out);
    // Records `n` short runs into `db` (sessions 1..n).
    static void recordRuns(const QString &db, int n);
};

void TstEndToEnd::collect(QProcess &p, Output &out)
{
    while (p.canReadLine()) {
        const QByteArray line = p.readLine().trimmed();
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        QVERIFY2(err.error == QJsonParseError::NoError, line.constData());
        const QJsonObject o = doc.object();
        const QString type = o.value("type").toString();
        if (type == "sample")
            out.samples << o;
        else if (type == "event")
            out.events << o;
        else if (type == "params")
            out.params = o;
        else if (type == "summary")
            out.summary = o;
        else
            QFAIL(qPrintable("unknown record type in: " + QString(line)));
    }
}

void TstEndToEnd::recordRuns(const QString &db, int n)
{
    for (int k = 0; k < n; ++k) {
        QProcess p;
        p.start(RINGLAB_ENGINE_BIN, {"run", "--duration", "300ms", "--db", db});
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
    }
}

void TstEndToEnd::versionAndParams()
{
    QProcess p;
    p.start(RINGLAB_ENGINE_BIN, {"--version"});
    QVERIFY(p.waitForFinished(10000));
    QVERIFY(p.readAllStandardOutput().startsWith("ringlab-engine 0."));

    p.start(RINGLAB_ENGINE_BIN, {"params", "--json"});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonArray arr = QJsonDocument::fromJson(p.readAllStandardOutput()).array();
    QVERIFY(arr.size() >= 30);
    for (const auto &v : arr) {
        const QJsonObject t = v.toObject();
        for (const char *k :
             {"name", "group", "type", "unit", "apply", "default", "allowed", "help"})
            QVERIFY2(t.contains(k), qPrintable(t.value("name").toString() + " lacks " + k));
    }

    p.start(RINGLAB_ENGINE_BIN, {"params"});
    QVERIFY(p.waitForFinished(10000));
    const QString text = p.readAllStandardOutput();
    QVERIFY(text.contains("refill.threshold"));
    QVERIFY(text.contains("usleep_range"));
}

void TstEndToEnd::headlessRunPrintsCompleteSamples()
{
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(RINGLAB_ENGINE_BIN,
            {"run", "--duration", "2s", "--output", "jsonl", "--set", "probe.rate_hz=50"});
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    Output out;
    collect(p, out);
    QVERIFY2(out.samples.size() >= 18 && out.samples.size() <= 21,
             qPrintable(QString::number(out.samples.size())));
    for (const auto &s : out.samples) {
        for (const char *k : {"seq", "t", "interval", "throughput", "drops_per_s", "events_per_s",
                              "totals", "latency_us", "stages_us", "probe_rtt_us", "cpu", "gauges"})
            QVERIFY2(s.contains(k), k);
        for (const char *k : {"offered_pps", "rx_pps", "rx_mbps", "tx_pps", "tx_mbps"})
            QVERIFY2(s["throughput"].toObject().contains(k), k);
        for (const char *k : {"rx_missed", "alloc_fail", "tx_full", "handoff_full"})
            QVERIFY2(s["drops_per_s"].toObject().contains(k), k);
        for (const char *k : {"polls", "empty_polls", "interrupts", "refill_wakeups", "work_items",
                              "timer_arms", "timer_fires"})
            QVERIFY2(s["events_per_s"].toObject().contains(k), k);
        for (const char *k : {"p50", "p90", "p99", "p999", "max", "count"})
            QVERIFY2(s["latency_us"].toObject().contains(k), k);
        for (const char *k : {"harvest", "handoff", "process", "tx_post", "tx_wire", "total"})
            QVERIFY2(s["stages_us"].toObject().contains(k), k);
        const QJsonObject cpu = s["cpu"].toObject();
        QVERIFY(cpu.contains("process_ms_per_s") && cpu.contains("machine_pct"));
        QStringList names;
        for (const auto &t : cpu["threads"].toArray())
            names << t.toObject()["name"].toString();
        QVERIFY2(names.contains("poll") && names.contains("txclean") && names.contains("sampler"),
                 qPrintable(names.join(",")));
    }
    // The default load (100 kpps) went through, was measured, and took time to do so.
    const QJsonObject mid = out.samples[10];
    QVERIFY(mid["throughput"].toObject()["rx_pps"].toDouble() > 80000);
    QVERIFY(mid["latency_us"].toObject()["p50"].toDouble() > 0);
    QVERIFY(mid["stages_us"].toObject()["harvest"].toDouble() > 0);
    double pollCpu = 0;
    for (const auto &t : mid["cpu"].toObject()["threads"].toArray())
        if (t.toObject()["name"] == "poll") pollCpu = t.toObject()["cpu_ms_per_s"].toDouble();
    QVERIFY(pollCpu > 0);
    int probes = 0;
    for (const auto &s : out.samples)
        probes += s["probe_rtt_us"].toObject()["count"].toInt();
    QVERIFY2(probes >= 80, qPrintable(QString::number(probes)));
    QVERIFY(!out.summary.isEmpty());
    QCOMPARE(out.params["values"].toObject().size(), static_cast<int>(ringlab::kParamCount));
    QCOMPARE(out.params["values"].toObject()["probe.rate_hz"].toString(), QString("50"));
    QVERIFY(out.summary["metrics"].toObject().contains("rx_pps"));
    QCOMPARE(out.events.first()["kind"].toString(), QString("start"));
    QCOMPARE(out.events.last()["kind"].toString(), QString("stop"));
}

void TstEndToEnd::liveSetChangesBehaviour()
{
    QProcess p;
    p.start(RINGLAB_ENGINE_BIN, {"run", "--output", "jsonl", "--set", "poll.sleep_min_us=20",
                                 "--set", "poll.sleep_max_us=40"});
    Output out;
    auto waitSamples = [&](int n) {
        while (out.samples.size() < n) {
            if (!p.waitForReadyRead(10000)) return false;
            collect(p, out);
        }
        return true;
    };
    QVERIFY(waitSamples(10));
    p.write("set poll.sleep_min_us 2000 poll.sleep_max_us 2100\n");
    p.write("set poll.budget 0\n"); // rejected, changes nothing
    const int changedAt = static_cast<int>(out.samples.size());
    QVERIFY(waitSamples(changedAt + 12));
    p.write("show poll\nquit\n");
    QVERIFY(p.waitForFinished(20000));
    collect(p, out);
    QCOMPARE(p.exitCode(), 0);
    const QString err = p.readAllStandardError();
    QVERIFY2(err.contains("ok: poll.sleep_min_us = 2000"), qPrintable(err));
    QVERIFY2(err.contains("error: poll.budget: \"0\" is out of range (allowed: 1..4096 packets)"),
             qPrintable(err));
    QVERIFY2(err.contains("poll.sleep_max_us    = 2100"), qPrintable(err));

    double changeT = -1;
    for (const auto &e : out.events)
        if (e["kind"] == "param" && e["tunable"] == "poll.sleep_min_us") {
            QCOMPARE(e["old"].toString(), QString("20"));
            QCOMPARE(e["new"].toString(), QString("2000"));
            QCOMPARE(e["source"].toString(), QString("script"));
            changeT = e["t"].toDouble();
        }
    QVERIFY(changeT > 0);
    auto pollWakeups = [](const QJsonObject &s) {
        for (const auto &t : s["cpu"].toObject()["threads"].toArray())
            if (t.toObject()["name"] == "poll") return t.toObject()["wakeups_per_s"].toDouble();
        return -1.0;
    };
    double before = 0, after = 0;
    int nb = 0, na = 0;
    for (const auto &s : out.samples) {
        const double t = s["t"].toDouble(), start = t - s["interval"].toDouble();
        if (t < changeT && start > 0.2) before += pollWakeups(s), ++nb;
        if (start > changeT + 0.05) after += pollWakeups(s), ++na;
    }
    QVERIFY(nb >= 5 && na >= 5);
    before /= nb;
    after /= na;
    // 20..40 us sleeps wake thousands of times a second; 2 ms sleeps at most 500 times.
    QVERIFY2(after < 550 && after * 4 < before,
             qPrintable(QString("poll wakeups/s before %1, after %2").arg(before).arg(after)));
}

void TstEndToEnd::badInputIsRejected_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("bad value")
        << QStringList{"run", "--duration", "1s", "--set", "refill.threshold=4096"} << 2
        << "refill.threshold: 4096 is not allowed: must be less than rx.ring_size (1024)";
    QTest::newRow("unknown tunable")
        << QStringList{"run", "--duration", "1s", "--set", "poll.mod=busy"} << 2
        << "did you mean poll.mode?";
    QTest::newRow("no equals") << QStringList{"run", "--set", "poll.mode"} << 2
                               << "expected NAME=VALUE";
    QTest::newRow("bad duration") << QStringList{"run", "--duration", "ten"} << 2
                                  << "is not a duration";
    QTest::newRow("unknown command")
        << QStringList{"frobnicate"} << 2 << "unknown command \"frobnicate\" (allowed: params";
    QTest::newRow("session id past int64")
        << QStringList{"sessions", "show", "18446744073709551616"} << 2
        << "too large for a session id";
    QTest::newRow("missing profile")
        << QStringList{"run", "--profile", "nope"} << 2 << "profile \"nope\" not found";
    QTest::newRow("bad output") << QStringList{"run", "--output", "xml"} << 2 << "xml";
    QTest::newRow("negative seed") << QStringList{"run", "--seed", "-1"} << 2
                                   << "load.seed: \"-1\" is out of range (allowed: 0..2147483647)";
    QTest::newRow("seed past 2^64") << QStringList{"run", "--seed", "18446744073709551616"} << 2
                                    << "load.seed: \"18446744073709551616\" is out of range";
    QTest::newRow("flag with a bad word")
        << QStringList{"run", "--set", "proc.copy=maybe"} << 2
        << "is not a flag (allowed: true or false (also 1/0, on/off, yes/no))";
}

void TstEndToEnd::badInputIsRejected()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QProcess p;
    p.start(RINGLAB_ENGINE_BIN, args);
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    const QString err = p.readAllStandardError();
    QVERIFY2(err.contains(message), qPrintable(err));
    QCOMPARE(p.exitCode(), exitCode);
    QVERIFY(p.readAllStandardOutput().isEmpty()); // nothing ran
}

void TstEndToEnd::recordedRunIsASession()
{
    const QString db = dataHome_.filePath("e2e.db");
    auto run = [&](const QStringList &args, QString *out = nullptr, QString *err = nullptr) {
        QProcess p;
        p.start(RINGLAB_ENGINE_BIN, args);
        p.closeWriteChannel();
        if (!p.waitForFinished(30000)) return -1;
        if (out) *out = p.readAllStandardOutput();
        if (err) *err = p.readAllStandardError();
        return p.exitCode();
    };
    QString out, err;
    QCOMPARE(run({"run", "--duration", "2500ms", "--db", db, "--name", "first", "--set",
                  "load.rate_pps=20000", "--output", "jsonl"},
                 &out, &err),
             0);
    QVERIFY2(err.contains("recorded as session 1 in " + db), qPrintable(err));
    QCOMPARE(run({"run", "--duration", "2500ms", "--db", db, "--name", "second", "--set",
                  "load.rate_pps=20000", "--set", "poll.mode=busy", "--output", "jsonl"}),
             0);
    QCOMPARE(run({"sessions", "list", "--db", db}, &out), 0);
    QVERIFY2(out.contains("first") && out.contains("second") && out.contains("completed"),
             qPrintable(out));
    QCOMPARE(run({"sessions", "show", "1", "--db", db}, &out), 0);
    QVERIFY2(out.contains("segments") && out.contains("load.frame_bytes"), qPrintable(out));
    {
        // The segments' columns are the metric table's default segment columns, as the
        // desktop's segment table opens (keyMetrics), each figure under its heading.
        const QStringList seg = out.section("\nsegments", 1).split('\n');
        QVERIFY2(seg.size() > 2, qPrintable(out));
        const QString &head = seg[1], &row = seg[2];
        qsizetype at = 0;
        for (const char *h : {"rx pps", "engine CPU ms/s", "poll thread wakeups/s",
                              "latency p99 µs", "drops/s", "opened by"}) {
            const qsizetype next = head.indexOf(QString::fromUtf8(h), at);
            QVERIFY2(next > at, qPrintable(QString::fromUtf8(h) + " in " + head));
            QVERIFY2(next < row.size() && row[next] != ' ' && row[next - 1] == ' ',
                     qPrintable(QString::fromUtf8(h) + ": " + head + "\n" + row));
            at = next;
        }
        QVERIFY2(row.trimmed().startsWith("1 ") && row.endsWith("start"), qPrintable(row));
    }
    QCOMPARE(run({"sessions", "export", "2", "--format", "csv", "--db", db}, &out), 0);
    const QStringList lines = out.split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() >= 14 && lines[0].startsWith("seq,t,interval,"),
             qPrintable(lines.value(0)));
    QCOMPARE(run({"compare", "1", "2", "--warmup", "500ms", "--db", db}, &out), 0);
    // Busy polling costs the poll thread far more CPU than 100..200 us sleeps: found, with
    // direction. A light load keeps the sleeping poll thread well below a core (about 280
    // against 960 ms/s here, +-30): at the default 100 kpps it sat near 700 ms/s, and on a
    // busy CI machine busy polling did not stand out of 2.5 s of noise.
    QVERIFY2(out.contains(QRegularExpression(
                 "cpu_ms_per_s\\[poll\\].*\\(lower is better\\), significant: B is worse")),
             qPrintable(out));
    QCOMPARE(run({"sessions", "delete", "1", "--db", db}, nullptr, &err), 0);
    QCOMPARE(run({"sessions", "show", "1", "--db", db}, nullptr, &err), 2);
    QVERIFY2(err.contains("no session 1 in"), qPrintable(err));
    // Repeats say where they are.
    QCOMPARE(run({"run", "--repeat", "2", "--duration", "300ms", "--no-record"}, nullptr, &err), 0);
    QVERIFY2(err.contains("run 1 of 2, about 0.6 s left") && err.contains("run 2 of 2"),
             qPrintable(err));
    QCOMPARE(run({"run", "--duration", "1s", "--db", "/proc/nope/x.db"}, nullptr, &err), 1);
    QVERIFY2(err.contains("cannot record: database /proc/nope/x.db"), qPrintable(err));
}

void TstEndToEnd::seedIsStoredAndUnknownMetricIsAnError()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("s.db");
    for (const char *seed : {"7", "2147483647"}) {
        QProcess p;
        p.start(RINGLAB_ENGINE_BIN, {"run", "--duration", "300ms", "--db", db, "--seed", seed});
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
    }
    ringlab::SessionStore store(db.toStdString());
    const auto sessions = store.list();
    QCOMPARE(sessions.size(), std::size_t{2});
    auto seedOf = [&](std::int64_t id) {
        for (const auto &[name, value] : store.params(id))
            if (name == "load.seed") return value;
        return std::string("(none)");
    };
    QCOMPARE(seedOf(sessions[0].id), std::string("7"));
    QCOMPARE(seedOf(sessions[1].id), std::string("2147483647"));

    // A metric that is not there is an error before any table is printed.
    QProcess cmp;
    cmp.start(RINGLAB_ENGINE_BIN, {"compare", "1", "2", "--metric", "nosuch", "--db", db});
    QVERIFY(cmp.waitForFinished(30000));
    QCOMPARE(cmp.exitCode(), 2);
    QVERIFY(cmp.readAllStandardOutput().isEmpty());
    QVERIFY(cmp.readAllStandardError().contains("metric \"nosuch\" is not in both sides"));
}

void TstEndToEnd::reproducePrintsEveryCaseWithVerdicts()
{
    const QString db = dataHome_.filePath("reproduce.db");
    // An unknown case names the allowed ones, and nothing runs.
    QProcess bad;
    bad.start(RINGLAB_ENGINE_BIN, {"reproduce", "stmmacc", "--db", db});
    QVERIFY(bad.waitForFinished(30000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains(
        "unknown case \"stmmacc\" (allowed: stmmac, mhi, zephyr, ocelot, kni, all)"));

    // Short runs: this checks the command, not the cases' figures (docs/experiments.md has
    // those, from 5 s runs).
    QProcess p;
    p.start(RINGLAB_ENGINE_BIN, {"reproduce", "all", "--repeat", "3", "--duration", "700ms",
                                 "--warmup", "200ms", "--db", db});
    QVERIFY(p.waitForFinished(180000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(p.exitCode() == 0, qPrintable(p.readAllStandardError()));
    const QStringList verdicts = {"reproduced", "not reproduced: opposite direction",
                                  "not resolvable at this noise", "rises (no seed figure)",
                                  "falls (no seed figure)"};
    for (const auto &c : ringlab::referenceCases()) {
        QVERIFY2(out.contains("== " + QString::fromUtf8(c.name.data(), c.name.size()) + ": "),
                 qPrintable(out));
        for (const auto &m : c.metrics) {
            // Each metric's row ends in one of the verdicts.
            const QString name = QString::fromUtf8(m.name.data(), m.name.size());
            const auto lines = out.split('\n');
            const auto row = std::find_if(lines.begin(), lines.end(), [&](const QString &l) {
                return l.trimmed().startsWith(name + " (");
            });
            QVERIFY2(row != lines.end(), qPrintable(name));
            QVERIFY2(std::any_of(verdicts.begin(), verdicts.end(),
                                 [&](const QString &v) { return row->endsWith(v); }),
                     qPrintable(*row));
        }
    }
    // Each case is two groups of three recorded sessions.
    ringlab::SessionStore store(db.toStdString(), ringlab::Db::Mode::ReadOnly);
    const auto sessions = store.list();
    QCOMPARE(sessions.size(), ringlab::referenceCases().size() * 6);
    std::set<std::string> groups;
    for (const auto &s : sessions) {
        QCOMPARE(QString::fromStdString(s.status), QString("completed"));
        groups.insert(s.runGroup);
        // Each session carries its case's verdicts, for `sessions show`.
        const auto events = store.events(s.id);
        QVERIFY(std::any_of(events.begin(), events.end(), [&](const auto &e) {
            return e.kind == "comparison" && e.message.rfind("reproduce ", 0) == 0 &&
                   s.runGroup.rfind(e.message.substr(0, e.message.find(':')) + " ", 0) == 0;
        }));
    }
    QCOMPARE(groups.size(), ringlab::referenceCases().size() * 2);
}

void TstEndToEnd::workbenchEndsItsSessionOnSigterm()
{
    // The desktop program, running a session (--screenshot starts one), is asked to stop
    // by the system: the session ends as completed, not left running.
    const QString db = dataHome_.filePath("gui-term.db");
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    p.start(RINGLAB_GUI_BIN,
            {"--db", db, "--screenshot", dataHome_.filePath("never.png"), "--duration", "60s"});
    QVERIFY(p.waitForStarted(10000));
    // Wait until the session has samples on disk.
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                 try {
                                     ringlab::SessionStore s(db.toStdString(),
                                                             ringlab::Db::Mode::ReadOnly);
                                     const auto l = s.list();
                                     return !l.empty() && l[0].sampleCount >= 5;
                                 } catch (const ringlab::DbError &) {
                                     return false;
                                 }
                             }()),
                             20000);
    p.terminate(); // SIGTERM
    QVERIFY(p.waitForFinished(20000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    ringlab::SessionStore s(db.toStdString());
    QCOMPARE(s.interruptedOnOpen(), 0);
    QCOMPARE(s.list().at(0).status, std::string("completed"));
}

// Issue 9 item 2: the headline CPU is the engine's (its threads summed), so one profile run
// headless and in the workbench (which draws charts on its GUI thread) agree within noise.
// Before, the workbench's "process" CPU read 62 ms/s where the headless run read 32 (kni-tick).
void TstEndToEnd::engineCpuAgreesHeadlessAndInTheWorkbench()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("cpu.db");
    QProcess engine;
    engine.start(RINGLAB_ENGINE_BIN, {"run", "--profile", "default", "--duration", "5s", "--db", db,
                                      "--name", "headless"});
    engine.closeWriteChannel();
    QVERIFY(engine.waitForFinished(60000));
    QCOMPARE(engine.exitCode(), 0);
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CONFIG_HOME", dir.filePath("config"));
    gui.setProcessEnvironment(env);
    gui.start(RINGLAB_GUI_BIN, {"--profile", "default", "--db", db, "--screenshot",
                                dir.filePath("shot.png"), "--duration", "5s"});
    QVERIFY(gui.waitForFinished(60000));
    QVERIFY2(gui.exitCode() == 0, gui.readAllStandardError().constData());

    ringlab::SessionStore store(db.toStdString());
    const auto sessions = store.list();
    QCOMPARE(sessions.size(), std::size_t{2});
    const auto headlessSide = ringlab::loadCompareSide(store, std::to_string(sessions[0].id), 1.0);
    const auto workbenchSide = ringlab::loadCompareSide(store, std::to_string(sessions[1].id), 1.0);
    QVERIFY(headlessSide.ok() && workbenchSide.ok());
    const ringlab::CompareSide &headless = headlessSide.value(), &workbench = workbenchSide.value();
    std::vector<std::string> missing;
    const auto rows = ringlab::compareSides(
        headless, workbench, {"engine_cpu_ms_per_s", "process_cpu_ms_per_s"}, missing);
    QCOMPARE(rows.size(), std::size_t{2});
    const auto &engineCpu = rows[0];
    QVERIFY2(engineCpu.a.batches >= 3 && engineCpu.b.batches >= 3, "runs too short to judge");
    // Within noise: not significant, or within a half. On a 2-vCPU machine the workbench's
    // GUI thread (its chart drawing, ~30 ms/s here) shares the CPUs with the engine's
    // threads and costs them some: on the Intel VM of 2026-12-05 the workbench read +3 to
    // +28 % over headless in five runs, significant in most; the fault this guards against
    // (the GUI thread counted as the engine's) doubled it (+94 %).
    QVERIFY2(!engineCpu.diff.significant || std::fabs(engineCpu.diff.pct) < 50,
             qPrintable(QString("engine CPU headless %1 ms/s, in the workbench %2 ms/s: %3")
                            .arg(engineCpu.a.mean)
                            .arg(engineCpu.b.mean)
                            .arg(QString::fromStdString(engineCpu.verdict))));
    // The workbench's process does more than its engine: the GUI thread is counted apart.
    QVERIFY(rows[1].b.mean >= engineCpu.b.mean);
    qInfo("engine CPU: headless %.1f ms/s, workbench %.1f ms/s (%+.1f %%); workbench process "
          "%.1f ms/s",
          engineCpu.a.mean, engineCpu.b.mean, engineCpu.diff.pct, rows[1].b.mean);
}

QTEST_GUILESS_MAIN(TstEndToEnd)
void TstEndToEnd::invalidUtf8LabelIsKeptAndEscaped()
{
    // A label that is not UTF-8, typed on stdin under JSON lines: it used to abort the run and
    // leave the session "running".
    QTemporaryDir dir;
    const QString db = dir.filePath("u.db");
    QProcess p;
    p.start(RINGLAB_ENGINE_BIN, {"run", "--duration", "1s", "--output", "jsonl", "--db", db});
    QVERIFY(p.waitForStarted());
    p.write("mark caf\xc3\xa9 \xff\xfe!\n");
    p.write(QByteArray("mark a\0b\n", 9)); // a NUL: kept, not a truncated "a"
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    Output out;
    collect(p, out);
    bool seen = false;
    for (const auto &e : out.events)
        seen |= e["kind"] == "mark" &&
                e["message"].toString() == QString::fromUtf8("caf\u00e9 \\xff\\xfe!");
    QVERIFY2(seen, qPrintable(QString::fromUtf8(p.readAllStandardError())));
    ringlab::SessionStore store(db.toStdString());
    const auto sessions = store.list();
    QCOMPARE(sessions.size(), std::size_t{1});
    QCOMPARE(sessions[0].status, std::string("completed"));
    bool stored = false; // as typed, byte for byte
    for (const auto &e : store.events(sessions[0].id))
        stored |= e.message == "caf\xc3\xa9 \xff\xfe!";
    QVERIFY(stored);
    bool withNul = false;
    for (const auto &e : store.events(sessions[0].id))
        withNul |= e.message == std::string("a\0b", 3);
    QVERIFY(withNul);
    QProcess show;
    show.start(RINGLAB_ENGINE_BIN, {"sessions", "show", "1", "--db", db});
    QVERIFY(show.waitForFinished(30000));
    const QByteArray shown = show.readAllStandardOutput();
    QVERIFY2(shown.contains("mark: a\\x00b\n"), shown.constData());
    QVERIFY2(shown.contains("mark: caf\xc3\xa9 \\xff\\xfe!\n"), shown.constData());
    // Exported as JSON it is valid JSON, the bytes escaped (it used to write 0 bytes, rc 134).
    QProcess exported;
    exported.start(RINGLAB_ENGINE_BIN, {"sessions", "export", "1", "--format", "json", "--db", db});
    QVERIFY(exported.waitForFinished(30000));
    QCOMPARE(exported.exitCode(), 0);
    QJsonParseError err;
    const QJsonObject doc =
        QJsonDocument::fromJson(exported.readAllStandardOutput(), &err).object();
    QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
    bool escaped = false;
    for (const auto &e : doc["events"].toArray())
        escaped |= e.toObject()["message"].toString() == QString::fromUtf8("caf\u00e9 \\xff\\xfe!");
    QVERIFY(escaped);

    // A name with ESC and a newline neither drives the terminal nor breaks the table.
    QProcess named;
    named.start(RINGLAB_ENGINE_BIN, {"run", "--duration", "200ms", "--db", db, "--name",
                                     QString::fromUtf8("a\x1b[31mred\nline")});
    named.closeWriteChannel();
    QVERIFY(named.waitForFinished(30000));
    QProcess list;
    list.start(RINGLAB_ENGINE_BIN, {"sessions", "list", "--db", db});
    QVERIFY(list.waitForFinished(30000));
    const QByteArray table = list.readAllStandardOutput();
    QVERIFY2(table.contains("a\\x1b[31mred\\x0aline"), table.constData());
    QVERIFY(!table.contains('\x1b'));
    QCOMPARE(table.count('\n'), 3); // header and two rows
}

void TstEndToEnd::fullDiskMidRunSaysWhatWasLost()
{
    RINGLAB_REQUIRE(geteuid() == 0, "mounts a small tmpfs: needs root");
    QTemporaryDir dir;
    auto sh = [](const QStringList &args) {
        QProcess p;
        p.start(args.first(), args.mid(1));
        p.waitForFinished(10000);
        return p.exitCode();
    };
    QCOMPARE(sh({"mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", dir.path()}), 0);
    QProcess p;
    // Long enough for several commits (one each 0.5 s) to meet the full disk.
    p.start(RINGLAB_ENGINE_BIN, {"run", "--duration", "4s", "--db", dir.filePath("x.db")});
    p.closeWriteChannel();
    const bool finished = p.waitForFinished(30000);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    sh({"umount", dir.path()});
    QVERIFY(finished);
    QCOMPARE(p.exitCode(), 1);
    // Said as the system says it (SQLite calls ENOSPC met writing its WAL "disk I/O error"),
    // once however many commits fail, then counted; no statement cut inside a word.
    QVERIFY2(err.contains("is incomplete") && err.contains("lost") &&
                 (err.contains("no space left") || err.contains("disk is full")),
             qPrintable(err));
    QVERIFY2(!err.contains("disk I/O error"), qPrintable(err));
    const QStringList lines = err.split('\n', Qt::SkipEmptyParts);
    const auto said = std::count_if(lines.begin(), lines.end(), [](const QString &l) {
        return l.contains("no space left") || l.contains("disk is full");
    });
    QVERIFY2(said <= 2, qPrintable(err)); // the first failure, and the run's closing summary
    QVERIFY2(err.contains(QRegularExpression("\\d+ commits failed in a row")), qPrintable(err));
    QVERIFY(!err.contains("recorded as session"));
}

void TstEndToEnd::readOnlyDatabaseCanBeRead()
{
    // A colleague's file on a read-only share: list, show, export and compare need no write
    // access. Root ignores file modes, so the reads run as nobody.
    RINGLAB_REQUIRE(geteuid() == 0 && !QStandardPaths::findExecutable("setpriv").isEmpty(),
                    "needs root and setpriv to read as another user");
    QTemporaryDir dir;
    QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                          QFileDevice::ExeOther);
    const QString share = dir.filePath("share"), db = share + "/r.db";
    QVERIFY(QDir().mkpath(share));
    recordRuns(db, 2);
    if (QTest::currentTestFailed()) return;
    QFile::setPermissions(db, QFileDevice::ReadOwner | QFileDevice::ReadOther);
    QFile::setPermissions(share, QFileDevice::ReadOwner | QFileDevice::ExeOwner |
                                     QFileDevice::ReadOther | QFileDevice::ExeOther);
    for (const QStringList &cmd :
         {QStringList{"sessions", "list"}, QStringList{"sessions", "show", "1"},
          QStringList{"sessions", "export", "2", "--format", "csv"},
          QStringList{"compare", "1", "2"}}) {
        QProcess p;
        p.setWorkingDirectory(QDir::tempPath());
        p.start("setpriv", QStringList{"--reuid=65534", "--regid=65534", "--clear-groups",
                                       RINGLAB_ENGINE_BIN} +
                               cmd + QStringList{"--db", db});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY2(p.exitCode() == 0,
                 qPrintable(cmd.join(' ') + ": " + QString::fromUtf8(p.readAllStandardError())));
        QVERIFY(!p.readAllStandardOutput().isEmpty());
    }
}

void TstEndToEnd::renderNeedsNoDisplay()
{
    // `ringlab render` on a server (no DISPLAY, no QT_QPA_PLATFORM) once aborted in
    // QApplication: it draws offscreen.
    QTemporaryDir dir;
    const QString db = dir.filePath("r.db"), png = dir.filePath("charts.png");
    recordRuns(db, 1);
    if (QTest::currentTestFailed()) return;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    p.setProcessEnvironment(env);
    p.start(RINGLAB_GUI_BIN, {"render", "1", "--db", db, "-o", png});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    // A PNG: its signature, then the IHDR chunk's width and height (big-endian).
    QFile file(png);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(png));
    const QByteArray head = file.read(24);
    QVERIFY(head.size() == 24 && head.startsWith("\x89PNG\r\n\x1a\n"));
    const auto be32 = [&](int at) { return qFromBigEndian<quint32>(head.constData() + at); };
    QVERIFY2(be32(16) > 400 && be32(20) > 300,
             qPrintable(QString("%1x%2").arg(be32(16)).arg(be32(20))));
}

void TstEndToEnd::damagedDatabaseIsAnErrorNotACrash()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("z.db");
    recordRuns(db, 2);
    if (QTest::currentTestFailed()) return;
    // Zero the first page of the samples table, which SQLite notices only when a query
    // reaches it (page 2 may be a free page, depending on how the schema was built).
    std::int64_t root = 0, pageSize = 0;
    {
        ringlab::SessionStore store(db.toStdString());
        auto q = store.db().prepare("SELECT rootpage, (SELECT page_size FROM pragma_page_size) "
                                    "FROM sqlite_master WHERE name = 'samples'");
        QVERIFY(q.step());
        root = q.i64(0);
        pageSize = q.i64(1);
    }
    QVERIFY(root > 1 && pageSize >= 512);
    {
        QFile f(db);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.seek((root - 1) * pageSize));
        f.write(QByteArray(static_cast<int>(pageSize), '\0'));
    }
    for (const QStringList &args : {QStringList{"sessions", "show", "1", "--db", db},
                                    QStringList{"compare", "1", "2", "--db", db}}) {
        QProcess p;
        p.start(RINGLAB_ENGINE_BIN, args);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("corrupt"));
    }
}

void TstEndToEnd::workbenchRefusesBadSizeAndUnreadableDatabaseWithoutADialog()
{
    // --help and --version need no display (issue 9 item 12).
    for (const char *arg : {"--help", "--version"}) {
        QProcess help;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");
        help.setProcessEnvironment(env);
        help.start(RINGLAB_GUI_BIN, {arg});
        QVERIFY(help.waitForFinished(30000));
        QCOMPARE(help.exitStatus(), QProcess::NormalExit);
        QCOMPARE(help.exitCode(), 0);
        const QByteArray out = help.readAllStandardOutput();
        QVERIFY2(out.contains(qstrcmp(arg, "--help") == 0 ? "--profile" : "ringlab "),
                 out.constData());
    }
    QTemporaryDir dir;
    QFile junk(dir.filePath("random.db"));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write(QByteArray(10000, 'x'));
    junk.close();
    struct Case {
        QStringList args;
        int exitCode;
        const char *message;
    } cases[] = {
        {{"--size", "99999999x99999999", "--screenshot", dir.filePath("a.png")},
         2,
         "is not a window size"},
        {{"--screenshot", dir.filePath("b.png"), "--db", junk.fileName(), "--duration", "1s"},
         1,
         "not a SQLite database"},
        {{"--screenshot", dir.filePath("c.png"), "--traffic", "ping 10.0.0.1"},
         2,
         "\"10.0.0.1\" is not allowed: the lab chooses the destination"},
    };
    for (const auto &c : cases) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        p.setProcessEnvironment(env);
        p.start(RINGLAB_GUI_BIN, c.args);
        QVERIFY(p.waitForFinished(30000)); // a modal dialog would hang here
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), c.exitCode);
        QVERIFY2(QString::fromUtf8(p.readAllStandardError()).contains(c.message), c.message);
    }
}

void TstEndToEnd::workbenchKeepsCommandLineTrafficForTheLab()
{
    // `ringlab --traffic` is the lab's: a run on another device starts without it (it used
    // to fail with "--traffic ... needs --device lab") and is recorded.
    QTemporaryDir dir;
    const QString db = dir.filePath("traffic.db");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    p.start(RINGLAB_GUI_BIN,
            {"--db", db, "--screenshot", dir.filePath("t.png"), "--duration", "1s", "--device",
             "dpdk:net_null0+net_null1", "--traffic", "ping -i 0.02 -c 500"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QVERIFY(QFileInfo(dir.filePath("t.png")).size() > 0);
    ringlab::SessionStore s(db.toStdString(), ringlab::Db::Mode::ReadOnly);
    QCOMPARE(s.list().size(), std::size_t(1));
}

#include "tst_end_to_end.moc"
