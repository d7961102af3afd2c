// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/kernel_stats.h"

#include <array>
#include <charconv>
#include <fstream>

namespace ringlab::kernel {

namespace {

constexpr std::size_t kMaxLine = 64 * 1024; // /proc/softirqs on a 1,024-CPU machine fits
constexpr std::size_t kMaxCpus = 8192;

std::vector<std::string_view> fields(std::string_view line)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        std::size_t j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t')
            ++j;
        if (j > i) out.push_back(line.substr(i, j - i));
        i = j;
    }
    return out;
}

bool number(std::string_view text, std::uint64_t &out, int base = 10)
{
    if (text.empty()) return false;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
    return ec == std::errc() && p == text.data() + text.size();
}

// The file's lines, or a Status naming it.
Status lines(const std::string &path, std::vector<std::string> &out)
{
    std::ifstream in(path);
    if (!in) return Status::failed("cannot read " + path);
    for (std::string line; std::getline(in, line);) {
        if (line.size() > kMaxLine) return Status::failed(path + ": a line longer than 64 KiB");
        out.push_back(std::move(line));
        if (out.size() > kMaxCpus + 16) return Status::failed(path + ": more lines than CPUs");
    }
    return Status::success();
}

Status malformed(const std::string &path, std::size_t line, std::string_view what)
{
    return Status::failed(path + " line " + std::to_string(line + 1) + ": " + std::string(what));
}

Status readSoftnet(const std::string &procRoot, std::vector<SoftnetCpu> &out)
{
    const std::string path = procRoot + "/net/softnet_stat";
    std::vector<std::string> ls;
    if (Status st = lines(path, ls); !st.ok()) return st;
    for (std::size_t k = 0; k < ls.size(); ++k) {
        const auto f = fields(ls[k]);
        if (f.empty()) continue;
        // processed, dropped, time_squeeze, ..., and since Linux 5.10 the CPU's number in
        // the 13th column (lines are of online CPUs only, so their order is not the number).
        SoftnetCpu c;
        c.cpu = static_cast<int>(k);
        std::uint64_t cpu = 0;
        if (f.size() < 3 || !number(f[0], c.processed, 16) || !number(f[1], c.dropped, 16) ||
            !number(f[2], c.timeSqueeze, 16) || (f.size() >= 13 && !number(f[12], cpu, 16)))
            return malformed(path, k, "expected hexadecimal counters");
        if (f.size() >= 13) {
            if (cpu >= kMaxCpus) return malformed(path, k, "a CPU number beyond 8191");
            c.cpu = static_cast<int>(cpu);
        }
        out.push_back(c);
    }
    return Status::success();
}

Status readSoftirqs(const std::string &procRoot, std::vector<std::uint64_t> &rx,
                    std::vector<std::uint64_t> &tx)
{
    const std::string path = procRoot + "/softirqs";
    std::vector<std::string> ls;
    if (Status st = lines(path, ls); !st.ok()) return st;
    if (ls.empty()) return malformed(path, 0, "empty");
    const std::size_t cpus = fields(ls[0]).size(); // "CPU0 CPU1 ..."
    bool seenRx = false, seenTx = false;
    for (std::size_t k = 1; k < ls.size(); ++k) {
        const auto f = fields(ls[k]);
        if (f.empty() || (f[0] != "NET_RX:" && f[0] != "NET_TX:")) continue;
        if (f.size() != cpus + 1) return malformed(path, k, "a count per CPU expected");
        std::vector<std::uint64_t> &into = f[0] == "NET_RX:" ? rx : tx;
        (f[0] == "NET_RX:" ? seenRx : seenTx) = true;
        into.assign(cpus, 0);
        for (std::size_t c = 0; c < cpus; ++c)
            if (!number(f[c + 1], into[c])) return malformed(path, k, "expected counts");
    }
    if (!seenRx || !seenTx) return Status::failed(path + ": no NET_RX or NET_TX line");
    return Status::success();
}

Status readBusyPoll(const std::string &procRoot, KernelCounters &out)
{
    // "TcpExt: name name ..." then "TcpExt: value value ...".
    const std::string path = procRoot + "/net/netstat";
    std::vector<std::string> ls;
    if (Status st = lines(path, ls); !st.ok()) return st;
    for (std::size_t k = 0; k + 1 < ls.size(); ++k) {
        const auto names = fields(ls[k]), values = fields(ls[k + 1]);
        if (names.empty() || names[0] != "TcpExt:" || values.empty() || values[0] != "TcpExt:")
            continue;
        if (names.size() != values.size()) return malformed(path, k + 1, "names and values differ");
        for (std::size_t i = 1; i < names.size(); ++i)
            if (names[i] == "BusyPollRxPackets") {
                if (!number(values[i], out.busyPollRxPackets))
                    return malformed(path, k + 1, "expected a count");
                out.hasBusyPoll = true;
            }
        return Status::success();
    }
    return Status::success(); // a kernel without TcpExt: no busy-poll figure
}

