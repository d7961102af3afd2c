// SPDX-License-Identifier: GPL-2.0-or-later
// ringlab-engine on real ports as a user runs it: the lab's real ping and iperf3 through the
// engine, the namespaces it creates and removes (also after kill -9), interrupt mode on
// net_tap, and the clear refusals for DPDK devices that cannot be had. The lab needs root:
// CI runs as root; elsewhere those cases are skipped and say so.
#include <signal.h>
#include <unistd.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/store/session_store.h"
#include "engine_run.h"
#include "require.h"

using namespace ringlab;

class TstLab : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { qputenv("XDG_DATA_HOME", dataHome_.path().toLocal8Bit()); }
    void badDeviceInput_data();
    void badDeviceInput();
    void devicesListsDpdkPorts();
    void privilegeIsAskedOnlyWhereNeeded();
    void pingCrossesTheEngine();
    void iperf3GoodputIsRecorded();
    void killedRunsNamespacesAreRemovedByTheNext();
    void idleInterruptModeCostsAlmostNothing();

  private:
    using Run = test::EngineRun;
    static Run run(const QStringList &args, int timeoutMs = 60000)
    {
        return test::runEngine(RINGLAB_ENGINE_BIN, args, timeoutMs);
    }
    static QStringList namespacesOf(qint64 pid);
    static bool root() { return geteuid() == 0; }
    QTemporaryDir dataHome_;
};

QStringList TstLab::namespacesOf(qint64 pid)
{
    QProcess p;
    p.start("ip", {"netns", "list"});
    p.waitForFinished(10000);
    QStringList out;
    const QString prefix = QString("ringlab-%1-").arg(pid);
    for (const QString &line : QString::fromUtf8(p.readAllStandardOutput()).split('\n'))
        if (line.startsWith(prefix)) out << line.section(' ', 0, 0);
    return out;
}

void TstLab::badDeviceInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("needsRoot");
    const QStringList base{"run", "--duration", "1s", "--db", "bad.db"};
    QTest::newRow("malformed spec")
        << (base + QStringList{"--device", "dpdk:"}) << 2 << "is not an EAL device" << false;
    QTest::newRow("three ports") << (base +
                                     QStringList{"--device", "dpdk:net_null0+net_null1+net_null2"})
                                 << 2 << "a DPDK device has one or two" << false;
    QTest::newRow("unknown kind") << (base + QStringList{"--device", "eth0"}) << 2
                                  << "unknown device" << false;
    QTest::newRow("unknown PMD") << (base + QStringList{"--device", "dpdk:net_nosuch0"}) << 1
                                 << "PMDs here: " << false;
    QTest::newRow("EAL refuses its arguments")
        << (base + QStringList{"--device", "dpdk:net_null0", "--eal", "--no-such-eal-option"}) << 1
        << "DPDK could not start" << false;
    QTest::newRow("PCI address not there")
        << (base + QStringList{"--device", "dpdk:0000:7f:1f.7"}) << 1 << "has no DPDK port" << true;
    QTest::newRow("traffic without the lab")
        << (base + QStringList{"--traffic", "ping -i 0.2"}) << 2 << "needs --device lab" << false;
    QTest::newRow("traffic to another host")
        << (base + QStringList{"--device", "lab", "--traffic", "ping 10.0.0.1"}) << 2
        << "is not allowed: the lab chooses the destination" << true;
    QTest::newRow("profile naming an unknown device")
        << (base + QStringList{"--profile", QFINDTESTDATA("data/eth0-profile.json")}) << 2
        << "eth0-profile.json: --device \"eth0\": unknown device" << false;
    QTest::newRow("profile the port cannot run")
        << (base + QStringList{"--device", "dpdk:net_null0", "--profile", "mhi-thread"}) << 2
        << "refill.context" << false;
}

void TstLab::badDeviceInput()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QFETCH(bool, needsRoot);
    if (needsRoot) RINGLAB_REQUIRE(root(), "needs root");
    QTemporaryDir dir;
    QDir::setCurrent(dir.path());
    const Run r = run(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(r.err.count('\n') <= 3, qPrintable(r.err)); // one clear message, not a log
    // Nothing is recorded half-way.
    if (QFile::exists(dir.filePath("bad.db"))) {
        SessionStore store(dir.filePath("bad.db").toStdString());
        QCOMPARE(store.list().size(), std::size_t{0});
    }
}

