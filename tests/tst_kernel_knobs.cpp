// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel's own receive-path settings as tunables of a kernel device's run (issue 44,
// part 2), set as a user sets them: on the command line and live on the engine's standard
// input. Each is written to the lab's NAPI (netdev netlink's napi-set) or to the host's sysctl
// while the run lasts, read back here from the kernel, and put back when the run ends: cleanly,
// or after a kill -9 by `ringlab-engine restore`. A knob the netdev cannot take is refused by
// name. The lab needs root: CI runs as root; elsewhere those cases are skipped and say so.
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QtTest>

#include "drivers/host/ethtool_netlink.h"
#include "drivers/host/netdev_napi.h"
#include "drivers/host/thread_sched.h"
#include "engine_run.h"
#include "require.h"

using ringlab::host::NapiInstance;
using ringlab::host::NetdevNetlink;

class TstKernelKnobs : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void cleanupTestCase();
    void aKnobWithoutANapiIsRefusedByName();
    void settingsAreSetLiveAndPutBackAtTheEnd();
    void aKilledRunsSettingsArePutBackByRestore();
    void theDriversSettingsAndTheKthreadsPolicyAreSetLive();
    void aThreadsAffinityIsKeptByItsStartTime();

  private:
    static bool root() { return geteuid() == 0; }
    static QString sysctl(const char *name);
    // The NAPI of the lab's host-side veth of engine `pid` (the one its requests arrive on), or
    // an instance with id 0 while it has none.
    static NapiInstance labNapi(qint64 pid);
    static int labNapiCount(qint64 pid);
    // An ethtool setting of the lab's host-side veth ("rx-channels"), or -1 when unreadable.
    static long long labEthtool(qint64 pid, const char *attr);
    static QString sysfs(qint64 pid, const char *file);
    static QString allowedCpus(pid_t thread); // Cpus_allowed_list in /proc/PID/status
    static bool startRun(QProcess &p, const QStringList &sets);
    QString busyReadBefore_, busyPollBefore_;
};

void TstKernelKnobs::initTestCase()
{
    busyReadBefore_ = sysctl("busy_read");
    busyPollBefore_ = sysctl("busy_poll");
    QVERIFY(!busyReadBefore_.isEmpty() && !busyPollBefore_.isEmpty());
}

void TstKernelKnobs::cleanupTestCase()
{
    // Whatever a failed case left, the host is left as found.
    QCOMPARE(sysctl("busy_read"), busyReadBefore_);
    QCOMPARE(sysctl("busy_poll"), busyPollBefore_);
}

QString TstKernelKnobs::sysctl(const char *name)
{
    QFile f(QString("/proc/sys/net/core/%1").arg(name));
    return f.open(QIODevice::ReadOnly) ? QString::fromLatin1(f.readAll()).trimmed() : QString();
}

QString TstKernelKnobs::sysfs(qint64 pid, const char *file)
{
    QFile f(QString("/sys/class/net/rk%1a/%2").arg(pid).arg(file));
    return f.open(QIODevice::ReadOnly) ? QString::fromLatin1(f.readAll()).trimmed() : QString();
}

QString TstKernelKnobs::allowedCpus(pid_t thread)
{
    QFile f(QString("/proc/%1/status").arg(thread));
    if (!f.open(QIODevice::ReadOnly)) return {};
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith("Cpus_allowed_list:"))
            return QString::fromLatin1(line.mid(18)).trimmed();
    return {};
}

NapiInstance TstKernelKnobs::labNapi(qint64 pid)
{
    const unsigned ifindex = if_nametoindex(QString("rk%1a").arg(pid).toLatin1().constData());
    NetdevNetlink nl;
    std::vector<NapiInstance> napis;
    if (ifindex == 0 || !NetdevNetlink::open(nl).ok() || !nl.napis(ifindex, napis).ok() ||
        napis.empty())
        return {};
    return napis.front();
}

int TstKernelKnobs::labNapiCount(qint64 pid)
{
    const unsigned ifindex = if_nametoindex(QString("rk%1a").arg(pid).toLatin1().constData());
    NetdevNetlink nl;
    std::vector<NapiInstance> napis;
    if (ifindex == 0 || !NetdevNetlink::open(nl).ok() || !nl.napis(ifindex, napis).ok()) return -1;
    return static_cast<int>(napis.size());
}

