// SPDX-License-Identifier: GPL-2.0-or-later
// sleep_precision: the interval poll.mode=sleep achieves for a requested sleep, against a
// bare clock_nanosleep loop with the same timer slack, measured side by side in one run.
#include <sys/prctl.h>

#include <ctime>

#include "bench_common.h"
#include "engine/datapath/clock.h"

using namespace ringlab;
using namespace ringlab::bench;

namespace {
// Mean interval of the engine's poll loop with no traffic: one harvest plus one sleep.
double engineIntervalUs(int us)
{
    const auto s = runSim(paramsOrDie({{"load.rate_pps", "0"},
                                       {"probe.rate_hz", "0"},
                                       {"poll.mode", "sleep"},
                                       {"poll.sleep_min_us", std::to_string(us)},
                                       {"poll.sleep_max_us", std::to_string(us)}}),
                          8);
    return median(series(s, 2, [](const Sample &x) { return 1e6 / x.rateOf(CounterId::Polls); }));
}

double bareIntervalUs(int us, double seconds)
{
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); // the engine's slack for usleep_range(us, us)
    const std::int64_t start = nowNs(), end = start + static_cast<std::int64_t>(seconds * 1e9);
    std::int64_t n = 0;
    while (nowNs() < end) {
        const timespec ts = toTimespec(std::int64_t{us} * 1000);
        clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr);
        ++n;
    }
    return static_cast<double>(nowNs() - start) / static_cast<double>(n) / 1e3;
}
} // namespace

int main()
{
    printMachine("sleep_precision");
    std::printf("%10s %14s %14s %8s   (medians of 3 alternating rounds)\n", "request us",
                "engine us", "nanosleep us", "ratio");
    bool ok = true;
    for (int us : {5, 20, 50, 100, 1000}) {
        std::vector<double> eng, bare;
        for (int round = 0; round < 3; ++round) {
            eng.push_back(engineIntervalUs(us));
            bare.push_back(bareIntervalUs(us, 0.6));
        }
        const double e = median(eng), b = median(bare), ratio = e / b;
        ok &= ratio <= 1.2;
        std::printf("%10d %14.1f %14.1f %8.2f\n", us, e, b, ratio);
    }
    std::printf("goal: ratio <= 1.2 at every size: %s\n", ok ? "met" : "NOT met");
    return 0;
}
