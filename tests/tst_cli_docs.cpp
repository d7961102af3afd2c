// SPDX-License-Identifier: GPL-2.0-or-later
// What the programs say of themselves outside --help: the bash completion that
// `ringlab-engine completion bash` prints, driven in a real bash through the function it
// registers (which asks compgen), and the man pages `ringlab-engine manual` and
// `ringlab --manual` print, rendered by man as lintian renders them (no warning allowed).
// Expectations come from the registries, so a tunable or command added later is checked too.
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/datapath/tunables.h"
#include "engine/profile/reference_cases.h"
#include "tests/require.h"

using namespace ringlab;

class TstCliDocs : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void completes_data();
    void completes();
    void completesTunablesAndTheirValuesFromTheRegistry();
    void completesAfterAWordBreakAsBashInsertsIt();
    void engineManualRendersWithoutWarnings();
    void metricsDocIsTheTable();
    void desktopManualRendersWithoutWarnings();

  private:
    struct Ran {
        int code = -1;
        QString out, err;
    };
    static Ran run(const QString &program, const QStringList &args,
                   const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
    {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(program, args);
        if (!p.waitForFinished(60000)) {
            p.kill();
            p.waitForFinished();
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    // The candidates bash would offer for `line` (the cursor at its end), with bash's
    // default word breaks or the ones given.
    QStringList complete(const QString &line, const QString &breaks = {}) const
    {
        const QString driver = QStringLiteral("source \"$1\" || exit 3\n"
                                              "[ -n \"$3\" ] && COMP_WORDBREAKS=$3\n"
                                              "spec=$(complete -p ringlab-engine) || exit 4\n"
                                              "fn=${spec#*-F }; fn=${fn%% *}\n"
                                              "COMP_LINE=$2; COMP_POINT=${#2}; COMPREPLY=()\n"
                                              "\"$fn\" || exit 5\n"
                                              "printf '%s\\n' \"${COMPREPLY[@]}\"\n");
        const Ran r = run("bash", {"-c", driver, "bash", script_, line, breaks});
        if (r.code != 0) {
            qWarning("bash exited %d: %s", r.code, qPrintable(r.err));
            return {"<bash failed>"};
        }
        QStringList words = r.out.split('\n', Qt::SkipEmptyParts);
        words.sort();
        return words;
    }
    QString line(const QString &rest) const
    {
        return QStringLiteral(RINGLAB_ENGINE_BIN " ") + rest;
    }
    static QStringList sorted(QStringList l)
    {
        l.sort();
        return l;
    }
    // Renders a page as lintian does; the text, and what man warned.
    Ran renderManual(const QString &roff);

    QTemporaryDir dir_;
    QString script_;
};

void TstCliDocs::initTestCase()
{
    QVERIFY(dir_.isValid());
    const Ran r = run(RINGLAB_ENGINE_BIN, {"completion", "bash"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("complete -F _ringlab_engine ringlab-engine"));
    script_ = dir_.filePath("ringlab-engine.bash");
    QFile f(script_);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(r.out.toUtf8());
    // An unknown shell is refused with what is allowed.
    const Ran bad = run(RINGLAB_ENGINE_BIN, {"completion", "tcsh"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("tcsh") && bad.err.contains("bash"), qPrintable(bad.err));
}

void TstCliDocs::completes_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("a command") << "ses" << QStringList{"sessions"};
    QTest::newRow("a command below one") << "sessions ex" << QStringList{"export"};
    QTest::newRow("an option") << "run --pro" << QStringList{"--profile"};
    QTest::newRow("a set of values") << "run --output " << QStringList{"jsonl", "table"};
    QTest::newRow("the export formats")
        << "sessions export 3 --format " << QStringList{"csv", "environment", "json", "sqlite"};
    QTest::newRow("a profile, asked of the program")
        << "run -p kni-sleep-1" << QStringList{"kni-sleep-100-200", "kni-sleep-1000-1100"};
    QTest::newRow("a metric") << "compare 1 2 --metric latency_p9"
                              << QStringList{"latency_p90_us", "latency_p999_us", "latency_p99_us"};
    QTest::newRow("a thread's metric, to its bracket")
        << "sweep -m wakeups_p" << QStringList{"wakeups_per_s["};
    QTest::newRow("a value is skipped, not taken for a command")
        << "run --name sessions --out" << QStringList{"--output"};
    QTest::newRow("the shells") << "completion " << QStringList{"bash"};
    QTest::newRow("a comma-separated list of tunables")
        << "tune --over poll.sleep_min_us,poll.sleep_ma"
        << QStringList{"poll.sleep_min_us,poll.sleep_max_us"};
    QStringList cases;
    for (const auto &c : referenceCases())
        cases << QString::fromUtf8(c.name.data(), static_cast<qsizetype>(c.name.size()));
    cases << "all";
    QTest::newRow("a reference case") << "reproduce " << sorted(cases);
}

void TstCliDocs::completes()
{
    QFETCH(QString, typed);
    QFETCH(QStringList, expected);
    QCOMPARE(complete(line(typed)), expected);
}

void TstCliDocs::completesTunablesAndTheirValuesFromTheRegistry()
{
    QStringList poll;
    for (const auto &t : tunables())
        if (t.name.starts_with("poll.sleep_m"))
            poll << QString::fromLatin1(t.name.data(), static_cast<qsizetype>(t.name.size())) + "=";
    QVERIFY(poll.size() >= 2);
    QCOMPARE(complete(line("run --set poll.sleep_m")), sorted(poll));
    QCOMPARE(complete(line("sweep --vary poll.sleep_m")), sorted(poll));

    // Every choice and flag offers what the registry allows, whole names kept (no '=' break).
    int checked = 0;
    for (const auto &t : tunables()) {
        if (t.type != Type::Choice && t.type != Type::Flag) continue;
        const QString name =
            QString::fromLatin1(t.name.data(), static_cast<qsizetype>(t.name.size()));
        QStringList allowed;
        if (t.type == Type::Flag) allowed = {"true", "false"};
        for (const auto &c : t.choices)
            allowed << QString::fromLatin1(c.data(), static_cast<qsizetype>(c.size()));
        for (QString &a : allowed)
            a = name + "=" + a;
        QCOMPARE(complete(line("run -s " + name + "="), " \t\n"), sorted(allowed));
        ++checked;
    }
    QVERIFY(checked >= 8);
}

void TstCliDocs::completesAfterAWordBreakAsBashInsertsIt()
{
    // With bash's default breaks, '=' and ':' end a word: bash replaces only what follows,
    // so the candidates must not repeat what precedes.
    QCOMPARE(complete(line("run --set poll.mode=sl")), QStringList{"sleep"});
    QCOMPARE(complete(line("run --set refill.context=")),
             (QStringList{"inline", "thread", "workqueue"}));
    QCOMPARE(complete(line("run --device dpdk:net_n")),
             (QStringList{"net_null0", "net_null0+net_null1"}));
    QCOMPARE(complete(line("run --device dpdk:net_n"), " \t\n"),
             (QStringList{"dpdk:net_null0", "dpdk:net_null0+net_null1"}));
}

TstCliDocs::Ran TstCliDocs::renderManual(const QString &roff)
{
    const QString page = dir_.filePath("page.1");
    QFile f(page);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    f.write(roff.toUtf8());
    f.close();
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("MANWIDTH", "80");
    env.insert("LC_ALL", "C.UTF-8");
    // lintian's manpage check: man --warnings -E UTF-8 -l -Tutf8 -Z, anything on stderr.
    Ran warnings = run("man", {"--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page}, env);
    Ran text = run("man", {"-E", "UTF-8", "-l", page}, env);
    text.err = warnings.code == 0 ? warnings.err : "man failed: " + warnings.err;
    return text;
}

// docs/metrics.md is the metric table as the engine prints it: a metric added, renamed or
// explained anew changes the page, or this fails and says how to make it again.
void TstCliDocs::metricsDocIsTheTable()
{
    const Ran m = run(RINGLAB_ENGINE_BIN, {"metrics", "--markdown"});
    QCOMPARE(m.code, 0);
    QFile f(RINGLAB_DOCS_DIR "/metrics.md");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString doc = QString::fromUtf8(f.readAll());
    QVERIFY2(doc == m.out, "docs/metrics.md is not the metric table's: make it again with "
                           "ringlab-engine metrics --markdown > docs/metrics.md");
    // Every metric has its row, and says what it measures.
    const QStringList rows = doc.split('\n').filter(QRegularExpression("^\\| `"));
    QVERIFY(rows.size() > 60);
    for (const QString &row : rows)
        QVERIFY2(!row.endsWith("|  |"), qPrintable(row));
}

void TstCliDocs::engineManualRendersWithoutWarnings()
{
    RINGLAB_REQUIRE(!QStandardPaths::findExecutable("man").isEmpty(), "man (package man-db)");
    const Ran m = run(RINGLAB_ENGINE_BIN, {"manual"});
    QCOMPARE(m.code, 0);
    QVERIFY(m.out.startsWith(".\\\""));
    const Ran page = renderManual(m.out);
    QVERIFY2(page.err.isEmpty(), qPrintable(page.err));
    QCOMPARE(page.code, 0);
    for (const char *section : {"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "TUNABLES", "FILES",
                                "ENVIRONMENT", "EXIT STATUS", "SEE ALSO"})
        QVERIFY2(page.out.contains(QRegularExpression(QString("^%1$").arg(section),
                                                      QRegularExpression::MultilineOption)),
                 section);
    // Every tunable, with its help; every command, and options as --help names them.
    for (const auto &t : tunables())
        QVERIFY2(page.out.contains(
                     QString::fromLatin1(t.name.data(), static_cast<qsizetype>(t.name.size()))),
                 t.name.data());
    for (const char *c : {"sessions export", "sessions import", "sweep", "tune", "reproduce",
                          "serve", "completion", "--metrics-listen", "--subject-to"})
        QVERIFY2(page.out.contains(c), c);
    QVERIFY(!page.out.contains("\nmanual")); // the build's own command is not a user's
    QVERIFY(page.out.contains("One of: table, jsonl"));
}

void TstCliDocs::desktopManualRendersWithoutWarnings()
{
    RINGLAB_REQUIRE(!QStandardPaths::findExecutable("man").isEmpty(), "man (package man-db)");
    auto env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY"); // the page needs no display
    env.remove("QT_QPA_PLATFORM");
    const Ran m = run(RINGLAB_BIN, {"--manual"}, env);
    QCOMPARE(m.code, 0);
    const Ran page = renderManual(m.out);
    QVERIFY2(page.err.isEmpty(), qPrintable(page.err));
    for (const char *text :
         {"--connect", "--token-file", "--screenshot", "render", "--size", "ringlab-engine(1)"})
        QVERIFY2(page.out.contains(text), text);
    QVERIFY(!page.out.contains("--manual"));
}

QTEST_GUILESS_MAIN(TstCliDocs)
#include "tst_cli_docs.moc"