long long TstKernelKnobs::labEthtool(qint64 pid, const char *attr)
{
    const unsigned ifindex = if_nametoindex(QString("rk%1a").arg(pid).toLatin1().constData());
    ringlab::host::EthtoolNetlink et;
    std::uint64_t v = 0;
    if (ifindex == 0 || !ringlab::host::EthtoolNetlink::open(et).ok() ||
        !et.get(ifindex, attr, v).ok())
        return -1;
    return static_cast<long long>(v);
}

bool TstKernelKnobs::startRun(QProcess &p, const QStringList &sets)
{
    QStringList args{"run",        "--device", "kernel-lab", "--set", "load.rate_pps=5000",
                     "--duration", "60s",      "--no-record"};
    for (const QString &s : sets)
        args << "--set" << s;
    p.setStandardOutputFile(QProcess::nullDevice()); // its samples are not read here
    p.start(RINGLAB_ENGINE_BIN, args);
    return p.waitForStarted();
}

// lo has no NAPI: a NAPI setting there is refused at the start, naming the knob, the value,
// the interface and why. No root needed.
void TstKernelKnobs::aKnobWithoutANapiIsRefusedByName()
{
    const test::EngineRun r = test::runEngine(
        RINGLAB_ENGINE_BIN, {"run", "--device", "kernel:lo,port=9011", "--set",
                             "napi.defer_hard_irqs=2", "--duration", "1s", "--no-record"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("napi.defer_hard_irqs = 2 on lo: lo has no NAPI now"),
             qPrintable(r.err));
    // host (-1), the default, asks nothing of it.
    const test::EngineRun ok = test::runEngine(
        RINGLAB_ENGINE_BIN, {"run", "--device", "kernel:lo,port=9011", "--set",
                             "napi.defer_hard_irqs=host", "--duration", "1s", "--no-record"});
    QCOMPARE(ok.exitCode, 0);
}

void TstKernelKnobs::settingsAreSetLiveAndPutBackAtTheEnd()
{
    RINGLAB_REQUIRE(root(), "the kernel lab and the host's settings need root");
    QProcess p;
    QVERIFY(startRun(p, {"poll.mode=interrupt", "napi.gro_flush_timeout_ns=20000"}));
    const qint64 pid = p.processId();
    auto ended = qScopeGuard([&p] { // a failed check still ends the run as a user would
        if (p.state() == QProcess::NotRunning) return;
        p.write("quit\n");
        p.waitForFinished(30000);
    });
    // Set at the start, on the NAPI itself: the device-wide sysfs file keeps its value.
    QTRY_COMPARE_WITH_TIMEOUT(labNapi(pid).groFlushTimeoutNs.value_or(0), 20000u, 20000);
    QCOMPARE(sysfs(pid, "gro_flush_timeout"), QString("0"));
    const NapiInstance before = labNapi(pid);
    QCOMPARE(before.deferHardIrqs.value_or(99), 0u);
    QCOMPARE(before.threaded.value_or(99), 0u);

    // Live, as typed on standard input.
    p.write("set napi.defer_hard_irqs 2\nset net.busy_read_us 7\nset napi.threaded 1\n");
    QTRY_COMPARE_WITH_TIMEOUT(sysctl("busy_read"), QString("7"), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(labNapi(pid).deferHardIrqs.value_or(0), 2u, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(labNapi(pid).pid.value_or(0) > 0, 10000); // its kthread
    QCOMPARE(labNapi(pid).threaded.value_or(0), 1u);
    // Its kthread pinned to a CPU, and back to the host's CPUs with host.
    const pid_t kthread = *labNapi(pid).pid;
    const QString cpusBefore = allowedCpus(kthread);
    QVERIFY(!cpusBefore.isEmpty());
    p.write("set napi.kthread_cpu 0\n");
    QTRY_COMPARE_WITH_TIMEOUT(allowedCpus(kthread), QString("0"), 10000);
    p.write("set napi.kthread_cpu host\n");
    QTRY_COMPARE_WITH_TIMEOUT(allowedCpus(kthread), cpusBefore, 10000);
    // host puts the host's value back at once, mid-run.
    p.write("set napi.gro_flush_timeout_ns host\n");
    QTRY_COMPARE_WITH_TIMEOUT(labNapi(pid).groFlushTimeoutNs.value_or(99), 0u, 10000);
    // The run's journal holds what it changed, on disk, while it runs.
    const QStringList journals =
        QDir("/run/ringlab/journal").entryList({QString("journal-%1-*").arg(pid)}, QDir::Files);
    QCOMPARE(journals.size(), 1);
    // A value beyond what the registry allows is refused by name...
    QString err;
    p.write("set napi.threaded 3\n");
    QTRY_VERIFY2_WITH_TIMEOUT((err += QString::fromUtf8(p.readAllStandardError()),
                               err.contains("napi.threaded: \"3\" is out of range")),
                              qPrintable(err), 10000);
    // ...and one the registry allows but this kernel's policy does not, with the kernel's
    // range: the whole change is refused (the socket option in it undone).
    std::vector<ringlab::host::NapiAttrLimits> limits;
    NetdevNetlink nl;
    QVERIFY(NetdevNetlink::open(nl).ok() && nl.settable(limits).ok());
    std::uint64_t threadedMax = 0;
    for (const auto &l : limits)
        if (l.attr->name == "threaded") threadedMax = l.max;
    if (threadedMax < 2) {
        p.write("set sock.busy_poll_us 20 napi.threaded 2\n");
        QTRY_VERIFY2_WITH_TIMEOUT(
            (err += QString::fromUtf8(p.readAllStandardError()),
             err.contains(
                 QString("napi.threaded = 2: this kernel takes 0 to %1").arg(threadedMax))),
            qPrintable(err), 10000);
    }
    QCOMPARE(labNapi(pid).threaded.value_or(0), 1u);
    // A CPU this machine lacks is refused with the range it has.
    p.write("set napi.kthread_cpu 1023\n");
    QTRY_VERIFY2_WITH_TIMEOUT(
        (err += QString::fromUtf8(p.readAllStandardError()),
         err.contains("napi.kthread_cpu = 1023: this machine's CPUs are 0 to")),
        qPrintable(err), 10000);

    p.write("quit\n");
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    err += QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains("ok: napi.defer_hard_irqs = 2"), qPrintable(err));
    // The end put back the host-wide sysctl; the NAPI went with the lab's veth.
    QCOMPARE(sysctl("busy_read"), busyReadBefore_);
    QVERIFY(QDir("/run/ringlab/journal")
                .entryList({QString("journal-%1-*").arg(pid)}, QDir::Files)
                .isEmpty());
}

void TstKernelKnobs::aKilledRunsSettingsArePutBackByRestore()
{
    RINGLAB_REQUIRE(root(), "the kernel lab and the host's settings need root");
    QProcess victim;
    QVERIFY(
        startRun(victim, {"napi.defer_hard_irqs=3", "net.busy_poll_us=9", "netdev.rx_channels=2"}));
    const qint64 pid = victim.processId();
    QTRY_COMPARE_WITH_TIMEOUT(sysctl("busy_poll"), QString("9"), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(labEthtool(pid, "rx-channels"), 2, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(labNapi(pid).deferHardIrqs.value_or(0), 3u, 10000);
    const std::uint32_t napiId = labNapi(pid).id;
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    QVERIFY(victim.waitForFinished());
    // Nothing could put them back: the journal on disk knows them.
    QCOMPARE(sysctl("busy_poll"), QString("9"));
    QCOMPARE(labNapi(pid).deferHardIrqs.value_or(0), 3u);

    QProcess restore;
    restore.start(RINGLAB_ENGINE_BIN, {"restore"});
    QVERIFY(restore.waitForFinished(30000));
    const QString out = QString::fromUtf8(restore.readAllStandardOutput());
    QCOMPARE(restore.exitCode(), 0);
    QVERIFY2(out.contains("restored /proc/sys/net/core/busy_poll to '" + busyPollBefore_ + "'"),
             qPrintable(out));
    QVERIFY2(
        out.contains(QString("restored netlink:netdev/napi/%1/defer-hard-irqs to '0'").arg(napiId)),
        qPrintable(out));
    QCOMPARE(sysctl("busy_poll"), busyPollBefore_);
    QCOMPARE(labNapi(pid).deferHardIrqs.value_or(99), 0u);
    // The driver's channels, through ethtool netlink, by the netdev's name and index.
    const unsigned ifindex = if_nametoindex(QString("rk%1a").arg(pid).toLatin1().constData());
    QVERIFY2(
        out.contains(QString("restored ethtool:rk%1a:%2/rx-channels to '1'").arg(pid).arg(ifindex)),
        qPrintable(out));
    QCOMPARE(labEthtool(pid, "rx-channels"), 1);

    // The next run removes the dead run's lab; its NAPI goes with it.
    const test::EngineRun next = test::runEngine(
        RINGLAB_ENGINE_BIN, {"run", "--device", "kernel-lab", "--duration", "1s", "--no-record"});
    QCOMPARE(next.exitCode, 0);
    QTRY_COMPARE_WITH_TIMEOUT(labNapi(pid).id, 0u, 10000);
}

// The netdev's driver settings (ethtool netlink) and the NAPI kthreads' scheduling policy,
// live: GRO and channels make and remove the veth's NAPIs, a real-time policy reaches every
// kthread, and what a veth lacks (rings, coalescing, interrupts) is refused naming why.
void TstKernelKnobs::theDriversSettingsAndTheKthreadsPolicyAreSetLive()
{
    RINGLAB_REQUIRE(root(), "the kernel lab and the host's settings need root");
    QProcess p;
    QVERIFY(startRun(p, {"netdev.rx_channels=2"}));
    const qint64 pid = p.processId();
    auto ended = qScopeGuard([&p] {
        if (p.state() == QProcess::NotRunning) return;
        p.write("quit\n");
        p.waitForFinished(30000);
    });
    // Two receive channels, a NAPI each (the lab's veth starts with one).
    QTRY_COMPARE_WITH_TIMEOUT(labEthtool(pid, "rx-channels"), 2, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(labNapiCount(pid), 2, 10000);
    QCOMPARE(labEthtool(pid, "gro"), 1);
    // GRO off: a veth has no NAPI then; on again, its NAPIs come back.
    p.write("set netdev.gro 0\n");
    QTRY_COMPARE_WITH_TIMEOUT(labEthtool(pid, "gro"), 0, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(labNapiCount(pid), 0, 10000);
    p.write("set netdev.gro host\n");
    QTRY_COMPARE_WITH_TIMEOUT(labEthtool(pid, "gro"), 1, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(labNapiCount(pid), 2, 10000);
    // Every kthread real time, at the priority asked; back to the host's policy with host.
    p.write("set napi.threaded 1\nset napi.kthread_policy fifo napi.kthread_priority 30\n");
    auto policies = [pid] {
        QStringList out;
        const unsigned ifindex = if_nametoindex(QString("rk%1a").arg(pid).toLatin1().constData());
        NetdevNetlink nl;
        std::vector<NapiInstance> napis;
        if (ifindex == 0 || !NetdevNetlink::open(nl).ok() || !nl.napis(ifindex, napis).ok())
            return out;
        for (const auto &n : napis) {
            sched_param sp{};
            const pid_t t = n.pid.value_or(0);
            out << (t > 0 && sched_getparam(t, &sp) == 0
                        ? QString("%1 %2").arg(sched_getscheduler(t)).arg(sp.sched_priority)
                        : QString("none"));
        }
        return out;
    };
    const QString fifo30 = QString("%1 30").arg(SCHED_FIFO),
                  other = QString("%1 0").arg(SCHED_OTHER);
    QTRY_COMPARE_WITH_TIMEOUT(policies(), QStringList({fifo30, fifo30}), 10000);
    p.write("set napi.kthread_policy host\n");
    QTRY_COMPARE_WITH_TIMEOUT(policies(), QStringList({other, other}), 10000);

    // What the driver lacks or does not take, by name, with the reason.
    QString err;
    auto saysSo = [&](const QString &line, const QString &text) {
        p.write(line.toUtf8() + "\n");
        return QTest::qWaitFor(
            [&] {
                err += QString::fromUtf8(p.readAllStandardError());
                return err.contains(text);
            },
            10000);
    };
    QVERIFY2(saysSo("set netdev.rx_ring 512",
                    QString("netdev.rx_ring = 512: not on rk%1a here: rk%1a's driver does not "
                            "take ethtool -G rx")
                        .arg(pid)),
             qPrintable(err));
    QVERIFY2(saysSo("set napi.irq_cpu 0", QString("napi.irq_cpu = 0: not on rk%1a here: rk%1a has "
                                                  "no interrupts of its own")
                                              .arg(pid)),
             qPrintable(err));
    QVERIFY2(
        saysSo(
            "set netdev.rx_channels 9",
            QString("netdev.rx_channels = 9: the driver takes 1 to %1 for rk%2a").arg(4).arg(pid)),
        qPrintable(err));
    QCOMPARE(labEthtool(pid, "rx-channels"), 2);

    p.write("quit\n");
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
}

// The journal's address of a thread's affinity names the thread and its start time: it reads
// and writes the thread while it lives, and a thread that took the pid since (another start
// time) is "gone", never pinned.
void TstKernelKnobs::aThreadsAffinityIsKeptByItsStartTime()
{
    const pid_t self = static_cast<pid_t>(::syscall(SYS_gettid));
    std::string address, cpus;
    QVERIFY(ringlab::host::threadAffinityAddress(self, address).ok());
    QVERIFY(ringlab::host::isThreadAffinityAddress(address));
    QVERIFY(ringlab::host::readThreadAffinity(address, cpus).ok());
    QCOMPARE(QString::fromStdString(cpus), allowedCpus(self));
    QVERIFY(ringlab::host::writeThreadAffinity(address, "0").ok());
    QCOMPARE(allowedCpus(self), QString("0"));
    QVERIFY(ringlab::host::writeThreadAffinity(address, cpus).ok());
    QCOMPARE(QString::fromStdString(cpus), allowedCpus(self));
    QVERIFY(!ringlab::host::threadSettingGone(address));
    const std::string other = address.substr(0, address.find(':', 6) + 1) + "1/affinity";
    QVERIFY(ringlab::host::threadSettingGone(other));
    const ringlab::Status refused = ringlab::host::writeThreadAffinity(other, "0");
    QVERIFY2(!refused.ok() && refused.error.find("the thread is gone") != std::string::npos,
             refused.error.c_str());
    QVERIFY(!ringlab::host::writeThreadAffinity(address, "0-x").ok());
    QVERIFY(!ringlab::host::isThreadAffinityAddress("sched:0:1/affinity"));

    // Its policy, in chrt's words, by the same kind of address; what is not a policy and
    // priority is refused naming what is allowed.
    std::string policyAddress, policy;
    QVERIFY(ringlab::host::threadPolicyAddress(self, policyAddress).ok());
    QVERIFY(ringlab::host::isThreadPolicyAddress(policyAddress));
    QVERIFY(!ringlab::host::isThreadAffinityAddress(policyAddress));
    QVERIFY(ringlab::host::readThreadPolicy(policyAddress, policy).ok());
    QCOMPARE(QString::fromStdString(policy), QString("other 0"));
    QVERIFY(ringlab::host::writeThreadPolicy(policyAddress, "batch 0").ok());
    QCOMPARE(sched_getscheduler(0), SCHED_BATCH);
    QVERIFY(ringlab::host::writeThreadPolicy(policyAddress, policy).ok());
    QCOMPARE(sched_getscheduler(0), SCHED_OTHER);
    for (const char *bad : {"fifo 0", "fifo 100", "other 5", "deadline 1", "fifo", ""}) {
        const ringlab::Status st = ringlab::host::writeThreadPolicy(policyAddress, bad);
        QVERIFY2(!st.ok() && st.error.find("fifo 1-99") != std::string::npos, bad);
    }
}

QTEST_GUILESS_MAIN(TstKernelKnobs)
#include "tst_kernel_knobs.moc"
