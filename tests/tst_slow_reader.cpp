// SPDX-License-Identifier: GPL-2.0-or-later
// The real ringlab-engine with a standard output its reader does not read (issue 23): the
// run keeps its duration and every sample, a `set` on standard input during the stall
// applies at once, the session is finished before the process waits for its reader, and the
// lines stdout could not hold are counted. A reader that goes away after the first sample
// stops the run: the session keeps its samples, says so in its status (interrupted, not a
// whole run) and in an 'output closed' event, and the exit status is 0, as `| head` expects
// (docs/cli.md).
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/store/session_store.h"

extern char **environ;

using namespace ringlab;
namespace fs = std::filesystem;

namespace {

// ringlab-engine with its standard input and output on pipes this test holds, and its
// standard error in a file.
class Engine {
  public:
    Engine(const QStringList &args, const fs::path &errFile)
    {
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) qFatal("pipe2 failed");
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, errFile.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<std::string> words{RINGLAB_ENGINE_BIN};
        for (const QString &a : args)
            words.push_back(a.toStdString());
        std::vector<char *> argv;
        for (auto &w : words)
            argv.push_back(w.data());
        argv.push_back(nullptr);
        if (posix_spawn(&pid_, RINGLAB_ENGINE_BIN, &fa, nullptr, argv.data(), environ) != 0)
            qFatal("cannot start %s", RINGLAB_ENGINE_BIN);
        posix_spawn_file_actions_destroy(&fa);
        ::close(in[0]);
        ::close(out[1]);
        in_ = in[1];
        out_ = out[0];
    }
    ~Engine()
    {
        if (!exited()) {
            ::kill(pid_, SIGKILL);
            waitpid(pid_, &status_, 0);
        }
        closeOut();
        if (in_ >= 0) ::close(in_);
    }
    void send(const std::string &line) const
    {
        if (::write(in_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
            qFatal("cannot write to the engine's standard input");
    }
    // Bytes written to standard output that nobody has read.
    int unread() const
    {
        int n = 0;
        ioctl(out_, FIONREAD, &n);
        return n;
    }
    // One line of standard output (blocking); false at its end.
    bool readLine(std::string &line)
    {
        line.clear();
        for (char c; ::read(out_, &c, 1) == 1;) {
            if (c == '\n') return true;
            line += c;
        }
        return !line.empty();
    }
    void closeOut()
    {
        if (out_ >= 0) ::close(out_);
        out_ = -1;
    }
    bool exited()
    {
        if (done_) return true;
        done_ = waitpid(pid_, &status_, WNOHANG) == pid_;
        return done_;
    }
    int exitCode() const { return WIFEXITED(status_) ? WEXITSTATUS(status_) : -WTERMSIG(status_); }

  private:
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, status_ = 0;
    bool done_ = false;
};

QString readAll(const fs::path &file)
{
    QFile f(QString::fromStdString(file.string()));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// The one session in `db`, read as another process would while the engine writes it.
bool session(const fs::path &db, SessionInfo &out)
{
    if (!fs::exists(db)) return false;
    try {
        SessionStore store(db, Db::Mode::ReadOnly);
        const auto all = store.list();
        if (all.empty()) return false;
        out = all.front();
        return true;
    } catch (const DbError &) { // not yet created
        return false;
    }
}

} // namespace

class TstSlowReader : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void slowReaderKeepsTheRunAndItsSets();
    void readerThatLeavesStopsTheRun_data();
    void readerThatLeavesStopsTheRun();

  private:
    QTemporaryDir dir_;
};

void TstSlowReader::initTestCase()
{
    ::signal(SIGPIPE, SIG_IGN); // writing to an engine that has ended is not this test's death
    QVERIFY(dir_.isValid());
}

void TstSlowReader::slowReaderKeepsTheRunAndItsSets()
{
    const fs::path db = fs::path(dir_.path().toStdString()) / "slow.db";
    const fs::path err = fs::path(dir_.path().toStdString()) / "slow.err";
    // 8 s at 10 ms: 800 sample lines of about 4 KiB, where the pipe holds 64 KiB and the
    // stdout queue 600 lines.
    Engine e({"run", "--output", "jsonl", "--duration", "8s", "--interval", "10ms", "--set",
              "load.rate_pps=1000", "--db", QString::fromStdString(db.string())},
             err);
    SessionInfo s;
    // Nothing is read. Three seconds into the run the pipe is long full; a change then.
    QTRY_VERIFY_WITH_TIMEOUT(session(db, s) && s.durationS >= 3.0, 30000);
    // Full: a pipe holds 16 writes of a page or less (about 38 KiB of these lines).
    QVERIFY2(e.unread() >= 32768, qPrintable(QString::number(e.unread())));
    const double sentAt = s.durationS;
    e.send("set load.rate_pps 2000\n");
    // Still unread: the session ends completed, with the whole duration, while the process
    // is still waiting for its reader.
    QTRY_VERIFY_WITH_TIMEOUT(session(db, s) && s.status == "completed", 30000);
    QVERIFY2(s.durationS >= 7.9, qPrintable(QString::number(s.durationS)));
    QVERIFY(!e.exited());

    // Now read it all.
    int sampleLines = 0;
    std::string summaryLine;
    for (std::string line; e.readLine(line);) {
        if (line.find("\"type\":\"sample\"") != std::string::npos) ++sampleLines;
        if (line.find("\"type\":\"summary\"") != std::string::npos) summaryLine = line;
    }
    QTRY_VERIFY_WITH_TIMEOUT(e.exited(), 30000);
    const QString stderrText = readAll(err);
    QVERIFY2(e.exitCode() == 0, qPrintable(stderrText));

    SessionStore store(db, Db::Mode::ReadOnly);
    const SampleTable t = store.samples(s.id);
    QVERIFY(!t.seq.empty());
    QCOMPARE(static_cast<std::int64_t>(t.seq.size()), t.seq.back() + 1); // none missing
    QVERIFY2(t.t.back() >= 7.9, qPrintable(QString::number(t.t.back())));
    // The change applied while the pipe was full, not when the reader came back.
    const auto changes = store.changes(s.id);
    QCOMPARE(changes.size(), std::size_t{1});
    QCOMPARE(changes[0].tunable, std::string("load.rate_pps"));
    QCOMPARE(changes[0].newValue, std::string("2000"));
    QVERIFY2(changes[0].t >= sentAt && changes[0].t < sentAt + 2.0,
             qPrintable(QString("sent at %1 s, applied at %2 s").arg(sentAt).arg(changes[0].t)));
    // stdout lost lines, and the session and standard error say how many.
    QVERIFY2(sampleLines < static_cast<int>(t.seq.size()),
             qPrintable(QString::number(sampleLines)));
    const auto events = store.events(s.id);
    QVERIFY(std::any_of(events.begin(), events.end(), [](const EventRow &ev) {
        return ev.kind == "warning" && ev.message.rfind("stdout fell behind: ", 0) == 0;
    }));
    const QRegularExpression dropped("standard output fell behind: (\\d+) lines were dropped");
    const auto m = dropped.match(stderrText);
    QVERIFY2(m.hasMatch(), qPrintable(stderrText));
    QVERIFY(sampleLines + m.captured(1).toInt() >= static_cast<int>(t.seq.size()));
    // The summary is of every sample, not of those stdout's queue held: all but the first
    // second's warm-up (100 at 10 ms).
    const QJsonObject summaryJson = QJsonDocument::fromJson(summaryLine.c_str()).object();
    const int summarised = summaryJson["samples"].toInt();
    QVERIFY2(summarised >= static_cast<int>(t.seq.size()) - 110 && summarised > sampleLines - 100,
             qPrintable(QString("%1 of %2 samples summarised, %3 printed")
                            .arg(summarised)
                            .arg(t.seq.size())
                            .arg(sampleLines)));
    QVERIFY2(stderrText.contains(QString("the summary covers all %1 samples").arg(t.seq.size())),
             qPrintable(stderrText));
    qInfo("%zu samples recorded, %d printed, %s lines dropped; set sent at %.2f s, applied at "
          "%.2f s",
          t.seq.size(), sampleLines, qPrintable(m.captured(1)), sentAt, changes[0].t);
}

void TstSlowReader::readerThatLeavesStopsTheRun_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<int>("lines");                   // read up to the first sample, then close
    QTest::newRow("jsonl | head -3") << "jsonl" << 3; // params, start, the first sample
    QTest::newRow("table | head -3") << "table" << 3; // start, header, the first row
}

