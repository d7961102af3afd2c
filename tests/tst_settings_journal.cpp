// SPDX-License-Identifier: GPL-2.0-or-later
// The host settings journal (issue 44, part 4; DESIGN.md "Decided 2026-12-06"): every setting
// read and journalled before its first change, put back at a clean end, and after kill -9 by
// the next start (restoreStale, `ringlab-engine restore`); journals of live processes and
// journals that are not ours left alone. Settings here are plain files standing for sysfs and
// procfs ones (the kernel device's tests change the real ones).
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drivers/host/settings_journal.h"

using namespace ringlab;
using namespace ringlab::host;

class TstSettingsJournal : public QObject {
    Q_OBJECT
  private slots:
    void init();
    void aCleanEndPutsEverySettingBack();
    void aRefusedWriteNamesTheSettingAndChangesNothing();
    void killedMidRunIsRestoredAtTheNextStart();
    void theCommandRestoresWhatAKilledRunLeft();
    void liveJournalsAndStrangeFilesAreLeftAlone();

  private:
    QString path(const char *name) const { return dir_->filePath(name); }
    std::string setting(const char *name, const char *value) const
    {
        std::ofstream(path(name).toStdString()) << value << "\n";
        return path(name).toStdString();
    }
    static std::string contents(const std::string &p)
    {
        std::ifstream f(p);
        std::stringstream s;
        s << f.rdbuf();
        return s.str();
    }
    std::string journalDir() const { return path("journal").toStdString(); }
    int journals() const
    {
        return static_cast<int>(QDir(path("journal")).entryList({"journal-*.jsonl"}).size());
    }
    std::unique_ptr<QTemporaryDir> dir_;
};

void TstSettingsJournal::init()
{
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

void TstSettingsJournal::aCleanEndPutsEverySettingBack()
{
    const std::string threaded = setting("threaded", "0"), flush = setting("gro_flush", "20000");
    std::unique_ptr<SettingsJournal> j;
    QVERIFY(SettingsJournal::open(journalDir(), j).ok());
    // The directory is this user's alone: a journal names files to write.
    struct stat st {};
    QCOMPARE(::stat(journalDir().c_str(), &st), 0);
    QCOMPARE(st.st_mode & 0077, 0u);
    QVERIFY(j->write(threaded, "1").ok());
    QVERIFY(j->write(threaded, "0").ok()); // a second change: the first old value stays
    QVERIFY(j->write(flush, "200000").ok());
    QCOMPARE(contents(threaded), std::string("0\n"));
    QCOMPARE(contents(flush), std::string("200000\n"));
    // On disk before the change: the header and one line per setting, the old values.
    const std::string journal = contents(j->file());
    QVERIFY2(journal.find("\"value\":\"0\"") != std::string::npos &&
                 journal.find("\"value\":\"20000\"") != std::string::npos,
             journal.c_str());
    QCOMPARE(j->entries().size(), std::size_t{2});
    QVERIFY(j->write(threaded, "1").ok());
    QVERIFY(j->restore().ok());
    QCOMPARE(contents(threaded), std::string("0\n"));
    QCOMPARE(contents(flush), std::string("20000\n"));
    QCOMPARE(journals(), 0);
    // The destructor restores too (an error path that returns early).
    {
        std::unique_ptr<SettingsJournal> k;
        QVERIFY(SettingsJournal::open(journalDir(), k).ok());
        QVERIFY(k->write(flush, "1").ok());
    }
    QCOMPARE(contents(flush), std::string("20000\n"));
    QCOMPARE(journals(), 0);
}

void TstSettingsJournal::aRefusedWriteNamesTheSettingAndChangesNothing()
{
    std::unique_ptr<SettingsJournal> j;
    QVERIFY(SettingsJournal::open(journalDir(), j).ok());
    const std::string missing = path("no-such-setting").toStdString();
    const Status st = j->write(missing, "1");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find(missing) != std::string::npos, st.error.c_str());
    QVERIFY(j->entries().empty()); // nothing was read, nothing journalled
    // A setting that turns read-only after it was journalled: the refusal names it and the
    // value; restore still puts the others back and says which one it could not.
    const std::string a = setting("a", "5"), b = setting("b", "6");
    QVERIFY(j->write(a, "50").ok());
    QVERIFY(j->write(b, "60").ok());
    QVERIFY(QFile::remove(path("b")));
    QVERIFY(QDir().mkdir(path("b"))); // now a directory: no write succeeds
    const Status back = j->restore();
    QVERIFY(!back.ok());
    QVERIFY2(back.error.find(b) != std::string::npos, back.error.c_str());
    QCOMPARE(contents(a), std::string("5\n"));
    QCOMPARE(journals(), 1); // kept: restoreStale tries again once this process is gone
    QVERIFY(QDir().rmdir(path("b")));
    setting("b", "60");
    j.reset(); // the destructor's second try puts b back
    QCOMPARE(contents(b), std::string("6\n"));
    QCOMPARE(journals(), 0);
}

