// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/tune_job.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/common/number_text.h"
#include "engine/experiments/recorded_run.h"
#include "engine/experiments/report_text.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/profile/resolve_profile.h"
#include "engine/store/run_load.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_store.h"
#include "engine/store/sweep_store.h"

namespace ringlab {
namespace {

struct Prepared {
    TuneSpec spec;
    ParamSet base;
    Profile profile;
    std::string device; // the runs': the one given, else the profile's (as a run's)
};

Status prepare(const TuneOptions &o, Prepared &p)
{
    if (o.objective.empty()) return Status::refused("give --minimize METRIC or --maximize METRIC");
    p.spec.objective = metricLabel(o.objective);
    p.spec.maximize = o.maximize;
    for (const auto &text : o.constraints) {
        Constraint c;
        if (auto st = parseConstraint(text, c); !st.ok()) return st;
        p.spec.constraints.push_back(c);
    }
    if (o.over.empty())
        return Status::refused(
            "give --over with the tunables to search (e.g. --over poll.sleep_min_us)");
    for (const auto &text : o.over) {
        TuneAxis a;
        if (auto st = parseTuneAxis(text, a); !st.ok()) return st;
        for (const auto &b : p.spec.axes)
            if (b.tunable == a.tunable) return Status::refused(a.tunable + " is in --over twice");
        p.spec.axes.push_back(a);
    }
    for (const auto &text : o.ties) {
        SweepTie t;
        if (auto st = parseTie(text, t); !st.ok()) return st;
        for (const auto &a : p.spec.axes)
            if (a.tunable == t.tunable)
                return Status::refused(t.tunable + " is both searched and tied");
        p.spec.ties.push_back(t);
    }
    if (auto st = orderTies(p.spec.ties); !st.ok()) return st;
    p.spec.budget = o.budget;
    if (o.budget < 4)
        return Status::refused("--budget " + std::to_string(o.budget) +
                               " is too small (at least 4 runs)");
    // The runs' device's defaults first: the device given, else the profile's.
    ResolvedProfile resolved;
    if (!o.devices) return Status::failed("tune: no device provider (a program's mistake)");
    if (auto st = resolveProfile(o.profile, o.sets, resolved, o.device, o.devices->defaultsFn());
        !st.ok())
        return st;
    p.device = o.device.empty() ? resolved.profile.device : o.device;
    // A device's own figures (the lab's client round trips, a port's counters) are measured
    // only on that device; on the simulated NIC the engine's metrics are all there is.
    if (p.device == DeviceOptions{}.spec && !isEngineMetric(p.spec.objective))
        return Status::refused("objective \"" + o.objective +
                               "\" is not a metric the engine records (e.g. engine_cpu_ms_per_s, "
                               "latency_p99_us, rx_pps)");
    p.profile = std::move(resolved.profile);
    p.base = resolved.params;
    return Status::success();
}

std::string formatResult(const TuneOptions &o, const Prepared &p, const TuneResult &r,
                         const std::string &id)
{
    std::string out;
    char buf[512];
    std::snprintf(buf, sizeof buf, "tune %s: %s %s over", id.c_str(),
                  o.maximize ? "maximize" : "minimize", p.spec.objective.c_str());
    out += buf;
    for (const auto &a : p.spec.axes) {
        std::snprintf(buf, sizeof buf, " %s (%s..%s%s)", a.tunable.c_str(),
                      shortNumber(a.lo).c_str(), shortNumber(a.hi).c_str(), a.log ? ", log" : "");
        out += buf;
    }
    out += ", profile " + p.profile.name + "\n";
    for (const auto &c : p.spec.constraints)
        out += "  subject to " + c.text + "\n";
    std::snprintf(buf, sizeof buf, "  %d of %d runs used, %.1f s each\n\n", r.runsUsed,
                  p.spec.budget, static_cast<double>(o.durationNs) / 1e9);
    out += buf;
    if (r.found) {
        out += "best setting (candidate " + std::to_string(r.candidate) +
               "): " + SweepPoint{0, r.best}.text() + "\n";
        out += "  " + p.spec.objective + " " + withInterval(r.objective) +
               (r.runs > 2    ? " (95 %, over " + std::to_string(r.runs) + " runs)\n"
                : r.runs == 2 ? std::string(" (2 runs: an interval needs 3)\n")
                              : std::string(" (95 %, within its one run: no setting run again "
                                            "still met the constraints, so this one's "
                                            "run-to-run noise is not known)\n"));
        for (std::size_t k = 0; k < p.spec.constraints.size(); ++k)
            out += "  " + p.spec.constraints[k].metric + " " + withInterval(r.constraintValues[k]) +
                   "  (" + p.spec.constraints[k].text + ")\n";
        bool known = true; // an interval on each, or values that never moved
        for (const auto &e : r.constraintValues)
            known &= e.batches >= 3 || (e.n > 0 && e.min == e.max);
        if (known) {
            std::snprintf(buf, sizeof buf, "  probability that every constraint holds: %.0f %%%s\n",
                          r.probability * 100,
                          r.probability < 0.95 ? " (below 95 %: run it longer or with repeats "
                                                 "before trusting it)"
                                               : "");
            out += buf;
        } else {
            out += "  probability that every constraint holds: not known (its runs give no "
                   "interval: 3 runs or more do; a larger --budget leaves room for them)\n";
        }
    } else {
        out += "no answer: " + r.why + "\n";
    }
    out += "\ntrail:\n";
    std::snprintf(buf, sizeof buf, "  %4s %5s %-7s %14s  %s\n", "run", "cand", "phase",
                  p.spec.objective.substr(0, 14).c_str(), "setting");
    out += buf;
    for (const auto &t : r.trail) {
        std::snprintf(buf, sizeof buf, "  %4d %5d %-7s %14s  %s%s\n", t.run, t.candidate,
                      t.phase.c_str(), shortNumber(t.objective).c_str(),
                      SweepPoint{0, t.values}.text().c_str(),
                      t.meetsConstraints ? "" : "  (breaks a constraint)");
        out += buf;
    }
    return out;
}

// Before a candidate's run: its number among the budget's runs, and the time left.
void announceTuneRun(const TuneOptions &o, int runs, int candidate, const Assignments &values)
{
    if (o.onStep) o.onStep(runs + 1, o.budget);
    if (o.onProgress)
        o.onProgress(
            {runs + 1, o.budget, runs,
             static_cast<double>(o.budget - runs) * (static_cast<double>(o.durationNs) / 1e9 + 0.3),
             "candidate " + std::to_string(candidate) + " (" + SweepPoint{0, values}.text() + ")"});
}

// A candidate's run as a session of the tune: its name, its group and its repeat.
void describeTuneRun(const TuneOptions &o, const Prepared &p, const std::string &id, int candidate,
                     const Assignments &values, std::size_t earlierRuns, RecordedRun &run)
{
    run.setup.profile = p.profile.name;
    run.setup.sessionName =
        "tune " + id + " #" + std::to_string(candidate) + " " + SweepPoint{0, values}.text();
    run.setup.runGroup = "tune " + id + " candidate " + std::to_string(candidate);
    run.setup.repeatIndex = static_cast<int>(earlierRuns) + 1;
    run.setup.device.spec = p.device;
    run.setup.device.traffic = o.traffic;
    run.durationNs = o.durationNs;
    run.started = o.onSessionStarted;
}

// A candidate's estimates over its sessions so far.
Measurement measuredOver(SessionStore &store, const std::vector<std::int64_t> &sessions,
                         double warmupS)
{
    Measurement m;
    const CompareSide side = compareSideOf(store, sessions, warmupS);
    for (const auto &[label, v] : side.values)
        if (!v.empty()) m.metrics[label] = estimate(v, side.repeats ? 1 : kSamplesPerBatch);
    m.runs = static_cast<int>(sessions.size());
    m.ok = true;
    return m;
}

// Every candidate's sessions, in the order of the candidates.
std::vector<std::int64_t> allSessions(const std::map<int, std::vector<std::int64_t>> &sessions)
{
    std::vector<std::int64_t> all;
    for (const auto &[candidate, ids] : sessions)
        all.insert(all.end(), ids.begin(), ids.end());
    return all;
}

// Failed or Interrupted only when that happened before an answer; `error` says what did.
Outcome tuneOutcome(const TuneResult &result, std::string &error)
{
    if (!result.failure.empty() && !result.found) {
        error = result.failure + "; the runs so far are kept as sessions";
        return Outcome::Failed;
    }
    if (!result.failure.empty()) // the answer stands on the runs made before it
        error = result.failure + "; the answer is from the " + std::to_string(result.runsUsed) +
                " runs before it";
    if (result.interrupted && !result.found) {
        error = "interrupted after " + std::to_string(result.runsUsed) + " runs";
        return Outcome::Interrupted;
    }
    return Outcome::Done;
}

} // namespace

Outcome runTune(const TuneOptions &o, int sigFd, TuneResult &result, std::string &report,
                std::string &error)
{
    Prepared p;
    if (Status st = prepare(o, p); !st.ok()) {
        error = st.error;
        return Outcome::Refused;
    }
    const std::filesystem::path path =
        o.db.empty() ? SessionStore::defaultPath() : std::filesystem::path(o.db);
    SessionStore store(path);
    const std::string id = newSweepId(store);
    std::map<int, std::vector<std::int64_t>> sessions;
    int runs = 0; // measured, or being measured
    const auto say = [&](const std::string &m) {
        if (o.progress) o.progress(m);
    };
    const MeasureFn measure = [&](const Assignments &values, int candidate) {
        Measurement m;
        RecordedRun run;
        run.setup.params = p.base;
        if (auto st = run.setup.params.set(values); !st.ok()) {
            m.failure = st.error;
            return m;
        }
        auto &mine = sessions[candidate];
        announceTuneRun(o, runs, candidate, values);
        ++runs;
        describeTuneRun(o, p, id, candidate, values, mine.size(), run);
        std::int64_t session = 0;
        std::string why; // the last thing a failed run said
        const auto sayAndKeep = [&](const std::string &msg) {
            why = msg;
            say(msg);
        };
        const Outcome end =
            recordRun(run, *o.devices, store, sigFd, o.cancelled, sayAndKeep, session);
        if (end != Outcome::Done) {
            if (end == Outcome::Failed) m.failure = why.empty() ? "no reason given" : why;
            return m;
        }
        mine.push_back(session);
        return measuredOver(store, mine, o.warmupS);
    };
    result = tune(p.spec, p.base, measure, o.progress);
    report = formatResult(o, p, result, id);
    const std::vector<std::int64_t> all = allSessions(sessions);
    if (auto w = loadSpreadWarning(loadSpread(store, all, o.warmupS)); !w.empty()) {
        say("tune " + id + ": " + w);
        report += w + "\n";
    }
    return tuneOutcome(result, error);
}

Status checkTune(const TuneOptions &o)
{
    Prepared p;
    return prepare(o, p);
}

Status saveTunedProfile(const TuneOptions &o, const TuneResult &r)
{
    Prepared p;
    if (Status st = prepare(o, p); !st.ok()) return st;
    nlohmann::ordered_json j;
    const std::string name = std::filesystem::path(o.saveProfile).stem().string();
    j["name"] = name;
    std::string desc = "Tuned from " + p.profile.name + ": " +
                       std::string(o.maximize ? "maximize " : "minimize ") + p.spec.objective;
    for (const auto &c : p.spec.constraints)
        desc += ", " + c.text;
    char buf[96];
    std::snprintf(buf, sizeof buf, " (measured %s, constraints hold with p = %.2f)",
                  withInterval(r.objective).c_str(), r.probability);
    j["description"] = desc + buf;
    j["device"] = p.device; // where it was tuned
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    auto put = [&](const std::string &n, const std::string &v) {
        const TunableInfo *t = findTunable(n);
        Value val;
        if (t && ParamSet::parse(*t, v, val).ok() && t->type == Type::Integer)
            params[n] = val.i;
        else if (t && t->type == Type::Flag && ParamSet::parse(*t, v, val).ok())
            params[n] = val.i != 0;
        else if (t && t->type == Type::Real && ParamSet::parse(*t, v, val).ok())
            params[n] = val.r;
        else
            params[n] = v;
    };
    for (const auto &[n, v] : p.profile.values)
        put(n, v);
    for (const auto &[n, v] : o.sets)
        put(n, v);
    for (const auto &[n, v] : r.best)
        put(n, v);
    j["params"] = params;
    std::ofstream out(o.saveProfile);
    out << j.dump(2) << "\n";
    out.close();
    if (!out) return Status::failed("cannot write " + o.saveProfile);
    // What was written must load as a profile.
    const auto check = loadProfile(o.saveProfile);
    return check.ok() ? Status::success() : check.status();
}

} // namespace ringlab
