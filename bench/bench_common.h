// SPDX-License-Identifier: GPL-2.0-or-later
// Shared by the benchmarks: the machine they ran on, medians, and an engine run on the
// simulated NIC that returns its samples.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "drivers/registry.h"
#include "engine/datapath/sample_collector.h"
#include "engine/git_revision.h"
#include "engine/version.h"

namespace ringlab::bench {

inline std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

inline void printMachine(const char *bench)
{
    std::printf("%s, ringlab %s (%s)\nmachine: %s, %u cores\n\n", bench, RINGLAB_VERSION,
                RINGLAB_GIT_REVISION, cpuModel().c_str(), std::thread::hardware_concurrency());
}

// A figure that bench/check compares with bench/baseline.json, on a line of its own:
// "figure NAME VALUE UNIT higher|lower" (which way is better).
inline void figure(const char *name, double value, const char *unit, bool higherIsBetter)
{
    std::printf("figure %s %.6g %s %s\n", name, value, unit, higherIsBetter ? "higher" : "lower");
    std::fflush(stdout);
}

// `--quick` among the arguments: the short version bench/check runs.
inline bool quickMode(int argc, char **argv)
{
    for (int k = 1; k < argc; ++k)
        if (std::string(argv[k]) == "--quick") return true;
    return false;
}

// `--set NAME=VALUE` arguments: tunables a run of the benchmark takes on top of its own
// (threads.poll_cpu=1 to measure placement). A malformed one ends the benchmark.
inline Assignments extraAssignments(int argc, char **argv)
{
    Assignments out;
    for (int k = 1; k + 1 < argc; ++k) {
        if (std::string(argv[k]) != "--set") continue;
        const std::string a = argv[++k];
        const auto eq = a.find('=');
        if (eq == std::string::npos || eq == 0) {
            std::fprintf(stderr, "--set %s: expected NAME=VALUE\n", a.c_str());
            std::exit(2);
        }
        out.emplace_back(a.substr(0, eq), a.substr(eq + 1));
    }
    return out;
}

inline double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

inline ParamSet paramsOrDie(const Assignments &a)
{
    ParamSet ps;
    if (auto st = ps.set(a); !st.ok()) {
        std::fprintf(stderr, "bench: %s\n", st.error.c_str());
        std::exit(2);
    }
    return ps;
}

inline std::vector<std::shared_ptr<const Sample>> runSim(const ParamSet &ps, std::size_t samples,
                                                         std::int64_t intervalNs = 100'000'000)
{
    return runEngine(ps, deviceFactory(DeviceOptions{}), samples, intervalNs);
}

// The KNI case's ladder: schedule_timeout (tick mode at `tickHz` asking for 5 us), then the
// seed's usleep_range rows.
struct PollWaitRow {
    const char *label;
    Assignments a;
};
inline std::vector<PollWaitRow> kniLadder(const char *tickLabel, const char *tickHz)
{
    auto sleep = [](const char *min, const char *max) {
        return Assignments{
            {"poll.mode", "sleep"}, {"poll.sleep_min_us", min}, {"poll.sleep_max_us", max}};
    };
    return {{tickLabel,
             {{"poll.mode", "tick"},
              {"poll.tick_hz", tickHz},
              {"poll.sleep_min_us", "5"},
              {"poll.sleep_max_us", "5"}}},
            {"usleep_range(5, 10)", sleep("5", "10")},
            {"usleep_range(20, 50)", sleep("20", "50")},
            {"usleep_range(50, 100)", sleep("50", "100")},
            {"usleep_range(100, 200)", sleep("100", "200")},
            {"usleep_range(1000, 1100)", sleep("1000", "1100")}};
}

// Per-sample values from sample `from` on (the ones before are warm-up).
template <class F>
std::vector<double> series(const std::vector<std::shared_ptr<const Sample>> &s, std::size_t from,
                           F f)
{
    std::vector<double> out;
    for (std::size_t k = from; k < s.size(); ++k)
        out.push_back(f(*s[k]));
    return out;
}

} // namespace ringlab::bench