Status readCount(const std::string &path, std::uint64_t &out)
{
    std::ifstream in(path);
    std::string text;
    if (!in || !std::getline(in, text)) return Status::failed("cannot read " + path);
    if (!number(text, out)) return Status::failed(path + ": expected a count, read '" + text + "'");
    return Status::success();
}

constexpr std::array kMetrics{
    KernelMetric{"kernel_net_rx_softirqs_per_s", "1/s",
                 "NET_RX softirqs run, all CPUs (/proc/softirqs)"},
    KernelMetric{"kernel_net_tx_softirqs_per_s", "1/s",
                 "NET_TX softirqs run, all CPUs (/proc/softirqs)"},
    KernelMetric{"kernel_softnet_processed_per_s", "1/s",
                 "frames the softirqs processed, all CPUs (softnet_stat)"},
    KernelMetric{"kernel_softnet_dropped_per_s", "1/s",
                 "frames dropped at a CPU's backlog, all CPUs (softnet_stat)"},
    KernelMetric{"kernel_softnet_time_squeeze_per_s", "1/s",
                 "NET_RX rounds that ran out of budget or time with work left (softnet_stat)"},
    KernelMetric{"kernel_busy_poll_rx_per_s", "1/s",
                 "frames received by busy polling in this namespace (BusyPollRxPackets)"},
    KernelMetric{"netdev_rx_pps", "1/s", "the netdev's received packets"},
    KernelMetric{"netdev_rx_dropped_per_s", "1/s", "the netdev's receive drops"},
    KernelMetric{"netdev_rx_missed_per_s", "1/s", "the netdev's missed frames (ring full)"},
    KernelMetric{"netdev_tx_pps", "1/s", "the netdev's sent packets"},
    KernelMetric{"netdev_tx_dropped_per_s", "1/s", "the netdev's transmit drops"},
};

DeviceMetric metric(std::string_view name, double value)
{
    for (const KernelMetric &m : kernelMetrics())
        if (m.name == name) return {std::string(m.name), std::string(m.unit), value};
    return {std::string(name), {}, value}; // not reached: every caller names a table row
}

double rate(std::uint64_t before, std::uint64_t after, double seconds)
{
    // A counter that went back started again (from zero).
    const std::uint64_t d = after >= before ? after - before : after;
    return static_cast<double>(d) / seconds;
}

// Per CPU, so that a CPU's counter that went back (offline and on again) counts from zero
// without hiding the others' increase.
double perCpuRate(const std::vector<std::uint64_t> &before, const std::vector<std::uint64_t> &after,
                  double seconds)
{
    double total = 0;
    for (std::size_t c = 0; c < after.size(); ++c)
        total += rate(c < before.size() ? before[c] : 0, after[c], seconds);
    return total;
}

template <typename Field>
double softnetRate(const std::vector<SoftnetCpu> &before, const std::vector<SoftnetCpu> &after,
                   double seconds, Field field)
{
    double total = 0;
    for (const SoftnetCpu &a : after) {
        std::uint64_t was = 0;
        for (const SoftnetCpu &b : before)
            if (b.cpu == a.cpu) was = field(b);
        total += rate(was, field(a), seconds);
    }
    return total;
}

} // namespace

Status readKernelCounters(KernelCounters &out, const std::string &procRoot)
{
    out = {};
    if (Status st = readSoftnet(procRoot, out.softnet); !st.ok()) return st;
    if (Status st = readSoftirqs(procRoot, out.netRx, out.netTx); !st.ok()) return st;
    return readBusyPoll(procRoot, out);
}

Status readNetdevCounters(const std::string &ifname, NetdevCounters &out,
                          const std::string &sysRoot)
{
    if (ifname.empty() || ifname.size() > 15 || ifname.find('/') != std::string::npos ||
        ifname == "." || ifname == "..")
        return Status::refused("interface name '" + ifname +
                               "': 1 to 15 characters, no '/', not '.' or '..'");
    const std::string dir = sysRoot + "/class/net/" + ifname + "/statistics/";
    out = {};
    for (auto [file, field] : std::array<std::pair<const char *, std::uint64_t *>, 5>{
             {{"rx_packets", &out.rxPackets},
              {"rx_dropped", &out.rxDropped},
              {"rx_missed_errors", &out.rxMissed},
              {"tx_packets", &out.txPackets},
              {"tx_dropped", &out.txDropped}}})
        if (Status st = readCount(dir + file, *field); !st.ok()) return st;
    return Status::success();
}

