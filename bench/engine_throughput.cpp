// SPDX-License-Identifier: GPL-2.0-or-later
// engine_throughput: the most the engine moves through one poll thread on the simulated
// NIC with busy polling, inline refill, direct hand-off and 64-byte frames.
//  1. saturation: offered far above capacity (100 Mpps); delivered Mpps and poll-thread ns
//     per packet;
//  2. maximum lossless rate: binary search for the highest offered rate with drops (any
//     cause) below 0.01 % of offered, each step a fresh run. A step that lost frames is run
//     once more before it counts as a loss (RFC 2544's trials): on a shared 2-vCPU machine a
//     neighbour stalls the poll thread for milliseconds now and then, which says nothing of
//     the engine. Both figures are printed with the goal (issue 22: >= 20 Mpps lossless).
// The full run searches three times (min/median/max); --quick: 3 saturation runs and one
// search of 4 steps (bench/check). --set NAME=VALUE (repeatable)
// adds tunables to every run: the thread placement (threads.poll_cpu=1 threads.clean_cpu=0).
#include <algorithm>

#include "bench_common.h"

using namespace ringlab;
using namespace ringlab::bench;

namespace {
Assignments g_extra; // --set

Assignments base(std::int64_t ratePps)
{
    Assignments a{{"load.rate_pps", std::to_string(ratePps)},
                  {"load.frame_bytes", "64"},
                  {"load.pattern", "constant"},
                  {"link.mbps", "400000"},
                  {"probe.rate_hz", "0"},
                  {"poll.mode", "busy"},
                  {"refill.context", "inline"},
                  {"handoff.mode", "direct"},
                  {"proc.ns_per_packet", "0"},
                  {"tx.header", "none"},
                  {"rx.ring_size", "32768"},
                  {"rx.pool_buffers", "131072"},
                  {"tx.ring_size", "32768"},
                  {"tx.coalesce_frames", "512"},
                  {"refill.threshold", "64"},
                  {"refill.batch", "64"},
                  {"poll.budget", "256"}};
    a.insert(a.end(), g_extra.begin(), g_extra.end());
    return a;
}

struct Rate {
    double offered = 0, delivered = 0, dropFraction = 0, nsPerPacket = 0, pollCpuPct = 0;
    double missed = 0, txFull = 0, allocFail = 0; // frames, after warm-up
};

Rate measure(std::int64_t rate, std::size_t samples)
{
    const auto s = runSim(paramsOrDie(base(rate)), samples);
    const std::size_t warm = 3; // 300 ms
    Rate r;
    r.offered =
        median(series(s, warm, [](const Sample &x) { return x.rateOf(CounterId::Offered); }));
    r.delivered =
        median(series(s, warm, [](const Sample &x) { return x.rateOf(CounterId::RxPackets); }));
    double drops = 0, offered = 0, pollNs = 0, rx = 0;
    for (std::size_t k = warm; k < s.size(); ++k) {
        const Sample &x = *s[k];
        drops += (x.rateOf(CounterId::RxMissed) + x.rateOf(CounterId::TxFull) +
                  x.rateOf(CounterId::AllocFail) + x.rateOf(CounterId::HandoffFull)) *
                 x.interval;
        offered += x.rateOf(CounterId::Offered) * x.interval;
        r.missed += x.rateOf(CounterId::RxMissed) * x.interval;
        r.txFull += x.rateOf(CounterId::TxFull) * x.interval;
        r.allocFail += x.rateOf(CounterId::AllocFail) * x.interval;
        if (const ThreadStat *p = x.thread("poll")) pollNs += p->cpuMsPerS * x.interval * 1e6;
        rx += x.rateOf(CounterId::RxPackets) * x.interval;
    }
    r.dropFraction = offered > 0 ? drops / offered : 0;
    r.nsPerPacket = rx > 0 ? pollNs / rx : 0;
    r.pollCpuPct = median(series(s, warm, [](const Sample &x) {
        return x.thread("poll") ? x.thread("poll")->cpuPct : 0.0;
    }));
    return r;
}
struct SearchResult {
    double ratePps = 0;     // the highest offered rate found lossless
    double nsPerPacket = 0; // the poll thread's cost there
    bool found = false;     // some step was lossless (else ratePps is the untested floor)
};

// Binary search from 0.5 Mpps to just above `capacity`, `steps` steps.
SearchResult searchLossless(double capacity, int steps)
{
    std::int64_t lo = 500'000, hi = static_cast<std::int64_t>(capacity * 1.05);
    Rate best;
    for (int step = 0; step < steps && hi - lo > 100'000; ++step) {
        const std::int64_t mid = (lo + hi) / 2;
        bool lossless = false;
        for (int trial = 1; trial <= 2 && !lossless; ++trial) {
            const Rate r = measure(mid, 12);
            lossless = r.dropFraction <= 1e-4;
            std::printf("offered %6.2f Mpps (trial %d): delivered %6.2f Mpps, drops %.4f %% "
                        "(rx_missed %.0f, tx_full %.0f, alloc_fail %.0f) -> %s\n",
                        mid / 1e6, trial, r.delivered / 1e6, r.dropFraction * 100, r.missed,
                        r.txFull, r.allocFail, lossless ? "lossless" : "loss");
            if (lossless) best = r;
        }
        (lossless ? lo : hi) = mid;
    }
    return {static_cast<double>(lo), best.nsPerPacket, best.offered > 0};
}
} // namespace

