// SPDX-License-Identifier: GPL-2.0-or-later
// What the kernel's receive path spends (drivers/kernel/kernel_stats, issue 44 part 3): the
// readers on a tree of files written by the test (exact values, the CPU column of
// softnet_stat, malformed files refused by file and line), the rates between two readings,
// and as root on a veth pair with real traffic: 300 pings from the peer's namespace are
// counted by the netdev, by the softnet counters and by NET_RX softirqs, and a thread's CPU
// time agrees with what it spent.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <ctime>
#include <unistd.h>

#include "drivers/kernel/kernel_stats.h"
#include "drivers/kernel/kernel_watch.h"
#include "tests/require.h"
#include "tests/veth_pair.h"

using namespace ringlab;
using namespace ringlab::kernel;

namespace {
void write(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}

double metricValue(const std::vector<DeviceMetric> &ms, std::string_view name)
{
    for (const auto &m : ms)
        if (m.name == name) return m.value;
    return -1;
}

// A softnet_stat as Linux 6.18 writes it, for online CPUs 0 and 3.
QByteArray softnet(unsigned processed0, unsigned processed3, unsigned squeeze3)
{
    auto line = [](unsigned processed, unsigned dropped, unsigned squeeze, unsigned cpu) {
        return QString::asprintf("%08x %08x %08x 00000000 00000000 00000000 00000000 00000000 "
                                 "00000000 00000000 00000000 00000000 %08x 00000000 00000000\n",
                                 processed, dropped, squeeze, cpu)
            .toLatin1();
    };
    return line(processed0, 2, 0, 0) + line(processed3, 0, squeeze3, 3);
}

QByteArray softirqs(unsigned rx0, unsigned rx1)
{
    return QString::asprintf("                    CPU0       CPU1\n"
                             "          HI:          1          0\n"
                             "      NET_TX:         10         20\n"
                             "      NET_RX:    %7u    %7u\n"
                             "       BLOCK:          0          0\n",
                             rx0, rx1)
        .toLatin1();
}

QByteArray netstat(unsigned busy)
{
    return QString::asprintf("TcpExt: SyncookiesSent BusyPollRxPackets TCPAutoCorking\n"
                             "TcpExt: 0 %u 5\n"
                             "IpExt: InNoRoutes\nIpExt: 0\n",
                             busy)
        .toLatin1();
}
} // namespace

class TstKernelStats : public QObject {
    Q_OBJECT
  private slots:
    void countersReadFromATreeAndTurnedIntoRates();
    void malformedFilesAreRefusedByFileAndLine();
    void netdevAndThreadCounters();
    void realTrafficOnAVethIsCountedEverywhere();
};

