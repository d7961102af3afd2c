// SPDX-License-Identifier: GPL-2.0-or-later
// How a `ringlab-engine run` that does not reach its own end says so (issue 45, items 5 and
// 6): a standard output that cannot be written (a full disk: /dev/full) fails the run, with
// exit 1 and the session failed; SIGTERM during the second of three repeats ends the repeats
// with exit 1, the second session interrupted (so that the group's statistics leave it out)
// and no third run, as `sweep` does.
#include <signal.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/store/session_store.h"

using namespace ringlab;

class TstRunEndings : public QObject {
    Q_OBJECT
  private slots:
    void aFullOutputFailsTheRun();
    void aSignalEndsTheRepeatsAsInterrupted();

  private:
    static std::vector<SessionInfo> sessions(const QString &db)
    {
        try {
            return SessionStore(db.toStdString(), Db::Mode::ReadOnly).list();
        } catch (const DbError &) {
            return {};
        }
    }
    QTemporaryDir dir_;
};

void TstRunEndings::aFullOutputFailsTheRun()
{
    const QString db = dir_.filePath("full.db");
    QProcess p;
    p.setStandardOutputFile("/dev/full");
    p.start(RINGLAB_ENGINE_BIN, {"run", "--output", "jsonl", "--duration", "20s", "--db", db});
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(30000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains("standard output could not be written (No space left on device): the "
                          "run failed"),
             qPrintable(err));
    const auto list = sessions(db);
    QCOMPARE(list.size(), std::size_t{1});
    QCOMPARE(list[0].status, std::string("failed"));
    QVERIFY2(list[0].durationS < 10, qPrintable(QString::number(list[0].durationS)));
}

void TstRunEndings::aSignalEndsTheRepeatsAsInterrupted()
{
    const QString db = dir_.filePath("repeats.db");
    QProcess p;
    p.setStandardOutputFile(QProcess::nullDevice());
    p.start(RINGLAB_ENGINE_BIN,
            {"run", "--repeat", "3", "--duration", "3s", "--db", db, "--name", "r"});
    p.closeWriteChannel();
    QVERIFY(p.waitForStarted());
    // The second repeat is being recorded, with a sample or more.
    QTRY_VERIFY_WITH_TIMEOUT(sessions(db).size() == 2 && sessions(db)[0].sampleCount > 0, 30000);
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(30000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains("recorded as interrupted"), qPrintable(err));
    auto list = sessions(db);
    QCOMPARE(list.size(), std::size_t{2}); // no third run
    std::sort(list.begin(), list.end(), [](const auto &a, const auto &b) { return a.id < b.id; });
    QCOMPARE(list[0].status, std::string("completed"));
    QCOMPARE(list[1].status, std::string("interrupted"));
}

QTEST_GUILESS_MAIN(TstRunEndings)
#include "tst_run_endings.moc"
