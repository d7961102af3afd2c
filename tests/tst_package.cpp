// SPDX-License-Identifier: GPL-2.0-or-later
// The Debian package: built with cpack from this build tree, its file list checked, and
// the programs it installs started from an extracted copy; its systemd unit checked by
// systemd-analyze and its maintainer scripts present. Debian's own checks pass: lintian
// without an error or a warning, appstreamcli and desktop-file-validate on the metadata,
// man on the manual pages.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/version.h"
#include "tests/require.h"

class TstPackage : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void packageHoldsTheProgramsAndStarts();
    void lintianFindsNothing();
    void metadataValidates();
    void manualPagesRender();

  private:
    QTemporaryDir dir_;
    QString deb_, root_;

    static int run(const QString &program, const QStringList &args, const QString &dir,
                   QString *out,
                   const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
    {
        QProcess p;
        p.setWorkingDirectory(dir);
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(program, args);
        if (!p.waitForFinished(240000)) return -1;
        if (out) *out = p.readAll();
        return p.exitCode();
    }
};

// The package is built once, in a scratch directory, from this build tree's install rules,
// and extracted there.
void TstPackage::initTestCase()
{
    QVERIFY(dir_.isValid());
    QString out;
    QCOMPARE(
        run("cpack",
            {"-G", "DEB", "--config", RINGLAB_BUILD_DIR "/CPackConfig.cmake", "-B", dir_.path()},
            dir_.path(), &out),
        0);
    const QStringList debs = QDir(dir_.path()).entryList({"ringlab_*.deb"});
    QVERIFY2(debs.size() == 1, qPrintable(out));
    deb_ = dir_.filePath(debs.first());
    root_ = dir_.filePath("root");
    QCOMPARE(run("dpkg-deb", {"-x", deb_, root_}, dir_.path(), &out), 0);
}

void TstPackage::packageHoldsTheProgramsAndStarts()
{
    QTemporaryDir &dir = dir_;
    const QString &deb = deb_;
    QString out;
    QCOMPARE(run("dpkg-deb", {"-c", deb}, dir.path(), &out), 0);
    const QString id = QStringLiteral(RINGLAB_APP_ID);
    for (const QString &path : {QString("./usr/bin/ringlab"), QString("./usr/bin/ringlab-engine"),
                                QString("./usr/share/ringlab/profiles/default.json"),
                                QString("./usr/share/ringlab/profiles/kni-sleep-100-200.json"),
                                "./usr/share/applications/" + id + ".desktop",
                                "./usr/share/metainfo/" + id + ".metainfo.xml",
                                "./usr/share/icons/hicolor/scalable/apps/" + id + ".svg",
                                QString("./usr/lib/systemd/system/ringlab-engine.service"),
                                QString("./usr/share/man/man1/ringlab.1.gz"),
                                QString("./usr/share/man/man1/ringlab-engine.1.gz"),
                                QString("./usr/share/bash-completion/completions/ringlab-engine"),
                                QString("./usr/share/doc/ringlab/copyright"),
                                QString("./usr/share/doc/ringlab/changelog.gz")})
        QVERIFY2(out.contains(path), qPrintable(path));
    // A reverse-DNS id the project owns, not a placeholder.
    QVERIFY2(id.startsWith("io.github.") && !out.contains("example"), qPrintable(id));
    QCOMPARE(run("dpkg-deb", {"-f", deb, "Depends"}, dir.path(), &out), 0);
    QVERIFY2(out.contains("libqt6charts6") && out.contains("libsqlite3"), qPrintable(out));
    // DPDK: its libraries from the binaries, its PMDs (plugins) named explicitly.
    QVERIFY2(out.contains("librte-ethdev23") && out.contains("librte-net-tap23") &&
                 out.contains("librte-net-null23") && out.contains("iproute2"),
             qPrintable(out));
    QVERIFY2(out.contains("adduser"), qPrintable(out)); // postinst creates the service's user

    // The service account comes and goes with the package: executable maintainer scripts.
    const QString control = dir.filePath("control");
    QCOMPARE(run("dpkg-deb", {"-e", deb, control}, dir.path(), &out), 0);
    for (const char *script : {"postinst", "prerm", "postrm"})
        QVERIFY2(QFileInfo(control + "/" + script).isExecutable(), script);

    // Installed programs start, and find their profiles where the package put them.
    const QString &root = root_;
    QCOMPARE(run(root + "/usr/bin/ringlab-engine", {"params"}, dir.path(), &out), 0);
    QVERIFY(out.contains("refill.threshold"));
    QCOMPARE(run(root + "/usr/bin/ringlab-engine", {"profiles"}, dir.path(), &out), 0);
    QVERIFY2(out.contains(root + "/usr/bin/../share/ringlab/profiles/default.json"),
             qPrintable(out));
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    QCOMPARE(run(root + "/usr/bin/ringlab", {"--version"}, dir.path(), &out, env), 0);
    QVERIFY2(out.contains("ringlab 0.1.0"), qPrintable(out));

    // systemd accepts the unit. verify also wants ExecStart's program to exist, so a copy
    // names the extracted one; the copy keeps the unit's name, which verify reads.
    if (QStandardPaths::findExecutable("systemd-analyze").isEmpty()) {
        // As tests/require.h: CI has every tool, a developer may not.
        if (qEnvironmentVariableIsSet("CI")) QFAIL("CI must verify the unit: no systemd-analyze");
        qWarning("systemd-analyze is not installed (package systemd): the unit is not verified");
        return;
    }
    QFile unit(root + "/usr/lib/systemd/system/ringlab-engine.service");
    QVERIFY(unit.open(QIODevice::ReadOnly));
    QString text = QString::fromUtf8(unit.readAll());
    QVERIFY(text.contains("ExecStart=/usr/bin/ringlab-engine serve"));
    text.replace("ExecStart=/usr/bin/", "ExecStart=" + root + "/usr/bin/");
    QDir(dir.path()).mkdir("unit");
    QFile copy(dir.filePath("unit/ringlab-engine.service"));
    QVERIFY(copy.open(QIODevice::WriteOnly));
    copy.write(text.toUtf8());
    copy.close();
    // An unknown key or a bad value is only a warning: exit status 0, the unit named in output.
    // verify also looks up the unit's Documentation=man:ringlab-engine(1): in the package's
    // own man pages, as an installed system would find it.
    auto manEnv = QProcessEnvironment::systemEnvironment();
    manEnv.insert("MANPATH", root + "/usr/share/man");
    QCOMPARE(run("systemd-analyze", {"verify", copy.fileName()}, dir.path(), &out, manEnv), 0);
    QVERIFY2(!out.contains("ringlab-engine.service"), qPrintable(out));
}

