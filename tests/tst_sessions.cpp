// SPDX-License-Identifier: GPL-2.0-or-later
// The session store: round trip, migrations, kill -9, bad files, export, compare, import.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/store/recorder.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_report.h"
#include "engine/store/session_store.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;
namespace fs = std::filesystem;

class TstSessions : public QObject {
    Q_OBJECT
  private slots:
    void init() { QVERIFY(dir_.isValid()); }
    void roundTrip();
    void aChangeAfterTheLastSampleOpensNoSegment();
    void everyMetricOfTheTableRoundTrips();
    void migrationFromEmptyAndFromVersion1();
    void foreignSchemaVersionsAreRefused();
    void killDashNineLosesAtMostASecond();
    void badFiles_data();
    void badFiles();
    void fullDiskAndLockedWriter();
    void statementsAreNamedByWholeWords();
    void exportCsvAndJson();
    void csvCellsAreSafe();
    void compareFindsRealDifferencesOnly();
    void compareSaysWhenLatencySamplingDiffers();
    void repeatsAreTheSamples();
    void importMergesWithoutClashes();
    void importRefusesWhatItCannotTrust_data();
    void importRefusesWhatItCannotTrust();
    void deleteRemovesEverything();
    void aVersion5DatabaseGetsCascadingDeletes();
    void idsAreNotReusedAndReusedPidsAreNotAlive();
    void exportNeverDestroysADatabase();
    void exportWriteErrorsFail();
    void importRefusesTheDatabaseItself();
    void aDatabaseReplacedDuringARunIsReported();
    // Last: the kill test forks, and its child records more slowly under ASan from a larger
    // heap (a test before it that made 5,000 samples put it 1.5 s behind its engine).
    void aSessionReadInPartsIsTheSessionReadWhole();

  private:
    struct Ran {
        int code = -1;
        QString err;
    };
    // The real ringlab-engine, to its end; standard output to `out` (a file) when given.
    static Ran engine(const QStringList &args, const QString &out = {})
    {
        QProcess p;
        if (!out.isEmpty()) p.setStandardOutputFile(out);
        p.start(RINGLAB_ENGINE_BIN, args);
        if (!p.waitForFinished(60000)) p.kill();
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardError())};
    }
    static std::size_t sessionsIn(const fs::path &file)
    {
        SessionStore s(file, Db::Mode::ReadOnly);
        return s.list().size();
    }
    fs::path db(const char *name) const { return fs::path(dir_.path().toStdString()) / name; }
    // A synthetic sample: value `rx` for rx_pps, `cpu` for the poll thread's CPU.
    static std::shared_ptr<Sample> sample(std::uint64_t seq, double rx, double cpu)
    {
        auto s = std::make_shared<Sample>();
        s->seq = seq;
        s->t = 0.1 * static_cast<double>(seq + 1);
        s->interval = 0.1;
        s->rate[static_cast<std::size_t>(CounterId::RxPackets)] = rx;
        s->threads.push_back({"poll", cpu, cpu / 10, 1000});
        return s;
    }
    static std::int64_t synthetic(SessionStore &store, const std::string &name, double mean,
                                  double sd, int n, std::uint64_t seed,
                                  const std::string &group = {}, int index = 0)
    {
        SessionInfo info = test::simSession(name, "synthetic");
        info.runGroup = group;
        info.repeatIndex = index;
        const std::int64_t id = store.createSession(info, ParamSet{});
        std::mt19937_64 g(seed);
        std::normal_distribution<double> d(mean, sd);
        std::vector<std::shared_ptr<const Sample>> s;
        for (int k = 0; k < n; ++k)
            s.push_back(sample(static_cast<std::uint64_t>(k), d(g), 100));
        store.append(id, s, {});
        store.finishSession(id, "completed");
        return id;
    }
    QTemporaryDir dir_;
};

// The desktop reads a long session in two parts at once (ui/session_reader): joined, they
// are the session read whole, also with metrics only one part has (a thread that started
// late, one that ended early, a device's figure) and a split that falls anywhere.
void TstSessions::aSessionReadInPartsIsTheSessionReadWhole()
{
    SessionStore store(db("parts.db"));
    SessionInfo info = test::simSession("parts");
    const std::int64_t id = store.createSession(info, ParamSet{});
    std::vector<std::shared_ptr<const Sample>> batch;
    for (std::uint64_t k = 0; k < 600; ++k) {
        auto s = sample(k, 1000.0 + static_cast<double>(k), 50);
        if (k >= 360) s->threads.push_back({"late", 7, 1, 10});
        if (k < 120) s->threads.push_back({"early", 3, 1, 10});
        if (k >= 480) s->device.push_back({"client_mbps", "Mbit/s", 12.5});
        if (k % 97 == 5) s->stall = Stall::Sampler;
        batch.push_back(s);
    }
    store.append(id, batch, {});
    store.finishSession(id, "completed");
    QCOMPARE(store.sampleSeqRange(id), std::make_pair(std::int64_t{0}, std::int64_t{599}));
    const SampleTable whole = store.samples(id);
    auto byLabel = [](const SampleTable &t) {
        std::map<std::string, std::vector<double>> m;
        for (std::size_t c = 0; c < t.metrics.size(); ++c)
            m[t.metrics[c].label() + " " + t.metrics[c].unit] = t.values[c];
        return m;
    };
    const auto expected = byLabel(whole);
    QVERIFY(expected.count("cpu_ms_per_s[late] ms/s") && expected.count("client_mbps Mbit/s"));
    for (std::int64_t split : {1, 119, 120, 300, 480, 599}) {
        SampleTable joined = store.samples(id, std::numeric_limits<std::int64_t>::min(), split);
        joined.append(store.samples(id, split, std::numeric_limits<std::int64_t>::max()));
        QCOMPARE(joined.seq, whole.seq);
        QCOMPARE(joined.t, whole.t);
        QCOMPARE(joined.interval, whole.interval);
        QVERIFY(joined.stall == whole.stall);
        const auto got = byLabel(joined);
        QCOMPARE(got.size(), expected.size());
        for (const auto &[label, values] : expected) {
            const auto it = got.find(label);
            QVERIFY2(it != got.end(), label.c_str());
            QCOMPARE(it->second.size(), values.size());
            for (std::size_t r = 0; r < values.size(); ++r)
                QVERIFY2(std::isnan(values[r]) ? std::isnan(it->second[r])
                                               : it->second[r] == values[r],
                         qPrintable(QString("%1 row %2 split %3")
                                        .arg(QString::fromStdString(label))
                                        .arg(r)
                                        .arg(split)));
        }
    }
    SampleTable none;
    none.append(store.samples(id, 1000, 2000));
    QVERIFY(none.seq.empty() && none.metrics.empty());
}