void TstLab::privilegeIsAskedOnlyWhereNeeded()
{
    RINGLAB_REQUIRE(root() && !QStandardPaths::findExecutable("setpriv").isEmpty(),
                    "needs root and setpriv to run a command as nobody");
    auto asNobody = [](const QStringList &args) {
        QProcess p;
        p.setWorkingDirectory(QDir::tempPath());
        p.start("setpriv", QStringList{"--reuid=65534", "--regid=65534", "--clear-groups",
                                       RINGLAB_ENGINE_BIN} +
                               args);
        p.closeWriteChannel();
        p.waitForFinished(60000);
        return std::pair{p.exitCode(), QString::fromUtf8(p.readAllStandardError())};
    };
    const auto nul = asNobody({"run", "--device", "dpdk:net_null0", "--duration", "1s",
                               "--no-record", "--output", "jsonl"});
    QVERIFY2(nul.first == 0, qPrintable(nul.second));
    const auto tap = asNobody(
        {"run", "--device", "dpdk:net_tap0,iface=rlx0", "--duration", "1s", "--no-record"});
    QCOMPARE(tap.first, 2);
    QVERIFY2(tap.second.contains("net_tap needs root"), qPrintable(tap.second));
    const auto lab = asNobody({"run", "--device", "lab", "--duration", "1s", "--no-record"});
    QCOMPARE(lab.first, 2);
    QVERIFY2(lab.second.contains("--device lab needs root"), qPrintable(lab.second));
}

void TstLab::devicesListsDpdkPorts()
{
    QProcess p;
    p.start(RINGLAB_ENGINE_BIN, {"devices", "--json"});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonArray arr = QJsonDocument::fromJson(p.readAllStandardOutput()).array();
    QHash<QString, QJsonObject> byDriver;
    for (const auto &v : arr)
        byDriver.insert(v.toObject()["driver"].toString(), v.toObject());
    QVERIFY(byDriver.contains("sim"));
    QVERIFY(byDriver["net_null"]["available"].toBool());
    QCOMPARE(byDriver["net_null"]["link"].toString(), QString("up, 10000 Mbit/s"));
    QVERIFY(!byDriver["net_null"]["rx_interrupts"].toBool());
    bool refillFixed = false;
    for (const auto &s : byDriver["net_null"]["support"].toArray())
        refillFixed |=
            s.toObject()["tunable"] == "refill.context" && s.toObject()["support"] == "fixed";
    QVERIFY(refillFixed);
    if (root()) QVERIFY(byDriver["net_tap"]["rx_interrupts"].toBool());
}

void TstLab::pingCrossesTheEngine()
{
    RINGLAB_REQUIRE(root(), "the lab needs root");
    QTemporaryDir dir;
    const QString db = dir.filePath("lab.db");
    const Run r =
        run({"run", "--device", "lab", "--traffic", "ping -i 0.02 -c 50", "--set",
             "poll.mode=sleep", "--set", "poll.sleep_min_us=50", "--set", "poll.sleep_max_us=100",
             "--set", "tx.coalesce_frames=1", "--duration", "3s", "--output", "jsonl", "--db", db});
    QCOMPARE(r.exitCode, 0);
    bool summary = false;
    for (const auto &e : r.events)
        summary |= e["message"].toString().contains("50 packets transmitted, 50 received, 0% "
                                                    "packet loss");
    QVERIFY2(summary, qPrintable(r.err));
    // Every reply's round trip is in the probe histogram, live and in the session.
    int live = 0;
    for (const auto &s : r.samples)
        live += s["probe_rtt_us"].toObject()["count"].toInt();
    QCOMPARE(live, 50);
    // The replies are a running total, with its unit, in every line and in the summary.
    QVERIFY(!r.samples.isEmpty());
    const QJsonObject last = r.samples.back();
    QCOMPARE(last["device"].toObject()["ping_replies"].toDouble(), 50.0);
    QCOMPARE(last["device_units"].toObject()["ping_replies"].toString(), QString("packets"));
    QVERIFY(last["device_totals"].toArray().contains(QJsonValue("ping_replies")));
    QCOMPARE(r.summary["totals"].toObject()["ping_replies"].toDouble(), 50.0);
    QVERIFY(!r.summary["metrics"].toObject().contains("ping_replies")); // not averaged
    SessionStore store(db.toStdString());
    const auto sessions = store.list();
    QCOMPARE(sessions.size(), std::size_t{1});
    QVERIFY(QString::fromStdString(sessions[0].device).startsWith("lab (ringlab-"));
    const SampleTable t = store.samples(sessions[0].id);
    const int col = t.column("rtt_count");
    QVERIFY(col >= 0);
    double recorded = 0;
    for (double v : t.values[static_cast<std::size_t>(col)])
        if (!std::isnan(v)) recorded += v;
    QCOMPARE(recorded, 50.0);
    // The TAP port's facts are in the session: its PMD, and the kernel side's absence said
    // (the interface was moved into the lab's namespace).
    const Environment env = store.environment(sessions[0].id);
    std::vector<const Fact *> drivers;
    for (const auto &f : env.facts)
        if (f.key.rfind("port.driver[", 0) == 0) drivers.push_back(&f);
    QVERIFY(!drivers.empty());
    for (const Fact *f : drivers) {
        QVERIFY2(f->value.find("net_tap") == 0, f->value.c_str());
        const std::string port = factInstance(f->key);
        for (const char *spec : {"port.dpdk_version", "port.firmware", "port.irqs"})
            QVERIFY2(env.find(factKey(spec, port)), spec);
        QVERIFY(env.find(factKey("port.dpdk_version", port))->present());
        QVERIFY(!env.find(factKey("port.irqs", port))->present()); // a TAP has no IRQ
    }
    // The namespaces went with the run.
    QProcess ipList;
    ipList.start("ip", {"netns", "list"});
    QVERIFY(ipList.waitForFinished(10000));
    QVERIFY(!QString::fromUtf8(ipList.readAllStandardOutput()).contains("ringlab-"));
}

