// SPDX-License-Identifier: GPL-2.0-or-later
// kill -9 of the real ringlab-engine at random moments, 50 times: at startup, mid-run, during
// repeats, during an import and during an export. After each, the database passes
// integrity_check, nothing is left "running", a killed run is "interrupted" and holds its
// samples to within a second of the last one it printed, an import is all or nothing, and an
// export file is whole or absent. The moments come from a seeded generator
// (RINGLAB_CRASH_SEED, printed), so a failing draw can be replayed.
#include <QtTest>

#include <signal.h>

#include <random>

#include "engine/store/session_store.h"
#include "tests/test_support.h"

using namespace ringlab;
namespace fs = std::filesystem;

class TstCrashSafety : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void killAtRandomMoments_data();
    void killAtRandomMoments();

  private:
    struct Killed {
        double lastPrintedT = -1; // the last sample the process printed (JSON lines)
        bool exitedByItself = false;
    };
    // Starts the engine, kills it after `ms` (or lets it finish first), returns what it said.
    static Killed runAndKill(const QStringList &args, int ms);
    // `recorded`: the killed process was recording a run into `file` (not importing, exporting).
    static void checkDatabase(const fs::path &file, const Killed &k, int wantSessionsAtLeast,
                              bool recorded);
    QTemporaryDir dir_;
    fs::path source_; // for import and export: 30 sessions of 300 samples
    std::mt19937 rng_;
};

void TstCrashSafety::initTestCase()
{
    const char *seedText = std::getenv("RINGLAB_CRASH_SEED");
    const unsigned seed = seedText ? static_cast<unsigned>(std::strtoul(seedText, nullptr, 10))
                                   : std::random_device{}();
    qInfo("RINGLAB_CRASH_SEED=%u", seed);
    rng_.seed(seed);
    source_ = fs::path(dir_.path().toStdString()) / "source.db";
    SessionStore store(source_);
    // 30 sessions of 300 samples (an import takes about half a second), the last of 8,000
    // with eight threads (its export, too).
    for (int s = 0; s < 30; ++s) {
        SessionInfo info = test::simSession("source " + std::to_string(s));
        info.status = "completed";
        const auto id = store.createSession(info, ParamSet{});
        std::vector<std::shared_ptr<const Sample>> samples;
        const std::uint64_t n = s == 29 ? 8000 : 300;
        for (std::uint64_t k = 0; k < n; ++k) {
            auto x = std::make_shared<Sample>();
            x->seq = k;
            x->t = 0.1 * static_cast<double>(k + 1);
            x->interval = 0.1;
            x->rate[static_cast<std::size_t>(CounterId::RxPackets)] =
                1000.0 + static_cast<double>(k);
            for (const char *t : {"poll", "refill", "txclean", "sampler", "a", "b", "c", "d"}) {
                x->threads.push_back({t, 10, 1, 100});
                if (s != 29) break;
            }
            samples.push_back(std::move(x));
        }
        store.append(id, samples, {});
    }
}

TstCrashSafety::Killed TstCrashSafety::runAndKill(const QStringList &args, int ms)
{
    Killed k;
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(RINGLAB_ENGINE_BIN, args);
    if (!p.waitForStarted(10000)) return k;
    // The moment of the kill is what this test varies: it waits that long, reading output.
    k.exitedByItself = p.waitForFinished(ms);
    if (!k.exitedByItself) {
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        p.waitForFinished(10000);
    }
    if (qEnvironmentVariableIsSet("CRASH_DEBUG"))
        qInfo("%s after %d ms: %s", qPrintable(args.join(' ')), ms,
              k.exitedByItself ? p.readAllStandardError().constData() : "killed");
    for (const QByteArray &line : p.readAllStandardOutput().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value("type").toString() == "sample") k.lastPrintedT = o.value("t").toDouble();
    }
    return k;
}

void TstCrashSafety::checkDatabase(const fs::path &file, const Killed &k, int wantSessionsAtLeast,
                                   bool recorded)
{
    if (!fs::exists(file)) {
        QVERIFY2(k.lastPrintedT < 0, "samples were printed but there is no database");
        return;
    }
    SessionStore store(file); // opening it marks what the dead process left running
    {
        auto q = store.db().prepare("PRAGMA integrity_check");
        QVERIFY(q.step());
        QCOMPARE(q.text(0), std::string("ok"));
    }
    const auto all = store.list();
    QVERIFY(static_cast<int>(all.size()) >= wantSessionsAtLeast);
    for (const auto &s : all)
        QVERIFY2(s.status == "completed" || s.status == "interrupted",
                 qPrintable(QString::fromStdString(s.name + ": " + s.status)));
    if (all.empty() || !recorded) return;
    const auto &last = all.back();
    // Killed: the last session is interrupted, unless the kill landed after it had ended
    // (between two repeats, or before the process exited), when it is rightly completed. The
    // loop above has checked that none was left running.
    if (k.lastPrintedT >= 0 && !all.empty() && last.status == "interrupted")
        QVERIFY2(last.durationS >= k.lastPrintedT - 1.0,
                 qPrintable(QString("printed up to %1 s, recorded %2 s")
                                .arg(k.lastPrintedT)
                                .arg(last.durationS)));
}