void TstSessions::roundTrip()
{
    SessionStore store(db("a.db"));
    QCOMPARE(store.schemaVersion(), kSchemaVersion);
    SessionInfo info = test::simSession("round trip");
    ParamSet ps;
    QVERIFY(ps.set("poll.mode", "busy").ok());
    const std::int64_t id = store.createSession(info, ps);
    Event change{0.25, "param", "poll.sleep_min_us", "100", "300", "user", {}};
    Event mark{0.3, "mark", {}, {}, {}, "user", "hello"};
    store.append(id, {sample(0, 1000, 50), sample(1, 2000, 60)}, {change, mark});
    store.append(id, {sample(2, 3000, 70)}, {});
    store.finishSession(id, "completed");

    SessionInfo back;
    QVERIFY(store.get(id, back));
    QCOMPARE(back.name, std::string("round trip"));
    QCOMPARE(back.status, std::string("completed"));
    QCOMPARE(back.sampleCount, std::int64_t{3});
    QCOMPARE(back.meanRxPps, 2000.0);
    QCOMPARE(back.host.hostname, currentHost().hostname);
    QVERIFY(!back.endedAt.empty());
    QCOMPARE(back.uuid.size(), std::size_t{36});
    const auto params = store.params(id);
    QCOMPARE(params.size(), kParamCount);
    QVERIFY((std::find(params.begin(), params.end(),
                       std::pair<std::string, std::string>{"poll.mode", "busy"}) != params.end()));
    const auto changes = store.changes(id);
    QCOMPARE(changes.size(), std::size_t{1});
    QCOMPARE(changes[0].newValue, std::string("300"));
    QCOMPARE(store.events(id).size(), std::size_t{1});
    QCOMPARE(store.events(id)[0].message, std::string("hello"));
    const SampleTable tab = store.samples(id);
    QCOMPARE(tab.seq.size(), std::size_t{3});
    const int rx = tab.column("rx_pps"), cpu = tab.column("cpu_ms_per_s", "poll");
    QVERIFY(rx >= 0 && cpu >= 0);
    QCOMPARE(tab.values[rx][2], 3000.0);
    QCOMPARE(tab.values[cpu][1], 60.0);
    QCOMPARE(tab.column("latency_p50_us"), -1); // no packet, no latency: absent, not zero

    // Segments split at the change; the sample straddling it belongs to neither side. Nothing
    // was measured wholly after this change (the last sample straddles it): no second row.
    const auto segs = segmentsOf(tab, changes, 0.0);
    QCOMPARE(segs.size(), std::size_t{1});
    QCOMPARE(segs[0].rows, (std::vector<std::size_t>{0, 1}));
    QCOMPARE(segs[0].end, changes[0].t);
}

// Issue 46 item 9: the hour session's segment table ended with a row of zero length (a change
// at the last sample's time). A change opens a row once a sample was measured wholly after it.
void TstSessions::aChangeAfterTheLastSampleOpensNoSegment()
{
    SampleTable tab;
    for (int k = 1; k <= 20; ++k) {
        tab.seq.push_back(k);
        tab.t.push_back(0.5 * k);
        tab.interval.push_back(0.5);
    }
    const auto change = [](double t, const char *to) {
        ParamChangeRow c;
        c.t = t;
        c.tunable = "poll.sleep_min_us";
        c.oldValue = "20";
        c.newValue = to;
        return c;
    };
    // At the last sample's end, and inside its interval: neither has a sample of its own.
    for (const double t : {10.0, 9.8, 12.0}) {
        const auto segs = segmentsOf(tab, {change(4.0, "200"), change(t, "2000")}, 0.0);
        QCOMPARE(segs.size(), std::size_t{2});
        QCOMPARE(segs.back().start, 4.0);
        QCOMPARE(segs.back().end, std::min(t, 10.0));
        QVERIFY(!segs.back().rows.empty());
    }
    // One whole sample after it: a row.
    const auto segs = segmentsOf(tab, {change(4.0, "200"), change(9.5, "2000")}, 0.0);
    QCOMPARE(segs.size(), std::size_t{3});
    QCOMPARE(segs.back().rows, (std::vector<std::size_t>{19}));
    QCOMPARE(segs.back().end, 10.0);
}

void TstSessions::everyMetricOfTheTableRoundTrips()
{
    // A sample with a distinct value in every field the metric table reads.
    Sample s;
    s.interval = 0.1;
    for (std::size_t k = 0; k < kCounterCount; ++k)
        s.rate[k] = 10.0 * static_cast<double>(k + 1);
    s.rxMbps = 1.5;
    s.txMbps = 2.5;
    s.latency = {11, 12, 13, 14, 15, 16, 100, {}};
    s.rtt = {21, 22, 23, 24, 25, 26, 10, {}};
    for (std::size_t k = 0; k < kStageSpans; ++k)
        s.stageUs[k] = 30.0 + static_cast<double>(k);
    s.engineCpuMsPerS = 41;
    s.processCpuMsPerS = 42;
    s.machineCpuPct = 43;
    s.neighbourCpuMsPerS = 57;
    s.poolFree = 44;
    s.rxPosted = 45;
    s.txPending = 46;
    s.handoffDepth = 47;
    s.rxModerationUs = 48;
    s.txCoalesceUs = 49;
    s.threads = {{"poll", 51, 5.1, 52, 53}, {"sampler", 54, 5.4, 55, -1}};
    s.device = {{"port_a_ipackets", "packets", 56, true}};

    const auto flat = flattenSample(s);
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto &m : flat) {
        QVERIFY2(seen.insert({m.name, m.thread}).second, m.name.c_str()); // each once
        // Every figure is the table's, except the device's own.
        QVERIFY2(findMetric(m.name) || m.name == "port_a_ipackets", m.name.c_str());
    }
    QVERIFY(seen.count(std::make_pair(std::string("poll_gap_max_us"), std::string("poll"))));
    // Not a polling thread: no gap.
    QVERIFY(!seen.count(std::make_pair(std::string("poll_gap_max_us"), std::string("sampler"))));
    for (const MetricDef &d : metricTable())
        QVERIFY2(seen.count(std::make_pair(d.name, std::string(d.perThread() ? "poll" : ""))),
                 d.name.c_str());

    // Read back as a stored session is: the same figures.
    Sample back;
    for (const auto &m : flat)
        setSampleMetric(back, m.name, m.thread, m.value);
    const auto again = flattenSample(back);
    QCOMPARE(again.size(), flat.size());
    std::map<std::pair<std::string, std::string>, double> want;
    for (const auto &m : flat)
        want[{m.name, m.thread}] = m.value;
    for (const auto &m : again) {
        const auto it = want.find(std::make_pair(m.name, m.thread));
        QVERIFY2(it != want.end() && it->second == m.value, m.name.c_str());
    }
}

