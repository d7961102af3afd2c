// SPDX-License-Identifier: GPL-2.0-or-later
// tune_kni: the tuner against an exhaustive sweep of the same space, on the KNI case
// (kni-sleep-100-200 on the simulated NIC). Minimise the engine's CPU subject to a median
// latency bound, over poll.sleep_min_us and poll.sleep_max_us (each 5..2000 us, min <= max).
// The exhaustive sweep measures every point of an 8 x 8 log grid that the registry accepts;
// the tuner gets a quarter of those runs. Both answers are then measured again side by
// side (interleaved, 3 runs each), and the ratio of their objectives is the figure.
// Goal: within 10 % of the exhaustive optimum in at most a quarter of its runs.
#include <cmath>
#include <cstdio>
#include <map>

#include "bench_common.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/metrics/statistics.h"
#include "engine/profile/profile.h"
#include "engine/profile/sweep_spec.h"
#include "engine/tune/tuner.h"

using namespace ringlab;
using namespace ringlab::bench;

namespace {

constexpr std::size_t kSamples = 20; // 2 s at 100 ms
constexpr std::size_t kWarmup = 3;
const char *kObjective = "engine_cpu_ms_per_s";
const char *kConstraint = "latency_p50_us<=80";

ParamSet baseParams()
{
    const auto file = findProfile("kni-sleep-100-200");
    const auto p = file.ok() ? loadProfile(file.value()) : Result<Profile>(file.status());
    if (!p.ok()) {
        std::fprintf(stderr, "tune_kni: %s\n", p.error().c_str());
        std::exit(1);
    }
    return paramsOrDie(p.value().values);
}

Measurement measureOnce(const ParamSet &base, const Assignments &values)
{
    ParamSet ps = base;
    Measurement m;
    if (!ps.set(values).ok()) return m;
    const auto samples = runSim(ps, kSamples);
    std::map<std::string, std::vector<double>> byLabel;
    for (std::size_t k = kWarmup; k < samples.size(); ++k)
        for (const auto &v : flattenSample(*samples[k]))
            byLabel[v.thread.empty() ? v.name : v.name + "[" + v.thread + "]"].push_back(v.value);
    for (const auto &[label, v] : byLabel)
        m.metrics[label] = estimate(v);
    m.ok = true;
    m.runs = 1;
    return m;
}

} // namespace

int main()
{
    printMachine("tune_kni");
    const ParamSet base = baseParams();
    Constraint c;
    if (!parseConstraint(kConstraint, c).ok()) return 1;
    std::printf("minimize %s subject to %s over poll.sleep_min_us, poll.sleep_max_us "
                "(5..2000 us each); 2 s per run\n\n",
                kObjective, kConstraint);

    // Exhaustive: an 8 x 8 log grid, points the registry refuses (min > max) left out.
    SweepAxis lo, hi;
    (void)parseGridAxis("poll.sleep_min_us=5..2000:log:8", lo);
    (void)parseGridAxis("poll.sleep_max_us=5..2000:log:8", hi);
    int exhaustiveRuns = 0;
    double bestObjective = INFINITY;
    Assignments best;
    for (const auto &a : lo.values)
        for (const auto &b : hi.values) {
            const Assignments v{{"poll.sleep_min_us", a}, {"poll.sleep_max_us", b}};
            ParamSet check = base;
            if (!check.set(v).ok()) continue;
            const Measurement m = measureOnce(base, v);
            ++exhaustiveRuns;
            const double obj = m.metrics.at(kObjective).mean;
            const auto it = m.metrics.find(c.metric);
            const bool ok = it != m.metrics.end() && satisfied(c, it->second.mean);
            std::printf("  exhaustive %2d: min %5s max %5s  %s %7.1f  %s %7.1f%s\n", exhaustiveRuns,
                        a.c_str(), b.c_str(), kObjective, obj, c.metric.c_str(),
                        it == m.metrics.end() ? NAN : it->second.mean, ok ? "" : "  (breaks)");
            if (ok && obj < bestObjective) {
                bestObjective = obj;
                best = v;
            }
        }

    TuneSpec spec;
    spec.objective = kObjective;
    spec.constraints = {c};
    TuneAxis ax;
    (void)parseTuneAxis("poll.sleep_min_us=5..2000", ax);
    spec.axes.push_back(ax);
    (void)parseTuneAxis("poll.sleep_max_us=5..2000", ax);
    spec.axes.push_back(ax);
    spec.budget = exhaustiveRuns / 4;
    std::map<int, std::vector<Measurement>> perCandidate;
    const TuneResult r =
        tune(spec, base, [&](const Assignments &v, int) { return measureOnce(base, v); });
    std::printf("\ntuner: %d runs (budget %d), %s\n", r.runsUsed, spec.budget,
                r.found ? SweepPoint{0, r.best}.text().c_str() : r.why.c_str());
    if (!r.found || best.empty()) {
        std::printf("no answer to compare\n");
        return 1;
    }

    // Side by side: both answers, interleaved, 3 runs each.
    std::vector<double> ex, tu;
    for (int k = 0; k < 3; ++k) {
        ex.push_back(measureOnce(base, best).metrics.at(kObjective).mean);
        tu.push_back(measureOnce(base, r.best).metrics.at(kObjective).mean);
    }
    const double mex = median(ex), mtu = median(tu);
    std::printf("\n%-28s %-44s %12s\n", "", "setting", "CPU ms/s");
    std::printf("%-28s %-44s %12.1f\n", "exhaustive optimum", SweepPoint{0, best}.text().c_str(),
                mex);
    std::printf("%-28s %-44s %12.1f\n", "tuner", SweepPoint{0, r.best}.text().c_str(), mtu);
    std::printf("\nruns: tuner %d of exhaustive %d (%.0f %%); objective ratio tuner/optimum %.3f "
                "(medians of 3 interleaved runs each)\n",
                r.runsUsed, exhaustiveRuns, 100.0 * r.runsUsed / exhaustiveRuns, mtu / mex);
    std::printf("goal: ratio <= 1.10 with at most 25 %% of the runs: %s\n",
                mtu / mex <= 1.10 && r.runsUsed * 4 <= exhaustiveRuns ? "met" : "NOT met");
    return 0;
}