void TstLab::iperf3GoodputIsRecorded()
{
    RINGLAB_REQUIRE(root(), "the lab needs root");
    QTemporaryDir dir;
    const QString db = dir.filePath("lab.db");
    const Run r = run({"run", "--device", "lab", "--traffic", "iperf3 -u -b 20M -l 1200 -t 2",
                       "--set", "poll.mode=sleep", "--set", "tx.coalesce_usecs=100", "--duration",
                       "4s", "--output", "jsonl", "--db", db});
    QCOMPARE(r.exitCode, 0);
    QVector<double> goodput;
    for (const auto &s : r.samples)
        if (const QJsonObject d = s["device"].toObject(); d.contains("iperf_goodput_mbps")) {
            goodput << d["iperf_goodput_mbps"].toDouble();
            QCOMPARE(s["device_units"].toObject()["iperf_goodput_mbps"].toString(),
                     QString("Mbit/s"));
        }
    QVERIFY2(goodput.size() >= 3, qPrintable(r.err));
    std::sort(goodput.begin(), goodput.end());
    QVERIFY2(goodput[goodput.size() / 2] > 10,
             qPrintable(QString::number(goodput[goodput.size() / 2])));
    bool receiver = false;
    for (const auto &e : r.events)
        receiver |= e["message"].toString().contains("receiver");
    QVERIFY(receiver);
    SessionStore store(db.toStdString());
    const SampleTable t = store.samples(store.list().at(0).id);
    QVERIFY(t.column("iperf_goodput_mbps") >= 0);
    QVERIFY(t.column("iperf_loss_pct") >= 0);
}

void TstLab::killedRunsNamespacesAreRemovedByTheNext()
{
    RINGLAB_REQUIRE(root(), "the lab needs root");
    QProcess victim;
    victim.start(RINGLAB_ENGINE_BIN, {"run", "--device", "lab", "--no-record"});
    QVERIFY(victim.waitForStarted());
    const qint64 pid = victim.processId();
    QTRY_COMPARE_WITH_TIMEOUT(namespacesOf(pid).size(), 2, 20000);
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    QVERIFY(victim.waitForFinished());
    QCOMPARE(namespacesOf(pid).size(), 2); // nothing could clean up

    const Run next =
        run({"run", "--device", "lab", "--duration", "1s", "--no-record", "--output", "jsonl"});
    QCOMPARE(next.exitCode, 0);
    QCOMPARE(namespacesOf(pid).size(), 0);
    bool said = false;
    for (const auto &e : next.events)
        said |= e["message"].toString().contains(QString("ringlab-%1-a").arg(pid));
    QVERIFY(said);
}

void TstLab::idleInterruptModeCostsAlmostNothing()
{
    RINGLAB_REQUIRE(root(), "the lab needs root");
    const Run r = run({"run", "--device", "lab", "--set", "poll.mode=interrupt", "--duration", "3s",
                       "--no-record", "--output", "jsonl"});
    QCOMPARE(r.exitCode, 0);
    QVector<double> cpu;
    for (const auto &s : r.samples)
        if (s["t"].toDouble() > 1.0) // after the warm-up
            for (const auto &t : s["cpu"].toObject()["threads"].toArray()) {
                const QJsonObject th = t.toObject();
                if (th["name"] == "poll") {
                    QVERIFY(th.contains("cpu_pct"));
                    cpu << th["cpu_pct"].toDouble();
                }
            }
    QVERIFY2(cpu.size() >= 15, qPrintable(QString::number(cpu.size())));
    std::sort(cpu.begin(), cpu.end());
    QVERIFY2(cpu[cpu.size() / 2] < 1.0, qPrintable(QString::number(cpu[cpu.size() / 2])));
}

QTEST_GUILESS_MAIN(TstLab)
#include "tst_lab.moc"