int main(int argc, char **argv)
{
    const bool quick = quickMode(argc, argv);
    g_extra = extraAssignments(argc, argv);
    printMachine("engine_throughput");
    for (const auto &[name, value] : g_extra)
        std::printf("--set %s=%s\n", name.c_str(), value.c_str());
    std::printf(
        "busy polling, inline refill, direct hand-off, 64-byte frames, proc.ns_per_packet=0,\n"
        "tx.header=none (no modelled target work: the engine's own cost),\n"
        "rx ring 32768, tx ring 32768, poll.budget 256, tx.coalesce_frames 512, link 400 "
        "Gbit/s\n\n");

    const int rounds = quick ? 3 : 5;
    std::vector<double> sat, ns;
    for (int k = 0; k < rounds; ++k) {
        const Rate r = measure(100'000'000, 15);
        sat.push_back(r.delivered);
        ns.push_back(r.nsPerPacket);
        std::printf("saturation run %d: offered %.2f Mpps, delivered %.2f Mpps, poll thread %.1f "
                    "ns/packet (%.0f %% CPU)\n",
                    k + 1, r.offered / 1e6, r.delivered / 1e6, r.nsPerPacket, r.pollCpuPct);
    }
    const double capacity = median(sat);
    std::printf("=> saturation: %.2f Mpps per poll thread (min %.2f, median, max %.2f of %d "
                "runs), %.1f ns per packet\n\n",
                capacity / 1e6, *std::min_element(sat.begin(), sat.end()) / 1e6,
                *std::max_element(sat.begin(), sat.end()) / 1e6, rounds, median(ns));

    // Each search is a few seconds long: a stall that spans both trials of one step sends it
    // below the engine's rate (15.4 against 29.3 Mpps seen in two runs minutes apart). The
    // full run searches three times and quotes the median.
    const int searches = quick ? 1 : 3;
    std::vector<SearchResult> found;
    for (int k = 0; k < searches; ++k) {
        const SearchResult r = searchLossless(capacity, quick ? 4 : 7);
        found.push_back(r);
        if (r.found)
            std::printf("=> search %d: maximum lossless rate %.2f Mpps (drops <= 0.01 %%), poll "
                        "thread %.1f ns/packet there\n\n",
                        k + 1, r.ratePps / 1e6, r.nsPerPacket);
        else
            std::printf("=> search %d: no step was lossless; %.2f Mpps is the search's floor, "
                        "not a measured rate\n\n",
                        k + 1, r.ratePps / 1e6);
    }
    // The median search, whole: its rate and the cost measured at that rate.
    std::sort(found.begin(), found.end(),
              [](const SearchResult &a, const SearchResult &b) { return a.ratePps < b.ratePps; });
    const SearchResult &mid = found[found.size() / 2];
    const double lo = mid.ratePps;
    if (searches > 1)
        std::printf("=> maximum lossless rate: %.2f Mpps (min %.2f, median, max %.2f of %d "
                    "searches), poll thread %.1f ns/packet there\n",
                    lo / 1e6, found.front().ratePps / 1e6, found.back().ratePps / 1e6, searches,
                    mid.nsPerPacket);
    else
        std::printf("=> maximum lossless rate: %.2f Mpps (one search), poll thread %.1f "
                    "ns/packet there\n",
                    lo / 1e6, mid.nsPerPacket);
    std::printf("goal: >= 20 Mpps lossless on one poll thread: %s\n",
                lo >= 20e6 ? "met" : "NOT met");
    figure("engine_throughput.saturation_mpps", capacity / 1e6, "Mpps", true);
    figure("engine_throughput.ns_per_packet", median(ns), "ns", false);
    figure("engine_throughput.lossless_mpps", lo / 1e6, "Mpps", true);
    return 0;
}