void TstSettingsJournal::killedMidRunIsRestoredAtTheNextStart()
{
    const std::string defer = setting("napi_defer_hard_irqs", "0"),
                      busy = setting("busy_poll", "0");
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        std::unique_ptr<SettingsJournal> j;
        if (!SettingsJournal::open(journalDir(), j).ok() || !j->write(defer, "2").ok() ||
            !j->write(busy, "50").ok())
            ::_exit(3);
        ::kill(::getpid(), SIGKILL); // no destructor, no restore: as kill -9 mid-run
        ::_exit(4);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the child was not killed");
    QCOMPARE(contents(defer), std::string("2\n"));
    QCOMPARE(contents(busy), std::string("50\n"));
    QCOMPARE(journals(), 1);
    const RestoreReport r = restoreStale(journalDir());
    QCOMPARE(r.journals.size(), std::size_t{1});
    QCOMPARE(r.restored.size(), std::size_t{2});
    QVERIFY(r.failures.empty());
    QCOMPARE(r.restored[0].path, busy); // newest first
    QCOMPARE(contents(defer), std::string("0\n"));
    QCOMPARE(contents(busy), std::string("0\n"));
    QCOMPARE(journals(), 0);
    QVERIFY(restoreStale(journalDir()).journals.empty()); // once
}

void TstSettingsJournal::theCommandRestoresWhatAKilledRunLeft()
{
    const std::string s = setting("gro_flush_timeout", "0");
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        std::unique_ptr<SettingsJournal> j;
        if (!SettingsJournal::open(journalDir(), j).ok() || !j->write(s, "100000").ok()) ::_exit(3);
        ::kill(::getpid(), SIGKILL);
        ::_exit(4);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QCOMPARE(contents(s), std::string("100000\n"));
    QProcess p;
    p.start(RINGLAB_ENGINE_BIN, {"restore", "--journal-dir", QString::fromStdString(journalDir())});
    QVERIFY(p.waitForFinished(30'000));
    const QString out = p.readAllStandardOutput();
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(out.contains(QString("restored %1 to '0'").arg(QString::fromStdString(s))) &&
                 out.contains("1 journal(s)") && out.contains("1 setting(s) put back, 0 not"),
             qPrintable(out));
    QCOMPARE(contents(s), std::string("0\n"));
}

void TstSettingsJournal::liveJournalsAndStrangeFilesAreLeftAlone()
{
    const std::string s = setting("threaded", "0");
    std::unique_ptr<SettingsJournal> live;
    QVERIFY(SettingsJournal::open(journalDir(), live).ok());
    QVERIFY(live->write(s, "1").ok());
    // Held by this process (flock): not a dead run's, so not restored under it.
    RestoreReport r = restoreStale(journalDir());
    QVERIFY(r.journals.empty() && r.restored.empty());
    QCOMPARE(contents(s), std::string("1\n"));
    // A file that is not a journal, and one whose lines are not ours: named, not obeyed.
    std::ofstream(journalDir() + "/journal-1-1.jsonl") << "not json\n{\"path\":\"/x\"}\n";
    std::ofstream(journalDir() + "/journal-2-2.jsonl") << "{\"something\":1}\n";
    std::ofstream(journalDir() + "/notes.txt") << "hello\n";
    r = restoreStale(journalDir());
    QVERIFY(r.restored.empty());
    QCOMPARE(r.failures.size(), std::size_t{2});
    QVERIFY(QFile::exists(QString::fromStdString(journalDir()) + "/journal-1-1.jsonl"));
    // A journal directory others may write to is refused whole.
    QCOMPARE(::chmod(journalDir().c_str(), 0777), 0);
    r = restoreStale(journalDir());
    QCOMPARE(r.failures.size(), std::size_t{1});
    QVERIFY2(r.failures[0].find("writable by nobody else") != std::string::npos,
             r.failures[0].c_str());
    std::unique_ptr<SettingsJournal> refused;
    QVERIFY(!SettingsJournal::open(journalDir(), refused).ok());
    QCOMPARE(::chmod(journalDir().c_str(), 0700), 0);
    QVERIFY(live->restore().ok());
    QCOMPARE(contents(s), std::string("0\n"));
}

QTEST_GUILESS_MAIN(TstSettingsJournal)
#include "tst_settings_journal.moc"