Status readThreadCpu(pid_t pid, ThreadCpu &out, const std::string &procRoot)
{
    out = {};
    const std::string dir = procRoot + "/" + std::to_string(pid) + "/";
    std::vector<std::string> ls;
    if (Status st = lines(dir + "schedstat", ls); !st.ok()) return st;
    const auto f = ls.empty() ? std::vector<std::string_view>{} : fields(ls[0]);
    if (f.size() < 3 || !number(f[0], out.runNs) || !number(f[1], out.waitNs) ||
        !number(f[2], out.slices))
        return malformed(dir + "schedstat", 0, "expected three counts");
    ls.clear();
    if (Status st = lines(dir + "status", ls); !st.ok()) return st;
    bool vol = false, invol = false;
    for (std::size_t k = 0; k < ls.size(); ++k) {
        const auto g = fields(ls[k]);
        if (g.size() != 2) continue;
        if (g[0] == "voluntary_ctxt_switches:") vol = number(g[1], out.voluntary);
        if (g[0] == "nonvoluntary_ctxt_switches:") invol = number(g[1], out.involuntary);
    }
    if (!vol || !invol) return Status::failed(dir + "status: no context switch counts");
    return Status::success();
}

std::span<const KernelMetric> kernelMetrics()
{
    static const std::vector<KernelMetric> all = [] {
        std::vector<KernelMetric> v(kMetrics.begin(), kMetrics.end());
        for (const PollSourceName &p : pollSourceNames()) {
            v.push_back({p.pollsMetric, "1/s", p.pollsHelp});
            v.push_back({p.packetsMetric, "1/s", p.packetsHelp});
        }
        return v;
    }();
    return all;
}

std::vector<DeviceMetric> kernelRates(const KernelCounters &before, const KernelCounters &after,
                                      double seconds)
{
    std::vector<DeviceMetric> out;
    if (!(seconds > 0)) return out;
    out.push_back(
        metric("kernel_net_rx_softirqs_per_s", perCpuRate(before.netRx, after.netRx, seconds)));
    out.push_back(
        metric("kernel_net_tx_softirqs_per_s", perCpuRate(before.netTx, after.netTx, seconds)));
    out.push_back(metric("kernel_softnet_processed_per_s",
                         softnetRate(before.softnet, after.softnet, seconds,
                                     [](const SoftnetCpu &c) { return c.processed; })));
    out.push_back(metric("kernel_softnet_dropped_per_s",
                         softnetRate(before.softnet, after.softnet, seconds,
                                     [](const SoftnetCpu &c) { return c.dropped; })));
    out.push_back(metric("kernel_softnet_time_squeeze_per_s",
                         softnetRate(before.softnet, after.softnet, seconds,
                                     [](const SoftnetCpu &c) { return c.timeSqueeze; })));
    if (before.hasBusyPoll && after.hasBusyPoll)
        out.push_back(metric("kernel_busy_poll_rx_per_s",
                             rate(before.busyPollRxPackets, after.busyPollRxPackets, seconds)));
    return out;
}

std::vector<DeviceMetric> netdevRates(const NetdevCounters &before, const NetdevCounters &after,
                                      double seconds)
{
    if (!(seconds > 0)) return {};
    return {metric("netdev_rx_pps", rate(before.rxPackets, after.rxPackets, seconds)),
            metric("netdev_rx_dropped_per_s", rate(before.rxDropped, after.rxDropped, seconds)),
            metric("netdev_rx_missed_per_s", rate(before.rxMissed, after.rxMissed, seconds)),
            metric("netdev_tx_pps", rate(before.txPackets, after.txPackets, seconds)),
            metric("netdev_tx_dropped_per_s", rate(before.txDropped, after.txDropped, seconds))};
}

std::vector<DeviceMetric> pollRates(const PollCounts &before, const PollCounts &after,
                                    double seconds)
{
    std::vector<DeviceMetric> out;
    if (!(seconds > 0)) return out;
    for (const PollSourceName &p : pollSourceNames()) {
        const auto k = static_cast<std::size_t>(p.source);
        out.push_back(metric(p.pollsMetric, rate(before.polls[k], after.polls[k], seconds)));
        out.push_back(metric(p.packetsMetric, rate(before.packets[k], after.packets[k], seconds)));
    }
    return out;
}

ThreadStat threadRates(const std::string &thread, const ThreadCpu &before, const ThreadCpu &after,
                       double seconds)
{
    ThreadStat t;
    t.name = thread;
    if (!(seconds > 0)) return t;
    t.cpuMsPerS = rate(before.runNs, after.runNs, seconds) / 1e6;
    t.cpuPct = t.cpuMsPerS / 10;
    t.wakeupsPerS = rate(before.voluntary, after.voluntary, seconds);
    return t;
}

} // namespace ringlab::kernel
