// SPDX-License-Identifier: GPL-2.0-or-later
// bench/dpdk_lab: the reference cases on real kernel traffic through the lab (needs root).
//  1. The KNI ladder: real ping (100/s) through the engine for each poll wait, the poll
//     thread's CPU and the round trip p50/p99, as the seed's table has them.
//  2. iperf3 UDP goodput through the engine against a bare rx_burst/tx_burst loop between
//     the same kind of TAP ports in the same namespaces, interleaved.
//  3. The ocelot case: iperf3 UDP at 1460 and 700 byte payloads, the engine CPU-bound on
//     purpose (1 us of work per packet, busy polling, one core's worth), injection header
//     built per packet against copied from a template; interleaved repeats.
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "bench/bare_ports.h"
#include "bench/bench_common.h"
#include "drivers/dpdk/eal.h"
#include "drivers/lab/lab.h"
#include "drivers/registry.h"

using namespace ringlab;
using namespace ringlab::bench;

namespace {

std::vector<std::shared_ptr<const Sample>> runLab(const Assignments &a, const std::string &traffic,
                                                  std::size_t samples, std::int64_t intervalNs)
{
    DeviceOptions dev;
    dev.spec = "lab";
    dev.traffic = traffic;
    return runEngine(paramsOrDie(a), deviceFactory(dev), samples, intervalNs);
}

double deviceMedian(const std::vector<std::shared_ptr<const Sample>> &s, const char *name)
{
    std::vector<double> v;
    for (const auto &x : s)
        if (const DeviceMetric *m = x->deviceMetric(name)) v.push_back(m->value);
    return median(v);
}

// The same two TAP ports in the same namespaces, forwarded by the simplest loop DPDK has.
double bareGoodput(const std::string &traffic, int seconds)
{
    std::string ifA, ifB;
    const auto [portA, portB] = lab::Lab::tapPorts(ifA, ifB);
    lab::TrafficSpec spec;
    if (!lab::parseTraffic(traffic, spec).ok()) return -1;
    lab::LabOptions opts;
    opts.traffic = spec;
    opts.boundS = seconds + 2;
    lab::Lab labRig(opts, ifA, ifB);
    auto ports = std::make_unique<BarePorts>(portA, portB);
    labRig.afterStart();
    std::atomic<bool> stop{false};
    std::thread loop([&] {
        dpdk::Eal::registerThread();
        while (!stop.load(std::memory_order_relaxed))
            ports->forward();
    });
    labRig.linkUp();
    std::vector<double> goodput;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds + 1);
    while (std::chrono::steady_clock::now() < end) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        DeviceReading r;
        labRig.read(r);
        for (const auto &metric : r.metrics)
            if (metric.name == "iperf_goodput_mbps") goodput.push_back(metric.value);
    }
    labRig.linkDown();
    stop = true;
    loop.join();
    labRig.beforeStop();
    ports.reset();
    return median(goodput);
}

// What CLK_TCK says (the tick rate user space sees), or "?".
std::string clockTicks()
{
    char hz[64] = "?";
    if (FILE *f = popen("getconf CLK_TCK", "r")) {
        if (!std::fgets(hz, sizeof hz, f)) hz[0] = 0;
        pclose(f);
    }
    return hz;
}