void TstSessions::migrationFromEmptyAndFromVersion1()
{
    // An empty file is a database of version 0.
    {
        std::ofstream(db("empty.db"));
    }
    {
        SessionStore store(db("empty.db"));
        QCOMPARE(store.schemaVersion(), kSchemaVersion);
    }
    // A version-1 database, as the first release wrote it, with a session in it.
    {
        // Build v1 by hand: the v1 tables without the v2 columns.
        Db old(db("v1.db"), Db::Mode::ReadWrite);
        old.exec(
            "CREATE TABLE sessions (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, name TEXT "
            "NOT NULL, "
            "created_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL, device TEXT NOT NULL, "
            "profile TEXT "
            "NOT NULL, host_name TEXT NOT NULL DEFAULT '', host_cpu TEXT NOT NULL DEFAULT '', "
            "host_cores INTEGER "
            "NOT NULL DEFAULT 0, host_kernel TEXT NOT NULL DEFAULT '', engine_version TEXT NOT "
            "NULL DEFAULT '', "
            "git_revision TEXT NOT NULL DEFAULT '', interval_s REAL NOT NULL, notes TEXT NOT NULL "
            "DEFAULT '', pid "
            "INTEGER NOT NULL DEFAULT 0);"
            "CREATE TABLE session_params (session_id INTEGER NOT NULL, tunable TEXT NOT NULL, "
            "value TEXT NOT "
            "NULL, PRIMARY KEY (session_id, tunable)) WITHOUT ROWID;"
            "CREATE TABLE param_changes (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL, t "
            "REAL NOT NULL, "
            "tunable TEXT NOT NULL, old_value TEXT NOT NULL, new_value TEXT NOT NULL, source TEXT "
            "NOT NULL);"
            "CREATE TABLE events (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL, t REAL NOT "
            "NULL, kind "
            "TEXT NOT NULL, message TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT '');"
            "CREATE TABLE metrics (id INTEGER PRIMARY KEY, name TEXT NOT NULL, unit TEXT NOT NULL, "
            "thread TEXT "
            "NOT NULL DEFAULT '', UNIQUE (name, thread));"
            "CREATE TABLE sample_times (session_id INTEGER NOT NULL, seq INTEGER NOT NULL, t REAL "
            "NOT NULL, "
            "interval REAL NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;"
            "CREATE TABLE samples (session_id INTEGER NOT NULL, seq INTEGER NOT NULL, metric_id "
            "INTEGER NOT "
            "NULL, value REAL NOT NULL, PRIMARY KEY (session_id, seq, metric_id)) WITHOUT ROWID;"
            "INSERT INTO sessions (uuid, name, created_at, ended_at, status, device, profile, "
            "interval_s) VALUES "
            "('u-1', 'old run', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:05.000Z', "
            "'completed', 'sim0', "
            "'default', 0.1);"
            // A busy machine's samples: one late (0.19 s), its catch-up (0.01 s), and one
            // after the sampler missed a period (0.25 s: a stall).
            "INSERT INTO sample_times VALUES (1, 0, 0.1, 0.1), (1, 1, 0.29, 0.19), "
            "(1, 2, 0.3, 0.01), (1, 3, 0.55, 0.25), (1, 4, 0.65, 0.1);"
            "PRAGMA user_version = 1;");
    }
    fs::copy_file(db("v1.db"), db("v1-copy.db"));
    SessionStore store(db("v1.db"));
    QCOMPARE(store.schemaVersion(), kSchemaVersion);
    const auto all = store.list();
    QCOMPARE(all.size(), std::size_t{1});
    QCOMPARE(all[0].name, std::string("old run"));
    QCOMPARE(all[0].runGroup, std::string()); // the new column, with its default
    // Version 4 judges the stalls of older samples as the sampler does: over two periods.
    const std::vector<Stall> judged = {Stall::None, Stall::None, Stall::None, Stall::Sampler,
                                       Stall::None};
    QVERIFY(store.samples(all[0].id).stall == judged);
    // So does an import of an older file.
    SessionStore other(db("imports-v1.db"));
    QCOMPARE(other.importFrom(db("v1-copy.db")).imported, 1);
    QVERIFY(other.samples(other.list().at(0).id).stall == judged);
    // A newer schema than this build knows is refused with a clear message.
    store.db().exec("PRAGMA user_version = 99");
    try {
        SessionStore newer(db("v1.db"));
        QFAIL("a newer schema was accepted");
    } catch (const DbError &e) {
        QVERIFY2(std::string(e.what()).find("schema version 99 is newer") != std::string::npos,
                 e.what());
    }
}

namespace {
// In the killed child: each sample's time, as the engine hands it to its subscribers, written
// to a pipe the parent reads (never blocking: a full pipe drops a time, the next one counts).
class TimeReporter : public Subscriber {
  public:
    explicit TimeReporter(int fd) : fd_(fd) {}
    void onSample(const std::shared_ptr<const Sample> &s) override
    {
        [[maybe_unused]] auto w = ::write(fd_, &s->t, sizeof s->t);
    }
    void onEvent(const Event &) override {}
    std::string queueName() const override { return "times"; }

  private:
    int fd_;
};
} // namespace

void TstSessions::killDashNineLosesAtMostASecond()
{
    const fs::path file = db("killed.db");
    int ready[2], times[2];
    QVERIFY(pipe(ready) == 0);
    QVERIFY(pipe2(times, O_NONBLOCK) == 0);
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        // The child records a real engine run until it is killed.
        close(ready[0]);
        close(times[0]);
        SessionStore store(file);
        SessionInfo info = test::simSession("to be killed");
        const ParamSet ps;
        const std::int64_t id = store.createSession(info, ps);
        auto rec = std::make_shared<Recorder>(file, id);
        Engine engine(ps, simFactory(), EngineOptions{100'000'000});
        engine.subscribe(rec);
        engine.subscribe(std::make_shared<TimeReporter>(times[1]));
        if (!engine.start().ok()) _exit(1);
        [[maybe_unused]] auto w = write(ready[1], "x", 1);
        for (;;)
            pause();
    }
    close(ready[1]);
    close(times[1]);
    char c;
    QCOMPARE(read(ready[0], &c, 1), ssize_t{1});
    close(ready[0]);
    // The newest sample time the child's engine has published, read from the pipe.
    double measuredS = 0;
    auto drain = [&] {
        double t = 0;
        while (read(times[0], &t, sizeof t) == static_cast<ssize_t>(sizeof t))
            measuredS = std::max(measuredS, t);
    };
    // Let it record for a while: wait until the file holds at least 2 s of samples.
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                 drain();
                                 try {
                                     SessionStore peek(file, Db::Mode::ReadOnly);
                                     const auto l = peek.list();
                                     return !l.empty() && l[0].durationS >= 2.0;
                                 } catch (const DbError &) {
                                     return false;
                                 }
                             }()),
                             20000);
    QCOMPARE(kill(child, SIGKILL), 0);
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY(WIFSIGNALED(status));
    drain(); // what it published up to its death
    close(times[0]);
    QVERIFY(measuredS >= 2.0);

    SessionStore store(file);
    QCOMPARE(store.interruptedOnOpen(), 1);
    {
        auto q = store.db().prepare("PRAGMA integrity_check");
        QVERIFY(q.step());
        QCOMPARE(q.text(0), std::string("ok"));
    }
    const auto all = store.list();
    QCOMPARE(all.size(), std::size_t{1});
    QCOMPARE(all[0].status, std::string("interrupted"));
    QVERIFY(!all[0].endedAt.empty());
    // Its samples reach to at most a second before the newest one the engine had measured
    // when it was killed (the recorder writes every half second). Measured against the
    // engine's own samples, not the wall clock: under ASan on a loaded machine the engine's
    // first samples came seconds after its start, which is not a loss.
    QVERIFY2(
        all[0].durationS >= measuredS - 1.0,
        qPrintable(QString("measured %1 s, recorded %2 s").arg(measuredS).arg(all[0].durationS)));
    // Reopening again finds nothing more to mark.
    SessionStore again(file);
    QCOMPARE(again.interruptedOnOpen(), 0);
}

void TstSessions::badFiles_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expect");
    QTest::newRow("not a database") << "text"
                                    << "not a SQLite database";
    QTest::newRow("read-only location") << "readonly"
                                        << "cannot open the file";
    // A missing folder is made (a fresh ~/.local/share/ringlab); one under a file cannot be.
    QTest::newRow("folder that cannot be made") << "nodir"
                                                << "cannot open the file";
}