void TstKernelStats::countersReadFromATreeAndTurnedIntoRates()
{
    QTemporaryDir dir;
    const QString proc = dir.filePath("proc");
    write(proc + "/net/softnet_stat", softnet(0x100, 0x10, 1));
    write(proc + "/softirqs", softirqs(1000, 50));
    write(proc + "/net/netstat", netstat(7));
    KernelCounters a, b;
    const Status st = readKernelCounters(a, proc.toStdString());
    QVERIFY2(st.ok(), st.error.c_str());
    QCOMPARE(a.softnet.size(), std::size_t{2});
    QCOMPARE(a.softnet[1].cpu, 3); // the 13th column, not the line's place
    QCOMPARE(a.softnet[0].processed, std::uint64_t{0x100});
    QCOMPARE(a.softnet[0].dropped, std::uint64_t{2});
    QCOMPARE(a.netRx, (std::vector<std::uint64_t>{1000, 50}));
    QCOMPARE(a.netTx, (std::vector<std::uint64_t>{10, 20}));
    QVERIFY(a.hasBusyPoll);
    QCOMPARE(a.busyPollRxPackets, std::uint64_t{7});

    // Two seconds later.
    write(proc + "/net/softnet_stat", softnet(0x100 + 400, 0x10 + 200, 5));
    write(proc + "/softirqs", softirqs(1600, 50));
    write(proc + "/net/netstat", netstat(107));
    QVERIFY(readKernelCounters(b, proc.toStdString()).ok());
    const auto r = kernelRates(a, b, 2.0);
    QCOMPARE(metricValue(r, "kernel_softnet_processed_per_s"), 300.0);
    QCOMPARE(metricValue(r, "kernel_softnet_time_squeeze_per_s"), 2.0);
    QCOMPARE(metricValue(r, "kernel_softnet_dropped_per_s"), 0.0);
    QCOMPARE(metricValue(r, "kernel_net_rx_softirqs_per_s"), 300.0);
    QCOMPARE(metricValue(r, "kernel_net_tx_softirqs_per_s"), 0.0);
    QCOMPARE(metricValue(r, "kernel_busy_poll_rx_per_s"), 50.0);
    // Every figure is a row of the one table, with its unit.
    for (const auto &m : r) {
        bool listed = false;
        for (const KernelMetric &k : kernelMetrics())
            listed |= k.name == m.name && k.unit == m.unit;
        QVERIFY2(listed, m.name.c_str());
    }
    // A CPU's counter that went back (offline and on again) counts from zero: no negative
    // and no wrapped rate.
    write(proc + "/softirqs", softirqs(30, 50));
    KernelCounters c;
    QVERIFY(readKernelCounters(c, proc.toStdString()).ok());
    QCOMPARE(metricValue(kernelRates(b, c, 1.0), "kernel_net_rx_softirqs_per_s"), 30.0);
    QVERIFY(kernelRates(a, b, 0).empty());
    // A kernel without TcpExt's busy-poll counter: no busy-poll figure, not a zero.
    write(proc + "/net/netstat", "IpExt: InNoRoutes\nIpExt: 0\n");
    KernelCounters d;
    QVERIFY(readKernelCounters(d, proc.toStdString()).ok());
    QVERIFY(!d.hasBusyPoll);
    QCOMPARE(metricValue(kernelRates(d, d, 1.0), "kernel_busy_poll_rx_per_s"), -1.0);
    // Who drove each poll: a rate of polls and of frames per source, each a row of the table.
    PollCounts p0, p1;
    p1.polls[static_cast<std::size_t>(PollSource::Busy)] = 500;
    p1.packets[static_cast<std::size_t>(PollSource::Busy)] = 40;
    p1.packets[static_cast<std::size_t>(PollSource::Watchdog)] = 8;
    const auto polls = pollRates(p0, p1, 2.0);
    QCOMPARE(polls.size(), 2 * kPollSources);
    QCOMPARE(metricValue(polls, "kernel_polls_busy_per_s"), 250.0);
    QCOMPARE(metricValue(polls, "kernel_poll_packets_busy_per_s"), 20.0);
    QCOMPARE(metricValue(polls, "kernel_poll_packets_timer_per_s"), 4.0);
    QCOMPARE(metricValue(polls, "kernel_polls_kthread_per_s"), 0.0);
    for (const auto &m : polls) {
        bool listed = false;
        for (const KernelMetric &k : kernelMetrics())
            listed |= k.name == m.name && k.unit == m.unit;
        QVERIFY2(listed, m.name.c_str());
    }
    QCOMPARE(metricValue(pollRates(p1, p0, 1.0), "kernel_polls_busy_per_s"), 0.0); // went back
    // Between two readings, only NAPIs present in both count: one that came (channels
    // changed) adds nothing at once, and one that went takes nothing away.
    KernelReading before, after;
    before.atNs = 1'000'000'000;
    after.atNs = 2'000'000'000;
    before.hasPolls = after.hasPolls = true;
    PollCounts n1a, n1b, n2, n3;
    n1a.packets[static_cast<std::size_t>(PollSource::Busy)] = 100;
    n1b.packets[static_cast<std::size_t>(PollSource::Busy)] = 150;
    n2.packets[static_cast<std::size_t>(PollSource::Busy)] = 10'000;
    n3.packets[static_cast<std::size_t>(PollSource::Busy)] = 7'000;
    before.polls = {{8193, n1a}, {8194, n3}};
    after.polls = {{8193, n1b}, {8195, n2}};
    DeviceReading figures;
    kernelFigures(before, after, figures);
    QCOMPARE(metricValue(figures.metrics, "kernel_poll_packets_busy_per_s"), 50.0);
}

void TstKernelStats::malformedFilesAreRefusedByFileAndLine()
{
    QTemporaryDir dir;
    const QString proc = dir.filePath("proc");
    write(proc + "/softirqs", softirqs(1, 2));
    write(proc + "/net/netstat", netstat(0));
    KernelCounters k;
    Status st = readKernelCounters(k, proc.toStdString());
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("softnet_stat") != std::string::npos, st.error.c_str());
    write(proc + "/net/softnet_stat", softnet(1, 2, 3) + "0000zz00 00000000 00000000\n");
    st = readKernelCounters(k, proc.toStdString());
    QVERIFY2(st.error.find("softnet_stat line 3: expected hexadecimal") != std::string::npos,
             st.error.c_str());
    write(proc + "/net/softnet_stat", softnet(1, 2, 3));
    write(proc + "/softirqs", "   CPU0 CPU1\n  NET_TX: 1 2\n  NET_RX: 5\n");
    st = readKernelCounters(k, proc.toStdString());
    QVERIFY2(st.error.find("softirqs line 3: a count per CPU") != std::string::npos,
             st.error.c_str());
    write(proc + "/softirqs", "   CPU0\n  HI: 1\n");
    st = readKernelCounters(k, proc.toStdString());
    QVERIFY2(st.error.find("no NET_RX") != std::string::npos, st.error.c_str());
    write(proc + "/softirqs", QByteArray(70 * 1024, 'x'));
    st = readKernelCounters(k, proc.toStdString());
    QVERIFY2(st.error.find("longer than 64 KiB") != std::string::npos, st.error.c_str());
}

