// SPDX-License-Identifier: GPL-2.0-or-later
// The Debian package: built with cpack from this build tree, its file list checked, and
// the programs it installs started from an extracted copy; its systemd unit checked by
// systemd-analyze and its maintainer scripts present.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

class TstPackage : public QObject {
    Q_OBJECT
  private slots:
    void packageHoldsTheProgramsAndStarts();

  private:
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

void TstPackage::packageHoldsTheProgramsAndStarts()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString out;
    // The package is built in a scratch directory from this build tree's install rules.
    QCOMPARE(
        run("cpack",
            {"-G", "DEB", "--config", RINGLAB_BUILD_DIR "/CPackConfig.cmake", "-B", dir.path()},
            dir.path(), &out),
        0);
    const QStringList debs = QDir(dir.path()).entryList({"ringlab_*.deb"});
    QVERIFY2(debs.size() == 1, qPrintable(out));
    const QString deb = dir.filePath(debs.first());

    QCOMPARE(run("dpkg-deb", {"-c", deb}, dir.path(), &out), 0);
    for (const char *path : {"./usr/bin/ringlab", "./usr/bin/ringlab-engine",
                             "./usr/share/ringlab/profiles/default.json",
                             "./usr/share/ringlab/profiles/kni-sleep-100-200.json",
                             "./usr/share/applications/org.example.ringlab.desktop",
                             "./usr/share/metainfo/org.example.ringlab.metainfo.xml",
                             "./usr/share/icons/hicolor/scalable/apps/org.example.ringlab.svg",
                             "./usr/lib/systemd/system/ringlab-engine.service"})
        QVERIFY2(out.contains(QString::fromLatin1(path)), path);
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
    const QString root = dir.filePath("root");
    QCOMPARE(run("dpkg-deb", {"-x", deb, root}, dir.path(), &out), 0);
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
    QCOMPARE(run("systemd-analyze", {"verify", copy.fileName()}, dir.path(), &out), 0);
    QVERIFY2(!out.contains("ringlab-engine.service"), qPrintable(out));
}

QTEST_GUILESS_MAIN(TstPackage)
#include "tst_package.moc"