void TstSlowReader::readerThatLeavesStopsTheRun()
{
    QFETCH(QString, format);
    QFETCH(int, lines);
    const fs::path db =
        fs::path(dir_.path().toStdString()) / ("closed-" + format.toStdString() + ".db");
    const fs::path err = fs::path(dir_.path().toStdString()) / "closed.err";
    Engine e({"run", "--output", format, "--duration", "30s", "--db",
              QString::fromStdString(db.string())},
             err);
    std::string line, last;
    for (int k = 0; k < lines; ++k) {
        QVERIFY(e.readLine(line));
        last = line;
    }
    if (format == "jsonl")
        QVERIFY2(last.find("\"type\":\"sample\"") != std::string::npos, last.c_str());
    e.closeOut();
    // It stops on its own, long before its 30 s.
    QTRY_VERIFY_WITH_TIMEOUT(e.exited(), 20000);
    const QString stderrText = readAll(err);
    QVERIFY2(e.exitCode() == 0, qPrintable(QString::number(e.exitCode()) + ": " + stderrText));
    QVERIFY2(stderrText.contains("output closed"), qPrintable(stderrText));

    SessionInfo s;
    QVERIFY(session(db, s));
    QCOMPARE(s.status, std::string("interrupted"));
    QVERIFY2(s.durationS < 20.0, qPrintable(QString::number(s.durationS)));
    SessionStore store(db, Db::Mode::ReadOnly);
    const SampleTable t = store.samples(s.id);
    QVERIFY(!t.seq.empty()); // at least the one that was read
    QCOMPARE(static_cast<std::int64_t>(t.seq.size()), t.seq.back() + 1);
    const auto events = store.events(s.id);
    const auto closed = std::find_if(events.begin(), events.end(), [](const EventRow &ev) {
        return ev.kind == "warning" && ev.source == "stdout" &&
               ev.message.rfind("output closed", 0) == 0;
    });
    QVERIFY(closed != events.end());
    QCOMPARE(events.back().kind, std::string("stop"));
    qInfo("%s: %zu samples, %.2f s; %s", qPrintable(format), t.seq.size(), s.durationS,
          closed->message.c_str());
}

QTEST_GUILESS_MAIN(TstSlowReader)
#include "tst_slow_reader.moc"