void TstSessions::badFiles()
{
    QFETCH(QString, kind);
    QFETCH(QString, expect);
    fs::path file;
    if (kind == "text") {
        file = db("notes.txt");
        std::ofstream(file) << "these are my notes, not a database\n" << std::string(4096, 'x');
    } else if (kind == "readonly") {
        file = "/proc/ringlab-sessions.db"; // read-only even for root
    } else {
        const fs::path notes = db("notes");
        std::ofstream(notes) << "a file where a folder would go\n";
        file = notes / "sessions" / "sessions.db";
        // The folder that can be made is.
        const fs::path fresh = db("fresh/share/ringlab/sessions.db");
        SessionStore{fresh};
        QVERIFY(fs::is_regular_file(fresh));
    }
    try {
        SessionStore store(file);
        QFAIL("a bad file was accepted");
    } catch (const DbError &e) {
        const std::string msg = e.what();
        QVERIFY2(msg.find(file.string()) != std::string::npos, e.what());
        QVERIFY2(msg.find(expect.toStdString()) != std::string::npos, e.what());
    }
    if (kind == "text") { // and the file is left as it was
        std::ifstream in(file);
        std::string first;
        std::getline(in, first);
        QCOMPARE(first, std::string("these are my notes, not a database"));
    }
}

void TstSessions::statementsAreNamedByWholeWords()
{
    // Messages name the statement that failed by its leading words, never cut inside one
    // (they were the SQL's first 40 characters: "executing INSERT INTO samples(session, se").
    QCOMPARE(sqlStatementName("INSERT INTO samples(session, seq, t) VALUES (?, ?, ?)"),
             std::string("INSERT INTO samples"));
    QCOMPARE(sqlStatementName("\n  UPDATE sessions SET status = ? WHERE id = ?"),
             std::string("UPDATE sessions"));
    QCOMPARE(sqlStatementName("SELECT id, name FROM sessions WHERE id = ?"),
             std::string("SELECT ... FROM sessions"));
    QCOMPARE(sqlStatementName("select COALESCE(MAX(t), 0) from sample_times st"),
             std::string("SELECT ... FROM sample_times"));
    QCOMPARE(sqlStatementName("CREATE TABLE IF NOT EXISTS jobs (id INTEGER)"),
             std::string("CREATE TABLE IF NOT EXISTS jobs"));
    QCOMPARE(sqlStatementName("(((("), std::string("a statement"));
    const std::string longName(100, 'x');
    QCOMPARE(sqlStatementName("DELETE FROM " + longName), std::string("DELETE FROM"));
}

void TstSessions::fullDiskAndLockedWriter()
{
    SessionStore store(db("full.db"));
    SessionInfo info = test::simSession("full");
    const std::int64_t id = store.createSession(info, ParamSet{});
    // The database may not grow past its current size: as a full disk does.
    {
        auto q = store.db().prepare("PRAGMA page_count");
        q.step();
        store.db().exec("PRAGMA max_page_count = " + std::to_string(q.i64(0)));
    }
    std::vector<std::shared_ptr<const Sample>> many;
    for (std::uint64_t k = 0; k < 2000; ++k)
        many.push_back(sample(k, 1, 1));
    try {
        store.append(id, many, {});
        QFAIL("writing past a full disk succeeded");
    } catch (const DbError &e) {
        QVERIFY2(std::string(e.what()).find("the disk is full") != std::string::npos, e.what());
        QVERIFY2(std::string(e.what()).find("full.db") != std::string::npos, e.what());
    }
    QCOMPARE(store.samples(id).seq.size(), std::size_t{0}); // all or nothing
    store.db().exec("PRAGMA max_page_count = 1073741823");

    // Another writer holds the database.
    Db other(db("full.db"), Db::Mode::ReadWrite);
    other.exec("BEGIN IMMEDIATE");
    try {
        store.append(id, {sample(0, 1, 1)}, {});
        QFAIL("writing under another writer's lock succeeded");
    } catch (const DbError &e) {
        QVERIFY2(std::string(e.what()).find("locked by another writer") != std::string::npos,
                 e.what());
    }
    other.exec("ROLLBACK");
    store.append(id, {sample(0, 1, 1)}, {});
    QCOMPARE(store.samples(id).seq.size(), std::size_t{1});
}

void TstSessions::exportCsvAndJson()
{
    SessionStore store(db("export.db"));
    SessionInfo info;
    info.name = "=cmd|' /C calc'!A0"; // a name a spreadsheet would run
    info.device = "sim0";
    info.profile = "default";
    info.intervalS = 0.1;
    const std::int64_t id = store.createSession(info, ParamSet{});
    store.append(id, {sample(0, 1500.25, 12.5), sample(1, 1600.5, -0.75)},
                 {Event{0.15, "param", "poll.budget", "64", "32", "user", {}}});
    store.finishSession(id, "completed");

    std::ostringstream csv;
    setlocale(LC_NUMERIC, "de_DE.UTF-8"); // a decimal comma locale, where installed
    exportCsv(store, id, csv);
    setlocale(LC_NUMERIC, "C");
    std::istringstream lines(csv.str());
    std::string header, row0, row1, extra;
    std::getline(lines, header);
    std::getline(lines, row0);
    std::getline(lines, row1);
    QVERIFY(!std::getline(lines, extra) || extra.empty());
    QVERIFY2(header.rfind("seq,t,interval,", 0) == 0, header.c_str());
    // Columns by name.
    std::vector<std::string> cols;
    for (std::stringstream h(header); std::getline(h, extra, ',');)
        cols.push_back(extra);
    auto cell = [&](const std::string &row, const std::string &col) {
        const auto at = std::find(cols.begin(), cols.end(), col) - cols.begin();
        std::stringstream r(row);
        std::string v;
        for (long k = 0; k <= at; ++k)
            std::getline(r, v, ',');
        return v;
    };
    QCOMPARE(cell(row0, "rx_pps"), std::string("1500.25"));
    QCOMPARE(cell(row1, "cpu_ms_per_s[poll]"), std::string("-0.75")); // numbers are not escaped
    QCOMPARE(cell(row0, "t"), std::string("0.1"));
    // Which setting each row measured: segment 1, then none for the sample the change splits.
    QCOMPARE(cell(row0, "segment"), std::string("1"));
    QCOMPARE(cell(row1, "segment"), std::string(""));
    QCOMPARE(cols.size(), static_cast<std::size_t>(std::count(row0.begin(), row0.end(), ',') + 1));

    std::ostringstream js;
    exportJson(store, id, js);
    const auto j = nlohmann::json::parse(js.str());
    QCOMPARE(j["session"]["name"].get<std::string>(), info.name);
    QCOMPARE(j["session"]["host"]["name"].get<std::string>(), currentHost().hostname);
    QCOMPARE(j["params"].size(), kParamCount);
    QCOMPARE(j["param_changes"][0]["new"].get<std::string>(), std::string("32"));
    QCOMPARE(j["samples"].size(), std::size_t{2});
    QCOMPARE(j["samples"][1]["values"]["rx_pps"].get<double>(), 1600.5);
}