void TstKernelStats::netdevAndThreadCounters()
{
    QTemporaryDir dir;
    const QString sys = dir.filePath("sys");
    const QString stats = sys + "/class/net/eth9/statistics/";
    for (auto [file, v] : {std::pair{"rx_packets", "1000"},
                           {"rx_dropped", "3"},
                           {"rx_missed_errors", "0"},
                           {"tx_packets", "990"},
                           {"tx_dropped", "1"}})
        write(stats + file, QByteArray(v) + "\n");
    NetdevCounters a, b;
    QVERIFY(readNetdevCounters("eth9", a, sys.toStdString()).ok());
    write(stats + "rx_packets", "1500\n");
    QVERIFY(readNetdevCounters("eth9", b, sys.toStdString()).ok());
    QCOMPARE(metricValue(netdevRates(a, b, 0.5), "netdev_rx_pps"), 1000.0);
    Status st = readNetdevCounters("../../etc", a, sys.toStdString());
    QVERIFY2(!st.ok() && st.error.find("'../../etc'") != std::string::npos, st.error.c_str());
    write(stats + "tx_dropped", "many\n");
    st = readNetdevCounters("eth9", a, sys.toStdString());
    QVERIFY2(st.error.find("tx_dropped: expected a count, read 'many'") != std::string::npos,
             st.error.c_str());

    // This thread's own counters, from the real /proc: 50 ms of CPU is 50 ms of CPU.
    ThreadCpu t0, t1;
    const pid_t tid = static_cast<pid_t>(::gettid());
    QVERIFY(readThreadCpu(tid, t0).ok());
    timespec c0{}, c1{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    volatile double x = 0;
    do {
        for (int i = 0; i < 10000; ++i)
            x = x + i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    } while ((c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec) < 50e6);
    QVERIFY(readThreadCpu(tid, t1).ok());
    const ThreadStat s = threadRates("me", t0, t1, 1.0);
    QVERIFY2(s.cpuMsPerS >= 45 && s.cpuMsPerS < 500, qPrintable(QString::number(s.cpuMsPerS)));
    QVERIFY(!readThreadCpu(0x7ffffff0, t0).ok());
}

void TstKernelStats::realTrafficOnAVethIsCountedEverywhere()
{
    RINGLAB_REQUIRE(::geteuid() == 0, "root, for a veth pair with traffic");
    test::VethPair veth("k");
    const QString made = veth.make();
    QVERIFY2(made.isEmpty(), qPrintable(made));
    const QString dev = QString::fromStdString(veth.dev()),
                  peer = QString::fromStdString(veth.peer());
    QString out;
    QCOMPARE(test::runCommand("ip", {"addr", "add", "198.18.44.1/30", "dev", dev}, &out), 0);
    QCOMPARE(test::runCommand("ip", {"-n", veth.ns(), "addr", "add", "198.18.44.2/30", "dev", peer},
                              &out),
             0);
    KernelCounters k0, k1;
    NetdevCounters n0, n1;
    QVERIFY(readKernelCounters(k0).ok());
    QVERIFY(readNetdevCounters(veth.dev(), n0).ok());
    // 300 echo requests from the peer's namespace (bounded in count and time), each received
    // by `dev` through its NAPI.
    const int code = test::runCommand("ip",
                                      {"netns", "exec", veth.ns(), "ping", "-q", "-c", "300", "-i",
                                       "0.002", "-w", "15", "198.18.44.1"},
                                      &out);
    QVERIFY2(code == 0, qPrintable(out));
    QVERIFY(readKernelCounters(k1).ok());
    QVERIFY(readNetdevCounters(veth.dev(), n1).ok());
    const auto nd = netdevRates(n0, n1, 1.0);
    const auto kr = kernelRates(k0, k1, 1.0);
    QVERIFY2(metricValue(nd, "netdev_rx_pps") >= 300,
             qPrintable(QString::number(metricValue(nd, "netdev_rx_pps"))));
    QVERIFY2(metricValue(nd, "netdev_tx_pps") >= 300,
             qPrintable(QString::number(metricValue(nd, "netdev_tx_pps"))));
    // Each frame a veth receives goes through a softirq's processing on some CPU.
    QVERIFY2(metricValue(kr, "kernel_softnet_processed_per_s") >= 300,
             qPrintable(QString::number(metricValue(kr, "kernel_softnet_processed_per_s"))));
    QVERIFY(metricValue(kr, "kernel_net_rx_softirqs_per_s") >= 1);
}

QTEST_GUILESS_MAIN(TstKernelStats)
#include "tst_kernel_stats.moc"