void TstCrashSafety::killAtRandomMoments_data()
{
    QTest::addColumn<QString>("moment");
    QTest::addColumn<int>("runs");
    QTest::newRow("startup") << "startup" << 10;
    QTest::newRow("mid-run") << "mid-run" << 10;
    QTest::newRow("during repeats") << "repeat" << 10;
    QTest::newRow("during import") << "import" << 10;
    QTest::newRow("during export") << "export" << 10;
}

void TstCrashSafety::killAtRandomMoments()
{
    QFETCH(QString, moment);
    QFETCH(int, runs);
    const auto pick = [this](int lo, int hi) {
        return std::uniform_int_distribution<int>(lo, hi)(rng_);
    };
    // An import or an export is killed at a moment within its own length on this machine (an
    // ASan build is slower): the shortest of three runs, since the first one of a process
    // tree is often the slowest (cold caches), and a kill after the end tests nothing.
    const QString src = QString::fromStdString(source_);
    const QStringList importArgs = {"sessions", "import", src, "--db"};
    const QStringList exportArgs = {"sessions", "export", "30", "--format",
                                    "json",     "--db",   src,  "--output"};
    int fullMs = 0;
    if (moment == "import" || moment == "export") {
        for (int round = 0; round < 3; ++round) {
            QElapsedTimer clock;
            clock.start();
            QStringList args = moment == "import" ? importArgs : exportArgs;
            const auto k =
                runAndKill(args << dir_.filePath("timing" + QString::number(round)), 60000);
            QVERIFY(k.exitedByItself);
            const int ms = static_cast<int>(clock.elapsed());
            fullMs = round == 0 ? ms : std::min(fullMs, ms);
        }
        qInfo("%s: %d ms when not killed (the shortest of 3)", qPrintable(moment), fullMs);
    }
    int killed = 0; // runs that were still going when the kill came
    for (int r = 0; r < runs; ++r) {
        const QString base = dir_.filePath(moment + QString::number(r));
        const fs::path db = (base + ".db").toStdString();
        if (moment == "startup" || moment == "mid-run") {
            const int ms = moment == "startup" ? pick(0, 400) : pick(600, 2500);
            const auto k = runAndKill({"run", "--output", "jsonl", "--db", base + ".db"}, ms);
            killed += !k.exitedByItself;
            QVERIFY(!k.exitedByItself);
            checkDatabase(db, k, 0, true);
        } else if (moment == "repeat") {
            // Three runs of 600 ms cannot end before 1,800 ms: every kill before that lands
            // in one of them or between two (the run lasts about 1,950 ms here).
            const int ms = pick(300, 1750);
            const auto k = runAndKill({"run", "--output", "jsonl", "--repeat", "3", "--duration",
                                       "600ms", "--db", base + ".db"},
                                      ms);
            killed += !k.exitedByItself;
            checkDatabase(db, k, 0, true);
        } else if (moment == "import") {
            {
                SessionStore mine(db);
                SessionInfo info = test::simSession("mine");
                info.status = "completed";
                mine.createSession(info, ParamSet{});
            }
            const auto k =
                runAndKill(QStringList(importArgs) << base + ".db", pick(0, fullMs * 4 / 5));
            killed += !k.exitedByItself;
            checkDatabase(db, k, 1, false);
            SessionStore mine(db);
            const auto n = mine.list().size();
            QVERIFY2(n == 1 || n == 31, qPrintable(QString("%1 sessions: half an import").arg(n)));
            QVERIFY(k.exitedByItself ? n == 31 : true);
        } else {
            const QString out = base + ".json";
            {
                QFile previous(out); // a complete export from before, which must survive
                QVERIFY(previous.open(QIODevice::WriteOnly));
                previous.write("{\"previous\": true}");
            }
            const auto k = runAndKill(QStringList(exportArgs) << out, pick(0, fullMs * 4 / 5));
            killed += !k.exitedByItself;
            QFile f(out);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QJsonParseError err;
            const QJsonObject o = QJsonDocument::fromJson(f.readAll(), &err).object();
            QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
            QVERIFY(o.contains("previous") || o.contains("samples"));
            if (k.exitedByItself) QVERIFY(o.contains("samples"));
            checkDatabase(source_, k, 30, false);
        }
        if (QTest::currentTestFailed()) {
            qWarning("failed at %s run %d", qPrintable(moment), r);
            return;
        }
    }
    qInfo("%s: %d of %d runs killed before they ended", qPrintable(moment), killed, runs);
    QVERIFY2(killed >= runs / 2, "most kills came too late to test anything");
}

QTEST_GUILESS_MAIN(TstCrashSafety)
#include "tst_crash_safety.moc"