void TstSessions::csvCellsAreSafe()
{
    QCOMPARE(csvCell("=SUM(A1)"), std::string("'=SUM(A1)"));
    QCOMPARE(csvCell("+1"), std::string("'+1"));
    QCOMPARE(csvCell("-x"), std::string("'-x"));
    QCOMPARE(csvCell("@cmd"), std::string("'@cmd"));
    QCOMPARE(csvCell("a,b"), std::string("\"a,b\""));
    QCOMPARE(csvCell("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
    QCOMPARE(csvCell("cpu_ms_per_s[kworker/0]"), std::string("cpu_ms_per_s[kworker/0]"));
    QCOMPARE(csvNumber(0.1), std::string("0.1"));
    QCOMPARE(csvNumber(std::nan("")), std::string());
}

void TstSessions::compareFindsRealDifferencesOnly()
{
    SessionStore store(db("compare.db"));
    const auto a = synthetic(store, "a", 1000, 50, 200, 1);
    const auto same = synthetic(store, "same", 1000, 50, 200, 2);
    const auto better = synthetic(store, "better", 1100, 50, 200, 3);
    const auto sideA = loadCompareSide(store, std::to_string(a), 0);
    const auto sideSame = loadCompareSide(store, std::to_string(same), 0);
    const auto sideBetter = loadCompareSide(store, std::to_string(better), 0);
    QVERIFY(sideA.ok() && sideSame.ok() && sideBetter.ok());
    const CompareSide &sa = sideA.value(), &ss = sideSame.value(), &sb = sideBetter.value();
    std::vector<std::string> missing;
    const auto eq = compareSides(sa, ss, {"rx_pps"}, missing);
    QCOMPARE(eq.size(), std::size_t{1});
    QVERIFY2(!eq[0].diff.significant, eq[0].verdict.c_str());
    QCOMPARE(eq[0].verdict, std::string("no significant difference"));
    const auto up = compareSides(sa, sb, {"rx_pps"}, missing);
    QVERIFY(up[0].diff.significant);
    QVERIFY(std::abs(up[0].diff.pct - 10.0) < 2.0);
    QVERIFY2(up[0].verdict.find("(higher is better), significant: B is better") !=
                 std::string::npos,
             up[0].verdict.c_str());
    // The interval covers the true difference (100) and is of the right size: sd 50 over
    // 200 samples gives a standard error of the difference of 5, so about ±10.
    QVERIFY(std::abs(up[0].diff.diff - 100) < up[0].diff.ciHalf + 5);
    QVERIFY2(up[0].diff.ciHalf > 5 && up[0].diff.ciHalf < 25,
             qPrintable(QString::number(up[0].diff.ciHalf)));
    // Bad specifications are explained.
    const auto refusal = [&](const std::string &spec) {
        const auto side = loadCompareSide(store, spec, 0);
        return side.status().outcome() == Outcome::Refused ? side.error() : std::string();
    };
    std::string err = refusal("abc");
    QVERIFY2(err.find("is not a session (ID) or a segment (ID:SEG)") != std::string::npos,
             err.c_str());
    err = refusal("99");
    QVERIFY2(err.find("no session 99") != std::string::npos, err.c_str());
    err = refusal(std::to_string(a) + ":5");
    QVERIFY2(err.find("has 1 segment(s), not 5") != std::string::npos, err.c_str());
}

void TstSessions::compareSaysWhenLatencySamplingDiffers()
{
    const std::string metric(kLatencySampleEveryMetric);
    auto side = [&](std::vector<double> every) {
        CompareSide s;
        if (!every.empty()) s.values[metric] = std::move(every);
        return s;
    };
    auto samplingNote = [](const CompareSide &a, const CompareSide &b) {
        for (const std::string &n : compareNotes(a, b))
            if (n.find("latency.sample_every") != std::string::npos) return n;
        return std::string();
    };
    std::string note = samplingNote(side({1, 1, 1}), side({16, 16}));
    QVERIFY2(note.find("measured on every load frame in A and on 1 load frame in 16 in B") !=
                 std::string::npos,
             note.c_str());
    note = samplingNote(side({16}), side({4, 16}));
    QVERIFY2(note.find("on 1 load frame in 16 in A and on 1 load frame in 4 to 16 in B") !=
                 std::string::npos,
             note.c_str());
    // Alike: nothing to say. A session recorded before the metric existed measured every frame.
    QCOMPARE(samplingNote(side({16, 16}), side({16})), std::string());
    QCOMPARE(samplingNote(side({}), side({1, 1})), std::string());
    QVERIFY(!samplingNote(side({}), side({8})).empty());
}

void TstSessions::repeatsAreTheSamples()
{
    SessionStore store(db("repeats.db"));
    std::int64_t first = 0;
    for (int k = 1; k <= 4; ++k) {
        const auto id =
            synthetic(store, "r", 1000 + k, 5, 50, 10 + static_cast<std::uint64_t>(k), "g1", k);
        if (k == 1) first = id;
    }
    const auto loaded = loadCompareSide(store, std::to_string(first), 0);
    QVERIFY2(loaded.ok(), loaded.error().c_str());
    const CompareSide &side = loaded.value();
    QVERIFY(side.repeats);
    QCOMPARE(side.values.at("rx_pps").size(), std::size_t{4}); // one mean per repeat
    QVERIFY2(side.label.find("group of 4 repeats") == 0, side.label.c_str());
}

void TstSessions::importMergesWithoutClashes()
{
    {
        SessionStore other(db("other.db"));
        synthetic(other, "from elsewhere 1", 10, 1, 20, 5);
        synthetic(other, "from elsewhere 2", 20, 1, 20, 6);
        other.db().exec("UPDATE sessions SET host_name = 'lab-box-7', host_cpu = 'Other CPU'");
    }
    SessionStore store(db("mine.db"));
    synthetic(store, "mine", 30, 1, 20, 7);
    const auto r = store.importFrom(db("other.db"));
    QCOMPARE(r.imported, 2);
    QCOMPARE(r.skipped, 0);
    const auto all = store.list();
    QCOMPARE(all.size(), std::size_t{3});
    QCOMPARE(all[1].name, std::string("from elsewhere 1"));
    QCOMPARE(all[1].host.hostname, std::string("lab-box-7"));
    QCOMPARE(all[1].host.cpuModel, std::string("Other CPU"));
    QCOMPARE(all[2].sampleCount, std::int64_t{20});
    QVERIFY(std::abs(all[2].meanRxPps - 20) < 1);
    QCOMPARE(store.params(all[2].id).size(), kParamCount);
    // Importing again adds nothing.
    const auto again = store.importFrom(db("other.db"));
    QCOMPARE(again.imported, 0);
    QCOMPARE(again.skipped, 2);
    try {
        store.importFrom(db("missing.db"));
        QFAIL("importing a missing file succeeded");
    } catch (const DbError &e) {
        QVERIFY2(std::string(e.what()).find("missing.db: no such file") != std::string::npos,
                 e.what());
    }
}

void TstSessions::importRefusesWhatItCannotTrust_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("message");
    // A recursive view used to make import run for ever; text ids filed rows under session 0.
    QTest::newRow("recursive view")
        << "DROP TABLE sessions; CREATE VIEW sessions AS WITH RECURSIVE r(id) AS (SELECT 1 UNION "
           "ALL SELECT id + 1 FROM r) SELECT id, 'u' || id AS uuid FROM r"
        << "sessions is a view, not a table";
    QTest::newRow("text ids")
        << "CREATE TABLE s2 AS SELECT * FROM sessions; DROP TABLE sessions; CREATE TABLE "
           "sessions AS SELECT * FROM s2; UPDATE sessions SET id = 'x' || id"
        << "table sessions, column id: 2 row(s) hold something other than an integer (e.g. 'x1')";
    QTest::newRow("text sample value")
        << "UPDATE samples SET value = 'high' WHERE session_id = 2 AND seq < 3 AND metric_id = "
           "(SELECT MIN(metric_id) FROM samples)"
        << "table samples, column value: 3 row(s) hold something other than a number";
    QTest::newRow("missing table") << "DROP TABLE events"
                                   << "has no table events";
    QTest::newRow("missing column") << "ALTER TABLE param_changes DROP COLUMN source"
                                    << "table param_changes has no column source";
    QTest::newRow("null name")
        << "CREATE TABLE s2 AS SELECT * FROM sessions; DROP TABLE sessions; CREATE TABLE "
           "sessions AS SELECT * FROM s2; UPDATE sessions SET name = NULL WHERE id = 2"
        << "table sessions, column name: 1 row(s) hold something other than text (e.g. NULL)";
    // The schema's CHECK dropped by hand: a stall that is not one of the engine's.
    QTest::newRow("not a stall")
        << "ALTER TABLE sample_times DROP COLUMN stall; ALTER TABLE sample_times ADD COLUMN "
           "stall TEXT NOT NULL DEFAULT 'poll-ish'"
        << "table sample_times, column stall: 40 row(s) hold a value that is not a stall "
           "(allowed: \"\", \"sampler\")";
}

void TstSessions::importRefusesWhatItCannotTrust()
{
    QFETCH(QString, damage);
    QFETCH(QString, message);
    const std::string tag = QTest::currentDataTag();
    const fs::path bad =
        db(("bad-" + std::to_string(std::hash<std::string>{}(tag)) + ".db").c_str());
    {
        SessionStore other(bad);
        synthetic(other, "a", 10, 1, 20, 5);
        synthetic(other, "b", 20, 1, 20, 6);
        other.db().exec("PRAGMA journal_mode = DELETE");
        // Damaged by hand, as the sqlite3 shell would, whose foreign keys are off.
        other.db().exec("PRAGMA foreign_keys = OFF");
        other.db().exec(damage.toStdString());
    }
    SessionStore store(
        db(("into-" + std::to_string(std::hash<std::string>{}(tag)) + ".db").c_str()));
    synthetic(store, "mine", 30, 1, 20, 7);
    try {
        store.importFrom(bad);
        QFAIL("a database that cannot be trusted was imported");
    } catch (const DbError &e) {
        QVERIFY2(std::string(e.what()).find(message.toStdString()) != std::string::npos, e.what());
        QVERIFY2(std::string(e.what()).find(bad.string()) != std::string::npos, e.what());
    }
    QCOMPARE(store.list().size(), std::size_t{1}); // nothing half-imported
}

void TstSessions::deleteRemovesEverything()
{
    SessionStore store(db("delete.db"));
    const auto keep = synthetic(store, "keep", 1, 1, 10, 1);
    const auto gone = synthetic(store, "gone", 1, 1, 10, 2);
    // A row in every table that holds a session's rows.
    for (const auto id : {keep, gone}) {
        Event change{1.0, "param", "poll.budget", "64", "32", "user", {}};
        Event mark{1.5, "mark", {}, {}, {}, "user", "here"};
        store.append(id, {}, {change, mark});
        Environment env;
        env.facts = {{"kernel.release", "6.1.0-test", {}}};
        store.setEnvironment(id, env);
    }
    const char *const tables[] = {"session_params", "param_changes", "events",
                                  "sample_times",   "samples",       "session_environment"};
    auto rows = [&](const char *table, std::int64_t id) {
        auto q = store.db().prepare(std::string("SELECT COUNT(*) FROM ") + table +
                                    " WHERE session_id = ?1");
        q.bind(1, id);
        return q.step() ? q.i64(0) : -1;
    };
    for (const char *t : tables)
        QVERIFY2(rows(t, gone) > 0, t);
    QVERIFY(store.deleteSession(gone));
    QVERIFY(!store.deleteSession(gone));
    QCOMPARE(store.list().size(), std::size_t{1});
    for (const char *t : tables) {
        QVERIFY2(rows(t, gone) == 0, t); // gone with it (ON DELETE CASCADE)
        QVERIFY2(rows(t, keep) > 0, t);  // the other's untouched
    }
    QCOMPARE(store.samples(keep).seq.size(), std::size_t{10});
    // Nothing can refer to a session that is not there.
    auto orphan = store.db().prepare("INSERT INTO events (session_id, t, kind) VALUES (?1, 0, "
                                     "'mark')");
    orphan.bind(1, gone);
    QVERIFY_THROWS_EXCEPTION(DbError, orphan.run());
}

void TstSessions::aVersion5DatabaseGetsCascadingDeletes()
{
    const fs::path file = db("v5.db");
    std::int64_t keep = 0;
    {
        // Version 5's tables had no foreign keys: one a delete missed is left behind.
        Db old(file, Db::Mode::ReadWrite);
        old.exec(R"sql(
            CREATE TABLE sessions (id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL
                UNIQUE, name TEXT NOT NULL, created_at TEXT NOT NULL, ended_at TEXT, status TEXT
                NOT NULL, device TEXT NOT NULL, profile TEXT NOT NULL, host_name TEXT NOT NULL
                DEFAULT '', host_cpu TEXT NOT NULL DEFAULT '', host_cores INTEGER NOT NULL
                DEFAULT 0, host_kernel TEXT NOT NULL DEFAULT '', engine_version TEXT NOT NULL
                DEFAULT '', git_revision TEXT NOT NULL DEFAULT '', interval_s REAL NOT NULL,
                notes TEXT NOT NULL DEFAULT '', pid INTEGER NOT NULL DEFAULT 0, run_group TEXT
                NOT NULL DEFAULT '', repeat_index INTEGER NOT NULL DEFAULT 0, pid_start INTEGER
                NOT NULL DEFAULT 0, boot_id TEXT NOT NULL DEFAULT '');
            CREATE TABLE session_params (session_id INTEGER NOT NULL, tunable TEXT NOT NULL,
                value TEXT NOT NULL, PRIMARY KEY (session_id, tunable)) WITHOUT ROWID;
            CREATE TABLE param_changes (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL,
                t REAL NOT NULL, tunable TEXT NOT NULL, old_value TEXT NOT NULL, new_value TEXT
                NOT NULL, source TEXT NOT NULL);
            CREATE INDEX param_changes_by_session ON param_changes (session_id, t);
            CREATE TABLE events (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL, t REAL NOT
                NULL, kind TEXT NOT NULL, message TEXT NOT NULL DEFAULT '', source TEXT NOT NULL
                DEFAULT '');
            CREATE INDEX events_by_session ON events (session_id, t);
            CREATE TABLE metrics (id INTEGER PRIMARY KEY, name TEXT NOT NULL, unit TEXT NOT
                NULL, thread TEXT NOT NULL DEFAULT '', UNIQUE (name, thread));
            CREATE TABLE sample_times (session_id INTEGER NOT NULL, seq INTEGER NOT NULL, t REAL
                NOT NULL, interval REAL NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
            ALTER TABLE sample_times ADD COLUMN stall TEXT NOT NULL DEFAULT '' CHECK (stall IN
                ('', 'sampler'));
            CREATE TABLE samples (session_id INTEGER NOT NULL, seq INTEGER NOT NULL, metric_id
                INTEGER NOT NULL, value REAL NOT NULL, PRIMARY KEY (session_id, seq, metric_id))
                WITHOUT ROWID;
            CREATE TABLE session_environment (session_id INTEGER NOT NULL, key TEXT NOT NULL,
                value TEXT NOT NULL DEFAULT '', absent TEXT NOT NULL DEFAULT '', seq INTEGER NOT
                NULL DEFAULT 0, PRIMARY KEY (session_id, key)) WITHOUT ROWID;
            INSERT INTO sessions (id, uuid, name, created_at, ended_at, status, device, profile,
                interval_s) VALUES (1, 'u-1', 'kept', '2026-12-01T10:00:00.000Z',
                '2026-12-01T10:00:02.000Z', 'completed', 'sim0', 'default', 0.1);
            INSERT INTO metrics (id, name, unit) VALUES (1, 'rx_pps', 'pps');
            INSERT INTO session_params VALUES (1, 'poll.budget', '64'), (9, 'poll.budget', '8');
            INSERT INTO param_changes (session_id, t, tunable, old_value, new_value, source)
                VALUES (1, 0.5, 'poll.budget', '64', '32', 'user'), (9, 0.5, 'x', '1', '2', 'u');
            INSERT INTO events (session_id, t, kind, message) VALUES (1, 0.7, 'mark', 'here'),
                (9, 0.7, 'mark', 'lost');
            INSERT INTO sample_times VALUES (1, 0, 0.1, 0.1, ''), (1, 1, 0.2, 0.1, 'sampler'),
                (9, 0, 0.1, 0.1, '');
            INSERT INTO samples VALUES (1, 0, 1, 1000), (1, 1, 1, 1100), (9, 0, 1, 5);
            INSERT INTO session_environment VALUES (1, 'kernel.release', '6.1.0', '', 0),
                (9, 'kernel.release', '6.1.0', '', 0);
            PRAGMA user_version = 5;
        )sql");
    }
    SessionStore store(file);
    QCOMPARE(store.schemaVersion(), kSchemaVersion);
    keep = store.list().at(0).id;
    QCOMPARE(keep, std::int64_t{1});
    // Session 1's rows are all there, in order; session 9's (no such session) are not.
    QCOMPARE(store.samples(keep).seq.size(), std::size_t{2});
    QCOMPARE(store.params(keep).size(), std::size_t{1});
    QCOMPARE(store.changes(keep).size(), std::size_t{1});
    QCOMPARE(store.environment(keep).facts.size(), std::size_t{1});
    for (const char *t : {"session_params", "param_changes", "events", "sample_times", "samples",
                          "session_environment"}) {
        auto q =
            store.db().prepare(std::string("SELECT COUNT(*) FROM ") + t + " WHERE session_id = 9");
        QVERIFY(q.step());
        QVERIFY2(q.i64(0) == 0, t);
        auto fk = store.db().prepare(std::string("SELECT \"table\", on_delete FROM "
                                                 "pragma_foreign_key_list('") +
                                     t + "')");
        QVERIFY2(fk.step(), t);
        QCOMPARE(fk.text(0), std::string("sessions"));
        QCOMPARE(fk.text(1), std::string("CASCADE"));
    }
    // The stall column and the indexes survived the rebuild.
    auto stalls = store.db().prepare("SELECT COUNT(*) FROM sample_times WHERE stall = 'sampler'");
    QVERIFY(stalls.step());
    QCOMPARE(stalls.i64(0), std::int64_t{1});
    auto idx = store.db().prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND "
                                  "name IN ('param_changes_by_session', 'events_by_session')");
    QVERIFY(idx.step());
    QCOMPARE(idx.i64(0), std::int64_t{2});
    QVERIFY(store.deleteSession(keep));
    auto left = store.db().prepare("SELECT (SELECT COUNT(*) FROM samples) + (SELECT COUNT(*) "
                                   "FROM events) + (SELECT COUNT(*) FROM session_environment)");
    QVERIFY(left.step());
    QCOMPARE(left.i64(0), std::int64_t{0});
}

void TstSessions::idsAreNotReusedAndReusedPidsAreNotAlive()
{
    const fs::path file = db("ids.db");
    std::int64_t alive = 0, reused = 0;
    {
        SessionStore store(file);
        synthetic(store, "one", 1, 1, 5, 1);
        const auto two = synthetic(store, "two", 1, 1, 5, 2);
        QVERIFY(store.deleteSession(two));
        // A new session never takes the id of a deleted one.
        QVERIFY(synthetic(store, "three", 1, 1, 5, 3) > two);
        // Two sessions "running" under this very pid: one really is ours, the other was
        // recorded by an earlier process that had the same pid (another start time).
        SessionInfo info = test::simSession("ours", "p");
        alive = store.createSession(info, ParamSet{});
        SessionInfo old = info;
        old.id = 0;
        old.uuid.clear();
        old.name = "pid reused";
        old.pid = getpid();
        old.pidStart = 12345; // not our start time
        reused = store.createSession(old, ParamSet{});
    }
    SessionStore store(file);
    QCOMPARE(store.interruptedOnOpen(), 1);
    SessionInfo a, b;
    QVERIFY(store.get(alive, a) && store.get(reused, b));
    QCOMPARE(a.status, std::string("running"));
    QCOMPARE(b.status, std::string("interrupted"));
}

void TstSessions::exportNeverDestroysADatabase()
{
    // Once: "session 2 written to self.db", exit 0, and the database was JSON.
    const fs::path self = db("self.db"), other = db("other-export.db"), link = db("link.db");
    {
        SessionStore store(self);
        for (int k = 0; k < 3; ++k)
            synthetic(store, "s" + std::to_string(k), 10, 1, 20, 40 + k);
        SessionStore o(other);
        synthetic(o, "kept", 10, 1, 20, 50);
    }
    fs::create_symlink(self, link);
    const QString dbArg = QString::fromStdString(self.string());
    for (const char *format : {"json", "csv", "sqlite"})
        for (const fs::path &target : {self, link}) {
            for (const bool force : {false, true}) {
                QStringList args{"sessions", "--db", dbArg,
                                 "export",   "2",    "--format",
                                 format,     "-o",   QString::fromStdString(target.string())};
                if (force) args << "--force";
                const Ran r = engine(args);
                QCOMPARE(r.code, 2);
                QVERIFY2(r.err.contains("is the database being read"), qPrintable(r.err));
                QVERIFY2(r.err.contains(QString::fromStdString(target.string())),
                         qPrintable(r.err));
                QCOMPARE(sessionsIn(self), std::size_t{3});
            }
        }
    QVERIFY(fs::is_symlink(link));
    // Nor its side files, existing or not: SQLite's -wal, -shm and -journal beside it.
    for (const char *side : {"-wal", "-shm", "-journal"}) {
        const fs::path target = self.string() + side;
        const Ran r = engine({"sessions", "--db", dbArg, "export", "2", "--format", "json", "-o",
                              QString::fromStdString(target.string()), "--force"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("or one of its side files"), qPrintable(r.err));
    }
    // A --db that keeps nothing, or a directory, is refused naming it.
    for (const QString &bad : {QString(), QString(":memory:"), QString("file:x.db?mode=memory")}) {
        const Ran r = engine({"sessions", "--db", bad, "list"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--db"), qPrintable(r.err));
    }
    const Ran dir =
        engine({"sessions", "--db", QString::fromStdString(self.parent_path().string()), "list"});
    QVERIFY2(dir.code != 0 && dir.err.contains("is a directory"), qPrintable(dir.err));
    // Another database: only with --force.
    const QString otherArg = QString::fromStdString(other.string());
    Ran r =
        engine({"sessions", "--db", dbArg, "export", "2", "--format", "sqlite", "-o", otherArg});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("is an existing SQLite database; give another file, or --force"),
             qPrintable(r.err));
    {
        SessionStore o(other, Db::Mode::ReadOnly);
        QCOMPARE(o.list().size(), std::size_t{1});
        QCOMPARE(o.list()[0].name, std::string("kept"));
    }
    r = engine({"sessions", "--db", dbArg, "export", "2", "--format", "sqlite", "-o", otherArg,
                "--force"});
    QCOMPARE(r.code, 0);
    {
        SessionStore o(other, Db::Mode::ReadOnly);
        QCOMPARE(o.list().size(), std::size_t{1});
        QCOMPARE(o.list()[0].name, std::string("s1"));
    }
    // Anything else is written as before.
    const fs::path csv = db("plain.csv");
    std::ofstream(csv) << "old\n";
    r = engine(
        {"sessions", "--db", dbArg, "export", "2", "-o", QString::fromStdString(csv.string())});
    QCOMPARE(r.code, 0);
    QVERIFY(fs::file_size(csv) > 100);
    QCOMPARE(sessionsIn(self), std::size_t{3});
}

void TstSessions::exportWriteErrorsFail()
{
    // /dev/full was "written": the export went to a file beside it that was renamed over the
    // device. A device is written in place, and a full one fails with the reason.
    const fs::path self = db("full.db");
    {
        SessionStore store(self);
        synthetic(store, "one", 10, 1, 200, 60);
    }
    const QString dbArg = QString::fromStdString(self.string());
    for (const char *format : {"csv", "json", "sqlite"}) {
        Ran r = engine(
            {"sessions", "--db", dbArg, "export", "1", "--format", format, "-o", "/dev/full"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("writing /dev/full failed: No space left on device"),
                 qPrintable(r.err));
        QVERIFY(!r.err.contains("written to"));
        QVERIFY(fs::is_character_file("/dev/full"));
        r = engine({"sessions", "--db", dbArg, "export", "1", "--format", format}, "/dev/full");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("writing standard output failed: No space left on device"),
                 qPrintable(r.err));
    }
    // Nothing left beside it.
    for (const auto &e : fs::directory_iterator("/dev"))
        QVERIFY2(e.path().filename().string().rfind("full.part-", 0) != 0, e.path().c_str());
}

void TstSessions::importRefusesTheDatabaseItself()
{
    const fs::path self = db("into-itself.db"), link = db("into-itself-link.db");
    SessionStore store(self);
    synthetic(store, "one", 10, 1, 20, 70);
    fs::create_symlink(self, link);
    for (const fs::path &other : {self, link}) {
        try {
            store.importFrom(other);
            QFAIL("importing a database into itself succeeded");
        } catch (const DbError &e) {
            QCOMPARE(std::string(e.what()), "database " + other.string() + " is " + self.string() +
                                                " itself: import another database into it");
        }
        const Ran r = engine({"sessions", "--db", QString::fromStdString(self.string()), "import",
                              QString::fromStdString(other.string())});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("itself"), qPrintable(r.err));
    }
    QCOMPARE(store.list().size(), std::size_t{1});
}

void TstSessions::aDatabaseReplacedDuringARunIsReported()
{
    // Once: a copy moved over the database mid-run, "recorded as session 1", exit 0, and the
    // run's leftover write-ahead log wiped the copy's two sessions.
    const fs::path file = db("replaced.db"), copy = db("replacement.db");
    {
        SessionStore c(copy);
        synthetic(c, "copy 1", 10, 1, 20, 80);
        synthetic(c, "copy 2", 10, 1, 20, 81);
    }
    QProcess run;
    run.start(RINGLAB_ENGINE_BIN, {"run", "--db", QString::fromStdString(file.string()),
                                   "--duration", "4s", "--interval", "100ms"});
    QVERIFY(run.waitForStarted());
    // The run has written its first samples.
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                 try {
                                     SessionStore peek(file, Db::Mode::ReadOnly);
                                     const auto l = peek.list();
                                     return !l.empty() && l[0].sampleCount > 0;
                                 } catch (const DbError &) {
                                     return false;
                                 }
                             }()),
                             20000);
    const fs::path moving = file.string() + ".new";
    fs::copy_file(copy, moving);
    fs::rename(moving, file);
    QVERIFY(run.waitForFinished(30000));
    const QString err = QString::fromUtf8(run.readAllStandardError());
    QCOMPARE(run.exitCode(), 1);
    QVERIFY2(err.contains(QString("database %1 was replaced by another file while session 1 "
                                  "was recorded")
                              .arg(QString::fromStdString(file.string()))),
             qPrintable(err));
    QVERIFY2(!err.contains("recorded as session"), qPrintable(err));
    // The replacement is whole, however often it is opened.
    for (int k = 0; k < 2; ++k) {
        SessionStore now(file);
        const auto l = now.list();
        QCOMPARE(l.size(), std::size_t{2});
        QCOMPARE(l[0].name, std::string("copy 1"));
        auto q = now.db().prepare("PRAGMA integrity_check");
        QVERIFY(q.step());
        QCOMPARE(q.text(0), std::string("ok"));
    }
    // And the run is not lost: saved beside it, ready to import.
    const QRegularExpression saved("saved to (\\S+);");
    const auto m = saved.match(err);
    QVERIFY2(m.hasMatch(), qPrintable(err));
    const fs::path rescue = m.captured(1).toStdString();
    QVERIFY(fs::exists(rescue));
    {
        SessionStore r(rescue, Db::Mode::ReadOnly);
        const auto l = r.list();
        QCOMPARE(l.size(), std::size_t{1});
        QCOMPARE(l[0].status, std::string("completed"));
        QVERIFY(l[0].sampleCount >= 30);
    }
    SessionStore now(file);
    QCOMPARE(now.importFrom(rescue).imported, 1);
    QCOMPARE(now.list().size(), std::size_t{3});
}

void TstSessions::foreignSchemaVersionsAreRefused()
{
    // Negative versions used to index the migration table: garbage run as SQL, or SIGSEGV.
    for (const char *v : {"-1", "-100000"}) {
        const auto file =
            (std::filesystem::path(dir_.path().toStdString()) / (std::string("neg") + v + ".db"));
        {
            Db db(file, Db::Mode::ReadWrite);
            db.exec(std::string("PRAGMA user_version = ") + v);
        }
        bool refused = false;
        try {
            SessionStore store(file);
        } catch (const DbError &e) {
            refused = true;
            QVERIFY2(std::string(e.what()).find(std::string("schema version ") + v +
                                                " is not one Ringlab writes") != std::string::npos,
                     e.what());
        }
        QVERIFY(refused);
    }
}

QTEST_GUILESS_MAIN(TstSessions)
#include "tst_sessions.moc"