// 1. KNI: the poll thread's CPU and the round trip for each poll wait, real ping through
// the engine.
void kniLadder()
{
    std::printf("1. KNI: real ping -i 0.01 through the engine (lab), 1 s samples, medians of 5\n");
    std::printf("%-30s %10s %10s %12s %12s\n", "poll wait", "poll CPU %", "wakeups/s", "RTT p50 us",
                "RTT p99 us");
    struct Row {
        const char *label;
        Assignments a;
    };
    const std::vector<Row> rows = {
        {"schedule_timeout (tick 250 Hz)",
         {{"poll.mode", "tick"},
          {"poll.tick_hz", "250"},
          {"poll.sleep_min_us", "5"},
          {"poll.sleep_max_us", "5"}}},
        {"usleep_range(5, 10)",
         {{"poll.mode", "sleep"}, {"poll.sleep_min_us", "5"}, {"poll.sleep_max_us", "10"}}},
        {"usleep_range(20, 50)",
         {{"poll.mode", "sleep"}, {"poll.sleep_min_us", "20"}, {"poll.sleep_max_us", "50"}}},
        {"usleep_range(50, 100)",
         {{"poll.mode", "sleep"}, {"poll.sleep_min_us", "50"}, {"poll.sleep_max_us", "100"}}},
        {"usleep_range(100, 200)",
         {{"poll.mode", "sleep"}, {"poll.sleep_min_us", "100"}, {"poll.sleep_max_us", "200"}}},
        {"usleep_range(1000, 1100)",
         {{"poll.mode", "sleep"}, {"poll.sleep_min_us", "1000"}, {"poll.sleep_max_us", "1100"}}},
    };
    for (const auto &row : rows) {
        Assignments a = {{"fwd.mode", "io"},
                         {"handoff.mode", "direct"},
                         {"proc.ns_per_packet", "200"},
                         {"tx.header", "none"},
                         {"tx.coalesce_frames", "1"}};
        a.insert(a.end(), row.a.begin(), row.a.end());
        const auto s = runLab(a, "ping -i 0.01 -c 700", 6, 1'000'000'000);
        std::vector<double> cpu, wk, p50, p99;
        for (std::size_t k = 1; k < s.size() && k < 6; ++k) {
            if (const ThreadStat *t = s[k]->thread("poll")) {
                cpu.push_back(t->cpuPct);
                wk.push_back(t->wakeupsPerS);
            }
            if (s[k]->rtt.count) {
                p50.push_back(s[k]->rtt.p50);
                p99.push_back(s[k]->rtt.p99);
            }
        }
        std::printf("%-30s %10.2f %10.0f %12.0f %12.0f\n", row.label, median(cpu), median(wk),
                    median(p50), median(p99));
    }
}

// 2. Goodput, engine against a bare loop.
void goodputAgainstBareLoop()
{
    const std::string udp = "iperf3 -u -b 0 -l 1460 -t 4";
    std::printf("\n2. %s through the lab: goodput (receiver, median of 0.5 s intervals)\n",
                udp.c_str());
    std::vector<double> engine, bare;
    for (int r = 0; r < 3; ++r) {
        const auto s = runLab({{"fwd.mode", "io"},
                               {"poll.mode", "busy"},
                               {"proc.ns_per_packet", "0"},
                               {"tx.header", "none"},
                               {"tx.coalesce_frames", "32"},
                               {"tx.coalesce_usecs", "100"}},
                              udp, 50, 100'000'000);
        engine.push_back(deviceMedian(s, "iperf_goodput_mbps"));
        bare.push_back(bareGoodput(udp, 4));
    }
    const double e = median(engine), b = median(bare);
    std::printf("engine %.0f Mbit/s, bare loop %.0f Mbit/s, ratio %.2f (3 interleaved rounds)\n", e,
                b, b > 0 ? e / b : 0);
}

// 3. ocelot: the engine is made the bottleneck with 4 us of work per packet (about
// 200 kpps at most on one core), below what iperf3 offers through the kernel here.
void ocelotCase()
{
    std::printf("\n3. ocelot: iperf3 -u -b 0 -t 4, engine CPU-bound on purpose (busy poll, "
                "4 us of work per packet): goodput Mbit/s over 3 interleaved rounds\n");
    std::printf("%-8s %-12s %8s %8s %8s %12s\n", "payload", "header", "min", "median", "max",
                "poll CPU %");
    for (const char *len : {"1460", "700"}) {
        std::vector<double> goodput[2], cpu[2];
        const char *headers[2] = {"per_packet", "precomputed"};
        for (int r = 0; r < 3; ++r)
            for (int h = 0; h < 2; ++h) {
                const auto s =
                    runLab({{"fwd.mode", "io"},
                            {"poll.mode", "busy"},
                            {"proc.ns_per_packet", "4000"},
                            {"tx.header", headers[h]},
                            {"tx.coalesce_frames", "32"},
                            {"tx.coalesce_usecs", "100"}},
                           std::string("iperf3 -u -b 0 -t 4 -l ") + len, 50, 100'000'000);
                goodput[h].push_back(deviceMedian(s, "iperf_goodput_mbps"));
                cpu[h].push_back(median(series(s, 10, [](const Sample &x) {
                    const ThreadStat *t = x.thread("poll");
                    return t ? t->cpuPct : 0.0;
                })));
            }
        for (int h = 0; h < 2; ++h)
            std::printf("%-8s %-12s %8.1f %8.1f %8.1f %12.1f\n", len, headers[h],
                        *std::min_element(goodput[h].begin(), goodput[h].end()), median(goodput[h]),
                        *std::max_element(goodput[h].begin(), goodput[h].end()), median(cpu[h]));
    }
}

} // namespace

int main(int argc, char **argv)
{
    // Sections to run: kni, goodput, ocelot (default: all).
    auto want = [&](const char *section) {
        if (argc < 2) return true;
        for (int k = 1; k < argc; ++k)
            if (std::string(argv[k]) == section) return true;
        return false;
    };
    setvbuf(stdout, nullptr, _IOLBF, 0);
    printMachine("bench/dpdk_lab");
    if (geteuid() != 0) {
        std::fprintf(stderr, "bench/dpdk_lab: the lab needs root\n");
        return 1;
    }
    const std::string hz = clockTicks();

    if (want("kni")) kniLadder();
    if (want("goodput")) goodputAgainstBareLoop();
    if (want("ocelot")) ocelotCase();
    std::printf("\n(CONFIG_HZ is not readable from user space; CLK_TCK says %s)\n", hz.c_str());
    return 0;
}
