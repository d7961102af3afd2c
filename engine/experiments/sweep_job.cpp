// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/sweep_job.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "drivers/registry.h"
#include "engine/datapath/clock.h"
#include "engine/experiments/recorded_run.h"
#include "engine/profile/resolve_profile.h"
#include "engine/store/run_load.h"
#include "engine/store/session_store.h"

namespace ringlab {
namespace {

std::string minutes(double s)
{
    char buf[48];
    if (s < 60)
        std::snprintf(buf, sizeof buf, "%.0f s", std::ceil(s));
    else
        std::snprintf(buf, sizeof buf, "%d min %02d s", static_cast<int>(s) / 60,
                      static_cast<int>(s) % 60);
    return buf;
}

} // namespace

Status resolveSweepBase(const SweepSpec &spec, ResolvedProfile &out)
{
    // The runs' device's defaults first: the runs use spec.device as given (none: the
    // simulated NIC), not the profile's.
    return resolveProfile(spec.profile, spec.sets, out,
                          spec.device.empty() ? DeviceOptions{}.spec : spec.device, deviceDefaults);
}

Outcome runSweep(const SweepOptions &o, int sigFd, std::string &id, std::string &error)
{
    auto say = [&](const std::string &msg) {
        if (o.progress) o.progress(msg);
    };
    std::vector<std::string> labels;
    if (!sweepMetricLabels(o.metrics.empty() ? defaultSweepMetrics() : o.metrics, true, labels,
                           error))
        return Outcome::Refused;
    SessionStore store(SessionStore::pathOr(o.db));
    SweepRecord sweep;
    if (!o.resume.empty()) {
        if (!loadSweep(store, o.resume, sweep, error)) return Outcome::Refused;
    } else {
        sweep.spec = o.spec;
    }
    ResolvedProfile resolved;
    if (auto st = resolveSweepBase(sweep.spec, resolved); !st.ok()) {
        error = st.error;
        return Outcome::Refused;
    }
    const ParamSet &base = resolved.params;
    const std::string &profileName = resolved.profile.name;
    if (o.resume.empty()) {
        if (auto st = expandPoints(sweep.spec, base, sweep.points); !st.ok()) {
            error = st.error;
            return Outcome::Refused;
        }
        sweep.id = newSweepId(store);
    } else {
        sweep.id = o.resume;
        // A point that no longer passes the registry (the profile changed) is refused now.
        for (const auto &p : sweep.points) {
            ParamSet check = base;
            if (auto st = check.set(p.values); !st.ok()) {
                error = "sweep " + sweep.id + " point " + std::to_string(p.index) + " (" +
                        p.text() + "): " + st.error;
                return Outcome::Refused;
            }
        }
    }
    id = sweep.id;

    const int planned = sweep.plannedRuns();
    int left = planned - sweep.completedRuns();
    if (!o.resume.empty())
        say("resuming sweep " + sweep.id + ": " + std::to_string(sweep.completedRuns()) + " of " +
            std::to_string(planned) + " runs already measured");
    const std::int64_t started = nowNs();
    int runsThisTime = 0;
    const int n = static_cast<int>(sweep.points.size());
    for (int r = 1; r <= sweep.spec.repeat; ++r) {
        // Forward, then backward: a drift over the sweep falls on every point alike.
        for (int k = 0; k < n; ++k) {
            const SweepPoint &pt = sweep.points[static_cast<std::size_t>(r % 2 ? k : n - 1 - k)];
            if (sweep.completed(pt.index, r)) continue;
            const double perRun = runsThisTime
                                      ? static_cast<double>(nowNs() - started) / 1e9 / runsThisTime
                                      : static_cast<double>(sweep.spec.durationNs) / 1e9 + 0.3;
            say("sweep " + sweep.id + ": point " + std::to_string(pt.index) + " of " +
                std::to_string(n) + " (" + pt.text() + "), run " + std::to_string(r) + " of " +
                std::to_string(sweep.spec.repeat) + " (" + std::to_string(planned - left + 1) +
                "/" + std::to_string(planned) + "), about " + minutes(perRun * left) + " left");
            if (o.onStep) o.onStep(planned - left + 1, planned);
            if (o.onProgress)
                o.onProgress({planned - left + 1, planned, planned - left, perRun * left,
                              "point " + std::to_string(pt.index) + " (" + pt.text() + "), run " +
                                  std::to_string(r)});
            RecordedRun run;
            run.setup.params = base;
            (void)run.setup.params.set(pt.values); // checked above
            run.setup.profile = profileName;
            run.setup.sessionName = "sweep " + sweep.id + " #" + std::to_string(pt.index) + "." +
                                    std::to_string(r) + " " + pt.text();
            run.setup.runGroup = sweepGroup(sweep.id, pt.index);
            run.setup.repeatIndex = r;
            run.setup.device.spec = sweep.spec.device;
            run.setup.device.traffic = sweep.spec.traffic;
            run.durationNs = sweep.spec.durationNs;
            run.setup.atStart = {sweepEvent(sweep.id, sweep.spec, sweep.points, pt.index)};
            run.started = o.onSessionStarted;
            std::int64_t session = 0;
            const Outcome end = recordRun(run, store, sigFd, o.cancelled, say, session);
            if (session)
                sweep.runs.push_back({pt.index, r, session,
                                      end == Outcome::Done          ? "completed"
                                      : end == Outcome::Interrupted ? "interrupted"
                                                                    : "failed"});
            if (end == Outcome::Interrupted) {
                error = "interrupted after " + std::to_string(sweep.completedRuns()) + " of " +
                        std::to_string(planned) + " runs; continue with --resume " + sweep.id;
                return Outcome::Interrupted;
            }
            if (end == Outcome::Failed) {
                error = "a run of point " + std::to_string(pt.index) + " (" + pt.text() +
                        ") failed; the runs so far are kept (--resume " + sweep.id + ")";
                return Outcome::Failed;
            }
            --left;
            ++runsThisTime;
            if (o.onRun) o.onRun(sweep);
        }
    }
    std::vector<std::int64_t> sessions;
    for (const auto &run : sweep.runs)
        if (run.status == "completed") sessions.push_back(run.session);
    if (auto w = loadSpreadWarning(loadSpread(store, sessions, sweep.spec.warmupS)); !w.empty())
        say("sweep " + sweep.id + ": " + w);
    return Outcome::Done;
}

} // namespace ringlab
