// SPDX-License-Identifier: GPL-2.0-or-later
// The Debian package: built with cpack from this build tree, its file list checked, and
// the programs it installs started from an extracted copy.
#include <QDir>
#include <QProcess>
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
                             "./usr/share/icons/hicolor/scalable/apps/org.example.ringlab.svg"})
        QVERIFY2(out.contains(QString::fromLatin1(path)), path);
    QCOMPARE(run("dpkg-deb", {"-f", deb, "Depends"}, dir.path(), &out), 0);
    QVERIFY2(out.contains("libqt6charts6") && out.contains("libsqlite3"), qPrintable(out));
    // DPDK: its libraries from the binaries, its PMDs (plugins) named explicitly.
    QVERIFY2(out.contains("librte-ethdev23") && out.contains("librte-net-tap23") &&
                 out.contains("librte-net-null23") && out.contains("iproute2"),
             qPrintable(out));

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
}

QTEST_GUILESS_MAIN(TstPackage)
#include "tst_package.moc"