// Debian's policy checker on the package, as a Debian developer runs it: no E: and no W:.
void TstPackage::lintianFindsNothing()
{
    RINGLAB_REQUIRE(!QStandardPaths::findExecutable("lintian").isEmpty(), "lintian");
    QString out;
    // --no-tag-display-limit: every tag once per occurrence; info tags shown but not fatal.
    const int rc =
        run("lintian", {"--no-tag-display-limit", "--display-info", deb_}, dir_.path(), &out);
    QStringList fatal;
    for (const QString &l : out.split('\n'))
        if (l.startsWith("E: ") || l.startsWith("W: ")) fatal << l;
    QVERIFY2(fatal.isEmpty(), qPrintable(fatal.join('\n')));
    QVERIFY2(rc == 0, qPrintable(out)); // lintian itself failing is not a pass
}

void TstPackage::metadataValidates()
{
    const QString id = QStringLiteral(RINGLAB_APP_ID);
    RINGLAB_REQUIRE(!QStandardPaths::findExecutable("appstreamcli").isEmpty(),
                    "appstreamcli (package appstream)");
    QString out;
    const QString metainfo = root_ + "/usr/share/metainfo/" + id + ".metainfo.xml";
    QVERIFY2(run("appstreamcli", {"validate", "--no-net", "--pedantic", metainfo}, dir_.path(),
                 &out) == 0,
             qPrintable(out));
    QVERIFY2(!out.contains("W: ") && !out.contains("E: "), qPrintable(out));
    RINGLAB_REQUIRE(!QStandardPaths::findExecutable("desktop-file-validate").isEmpty(),
                    "desktop-file-validate (package desktop-file-utils)");
    const QString desktop = root_ + "/usr/share/applications/" + id + ".desktop";
    QVERIFY2(run("desktop-file-validate", {desktop}, dir_.path(), &out) == 0, qPrintable(out));
    QVERIFY2(out.trimmed().isEmpty(), qPrintable(out));
    // The window says which desktop entry it is: the same id.
    QFile f(desktop);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains("Icon=" + id.toUtf8()));
}

void TstPackage::manualPagesRender()
{
    RINGLAB_REQUIRE(!QStandardPaths::findExecutable("man").isEmpty(), "man (package man-db)");
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("MANWIDTH", "80");
    env.insert("LC_ALL", "C.UTF-8");
    for (const char *page : {"ringlab-engine", "ringlab"}) {
        QString out;
        const QString file = root_ + "/usr/share/man/man1/" + page + ".1.gz";
        QCOMPARE(run("man", {"-l", file}, dir_.path(), &out, env), 0);
        // The NAME line as whatis(1) reads it, and the sections.
        QVERIFY2(out.contains(QRegularExpression("\\n\\s+" + QRegularExpression::escape(page) +
                                                 "\\s+-\\s+\\S")) &&
                     out.contains("\nSYNOPSIS\n"),
                 qPrintable(out));
        if (QString(page) == "ringlab-engine")
            QVERIFY2(out.contains("poll.sleep_min_us") && out.contains("sessions export"),
                     qPrintable(out.left(2000)));
    }
}

QTEST_GUILESS_MAIN(TstPackage)
#include "tst_package.moc"
