// SPDX-License-Identifier: GPL-2.0-or-later
// bench/dpdk_forward: the engine forwarding in io mode between two net_null ports (busy
// polling, direct hand-off, no processing work) against dpdk-testpmd in io mode with one
// forwarding core on the same ports, and a bare rte_eth_rx_burst / rte_eth_tx_burst loop,
// interleaved in one run. Two cases: both ports at full rate, and port A idle (no-rx=1, so
// half the polls are empty). Prints Mpps forwarded in all (both directions) and the ratios
// engine / testpmd and engine / bare. The goal (>= 0.8 of testpmd) is judged like for like, in
// each of the two layouts both can have on 4 KB pages (--no-huge): mbufs packed back to back
// (the engine's rx.pool_memory=eal, testpmd's --mp-alloc=anon --no-iova-contig) and DPDK's
// default, one mbuf per page (eal_paged, testpmd's default). Beside them: the engine as users
// run it, on 2 MB transparent huge pages (rx.pool_memory=thp, the default, as is the bare
// loop; testpmd cannot have them here). With these settings the engine forwards by its direct
// pass (fwd.direct_pass); the staged path, the same settings with the pass off, is measured
// beside it on the default pool, so that its cost is guarded too. --quick: one round of the
// first case.
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "bench/bare_ports.h"
#include "bench/bench_common.h"
#include "bench/testpmd.h"
#include "drivers/dpdk/eal.h"
#include "drivers/registry.h"

using namespace ringlab;

namespace {

constexpr std::size_t kSamples = 20; // 100 ms each, the first 5 are warm-up

// The engine as a forwarding user sets it up: l2fwd's burst and TX buffer, nothing done per
// frame, and latency measured on one frame in 16 (latency.sample_every), as DPDK's
// latencystats samples. Printed with the results.
const Assignments kEngineSettings = {{"fwd.mode", "io"},         {"poll.mode", "busy"},
                                     {"handoff.mode", "direct"}, {"proc.ns_per_packet", "0"},
                                     {"tx.header", "none"},      {"tx.coalesce_frames", "32"},
                                     {"poll.budget", "64"},      {"latency.sample_every", "16"}};

double engineMpps(const std::string &spec, const Assignments &extra = {})
{
    Assignments a = kEngineSettings;
    a.insert(a.end(), extra.begin(), extra.end());
    const ParamSet ps = bench::paramsOrDie(a);
    DeviceOptions dev;
    dev.spec = spec;
    const auto s = runEngine(ps, deviceFactory(dev), kSamples, 100'000'000);
    return bench::median(bench::series(
               s, 5, [](const Sample &x) { return x.rateOf(CounterId::TxPackets); })) /
           1e6;
}

// The same ports driven by the simplest loop DPDK allows: what the engine is measured against.
double bareMpps(const std::string &a, const std::string &b)
{
    bench::BarePorts ports(a, b);
    dpdk::Eal::registerThread();
    std::vector<double> windows;
    for (std::size_t w = 0; w < kSamples; ++w) {
        std::uint64_t sent = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const auto end = t0 + std::chrono::milliseconds(100);
        while (std::chrono::steady_clock::now() < end)
            sent += ports.forward();
        const double dt =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (w >= 5) windows.push_back(static_cast<double>(sent) / dt / 1e6);
    }
    return bench::median(windows);
}

} // namespace

int main(int argc, char **argv)
{
    const bool quick = bench::quickMode(argc, argv);
    const int rounds = quick ? 1 : 3;
    bench::printMachine("bench/dpdk_forward");
    if (auto st = dpdk::Eal::init({}, {}); !st.ok()) {
        std::fprintf(stderr, "bench: %s\n", st.error.c_str());
        return 1;
    }
    struct Case {
        const char *label;
        const char *a;
        const char *b;
        const char *figure; // bench/check's name for the engine's rate, or none
    } cases[] = {{"both ports full rate", "net_null0", "net_null1", "dpdk_forward.engine_mpps"},
                 {"port A idle (no-rx=1)", "net_null0,no-rx=1", "net_null1", nullptr}};
    std::printf("engine settings:");
    for (const auto &[name, value] : kEngineSettings)
        std::printf(" %s=%s", name.c_str(), value.c_str());
    std::printf("\nmbufs: 'thp' on 2 MB transparent huge pages (the engine's default, "
                "rx.pool_memory=thp; the bare loop too); on 4 KB pages (--no-huge) 'packed' back "
                "to back (engine rx.pool_memory=eal, testpmd --mp-alloc=anon --no-iova-contig) or "
                "'paged', one mbuf per page (engine eal_paged, testpmd's default)\n");
    std::printf("'stg': the engine's staged path (fwd.direct_pass=0) on the default pool\n");
    std::printf("%-22s %7s %7s %7s %7s %7s %7s %7s %7s %7s %6s %6s   (Mpps in all; %s)\n", "case",
                "eng thp", "eng pkd", "eng pgd", "stg thp", "tpm pkd", "tpm pgd", "bare", "pkd/tpm",
                "pgd/tpm", "/bare", "stg/b",
                quick ? "one round"
                      : (std::to_string(rounds) + " interleaved rounds, medians").c_str());
    for (const auto &c : cases) {
        std::vector<double> engine, packed, paged, staged, tpmPacked, tpmPaged, bare;
        for (int r = 0; r < rounds; ++r) {
            const std::string spec = std::string("dpdk:") + c.a + "+" + c.b;
            engine.push_back(engineMpps(spec));
            packed.push_back(engineMpps(spec, {{"rx.pool_memory", "eal"}}));
            paged.push_back(engineMpps(spec, {{"rx.pool_memory", "eal_paged"}}));
            staged.push_back(engineMpps(spec, {{"fwd.direct_pass", "0"}}));
            for (const bool pack : {true, false}) {
                std::string error;
                const double t = bench::testpmdMpps(c.a, c.b, 2, pack, error);
                if (t < 0) {
                    std::fprintf(stderr, "bench: %s\n", error.c_str());
                    return 1;
                }
                (pack ? tpmPacked : tpmPaged).push_back(t);
            }
            bare.push_back(bareMpps(c.a, c.b));
        }
        const double e = bench::median(engine), ek = bench::median(packed),
                     eg = bench::median(paged), st = bench::median(staged),
                     tk = bench::median(tpmPacked), tg = bench::median(tpmPaged),
                     b = bench::median(bare);
        const bool met = ek / tk >= 0.8 && eg / tg >= 0.8;
        std::printf("%-22s %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %6.2f %6.2f   "
                    "goal >= 0.80 of testpmd in the same layout: %s\n",
                    c.label, e, ek, eg, st, tk, tg, b, ek / tk, eg / tg, e / b, st / b,
                    met ? "met" : "NOT met");
        if (c.figure) {
            bench::figure(c.figure, e, "Mpps", true);
            bench::figure("dpdk_forward.engine_per_testpmd", eg / tg, "ratio", true);
            bench::figure("dpdk_forward.engine_packed_per_testpmd", ek / tk, "ratio", true);
            bench::figure("dpdk_forward.engine_per_bare", e / b, "ratio", true);
            bench::figure("dpdk_forward.staged_mpps", st, "Mpps", true);
        }
        if (quick) break;
    }
    return 0;
}
