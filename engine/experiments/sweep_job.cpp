// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/sweep_job.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/datapath/clock.h"
#include "engine/experiments/recorded_run.h"
#include "engine/profile/resolve_profile.h"
#include "engine/store/run_load.h"
#include "engine/store/session_store.h"

namespace ringlab {
namespace {

using Say = std::function<void(const std::string &)>;

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

// A resumed sweep's points: one that no longer passes the registry (the profile changed) is
// refused now.
Status checkResumedPoints(const SweepRecord &sweep, const ParamSet &base)
{
    for (const auto &p : sweep.points) {
        ParamSet check = base;
        if (auto st = check.set(p.values); !st.ok())
            return st.within("sweep " + sweep.id + " point " + std::to_string(p.index) + " (" +
                             p.text() + "): ");
    }
    return Status::success();
}

// Before a run: its point and repeat, its place among the planned runs, the time left.
void announceSweepRun(const SweepOptions &o, const SweepRecord &sweep, const SweepPoint &pt, int r,
                      int planned, int left, double perRun, const Say &say)
{
    const int n = static_cast<int>(sweep.points.size());
    say("sweep " + sweep.id + ": point " + std::to_string(pt.index) + " of " + std::to_string(n) +
        " (" + pt.text() + "), run " + std::to_string(r) + " of " +
        std::to_string(sweep.spec.repeat) + " (" + std::to_string(planned - left + 1) + "/" +
        std::to_string(planned) + "), about " + minutes(perRun * left) + " left");
    if (o.onStep) o.onStep(planned - left + 1, planned);
    if (o.onProgress)
        o.onProgress({planned - left + 1, planned, planned - left, perRun * left,
                      "point " + std::to_string(pt.index) + " (" + pt.text() + "), run " +
                          std::to_string(r)});
}

// Repeat `r` of a point as a session of the sweep, its values on top of the base.
RecordedRun sweepRun(const SweepOptions &o, const SweepRecord &sweep, const SweepPoint &pt, int r,
                     const ParamSet &base, const std::string &profileName)
{
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
    return run;
}

// Why the sweep stops after a run that was interrupted or failed; the runs so far are kept.
std::string stoppedMessage(Outcome end, const SweepRecord &sweep, const SweepPoint &pt, int planned)
{
    if (end == Outcome::Interrupted)
        return "interrupted after " + std::to_string(sweep.completedRuns()) + " of " +
               std::to_string(planned) + " runs; continue with --resume " + sweep.id;
    return "a run of point " + std::to_string(pt.index) + " (" + pt.text() +
           ") failed; the runs so far are kept (--resume " + sweep.id + ")";
}

// Every run not measured yet, recorded in `sweep` as it goes.
Status runSweepPoints(const SweepOptions &o, int sigFd, SessionStore &store, SweepRecord &sweep,
                      const ParamSet &base, const std::string &profileName, const Say &say)
{
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
            announceSweepRun(o, sweep, pt, r, planned, left, perRun, say);
            const RecordedRun run = sweepRun(o, sweep, pt, r, base, profileName);
            std::int64_t session = 0;
            const Outcome end = recordRun(run, *o.devices, store, sigFd, o.cancelled, say, session);
            if (session)
                sweep.runs.push_back({pt.index, r, session,
                                      end == Outcome::Done          ? "completed"
                                      : end == Outcome::Interrupted ? "interrupted"
                                                                    : "failed"});
            if (end == Outcome::Interrupted)
                return Status::interrupted(stoppedMessage(end, sweep, pt, planned));
            if (end == Outcome::Failed)
                return Status::failed(stoppedMessage(end, sweep, pt, planned));
            --left;
            ++runsThisTime;
            if (o.onRun) o.onRun(sweep);
        }
    }
    return Status::success();
}

// The load's spread over the sweep's completed runs, when it is worth a warning.
std::string completedLoadWarning(SessionStore &store, const SweepRecord &sweep)
{
    std::vector<std::int64_t> sessions;
    for (const auto &run : sweep.runs)
        if (run.status == "completed") sessions.push_back(run.session);
    return loadSpreadWarning(loadSpread(store, sessions, sweep.spec.warmupS));
}

} // namespace

Status resolveSweepBase(const SweepSpec &spec, const DeviceProvider &devices, ResolvedProfile &out)
{
    // The runs' device's defaults first: the device given, else the profile's (as a run).
    return resolveProfile(spec.profile, spec.sets, out, spec.device, devices.defaultsFn());
}

Status runSweep(const SweepOptions &o, int sigFd, std::string &id)
{
    auto say = [&](const std::string &msg) {
        if (o.progress) o.progress(msg);
    };
    if (!o.devices) return Status::failed("sweep: no device provider (a program's mistake)");
    if (auto labels =
            sweepMetricLabels(o.metrics.empty() ? defaultSweepMetrics() : o.metrics, true);
        !labels.ok())
        return labels.status();
    SessionStore store(SessionStore::pathOr(o.db));
    SweepRecord sweep;
    if (!o.resume.empty()) {
        auto resumed = loadSweep(store, o.resume);
        if (!resumed.ok()) return resumed.status();
        sweep = std::move(resumed).value();
        // Recorded before sweeps took their profile's device, an empty device meant the
        // simulated NIC: the runs still to make go where the first ones went.
        if (sweep.spec.device.empty()) sweep.spec.device = DeviceOptions{}.spec;
    } else {
        sweep.spec = o.spec;
    }
    ResolvedProfile resolved;
    if (auto st = resolveSweepBase(sweep.spec, *o.devices, resolved); !st.ok()) return st;
    const ParamSet &base = resolved.params;
    const std::string &profileName = resolved.profile.name;
    // The runs are on the device given, else the profile's, as a run's; the sweep's
    // description says which.
    if (sweep.spec.device.empty()) sweep.spec.device = resolved.profile.device;
    if (o.resume.empty()) {
        if (auto st = expandPoints(sweep.spec, base, sweep.points); !st.ok()) return st;
        sweep.id = newSweepId(store);
    } else {
        sweep.id = o.resume;
        if (auto st = checkResumedPoints(sweep, base); !st.ok()) return st;
    }
    id = sweep.id;

    if (Status st = runSweepPoints(o, sigFd, store, sweep, base, profileName, say); !st.ok())
        return st;
    if (auto w = completedLoadWarning(store, sweep); !w.empty())
        say("sweep " + sweep.id + ": " + w);
    return Status::success();
}

} // namespace ringlab
