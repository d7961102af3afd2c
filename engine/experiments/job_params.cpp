// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/job_params.h"

#include "engine/experiments/napi_reproduction.h"

#include <algorithm>
#include <vector>

#include "engine/common/duration.h"
#include "engine/profile/run_defaults.h"
#include "engine/profile/sweep_spec.h"
#include "engine/run/api_fields.h"
#include "engine/run/run_api.h"

namespace ringlab {
namespace {

using nlohmann::json;

Status words(const json &body, const char *name, std::vector<std::string> &out)
{
    out.clear();
    if (!body.contains(name)) return {};
    const json &v = body[name];
    if (v.is_string()) {
        out.push_back(v.get<std::string>());
        return {};
    }
    if (v.is_array() &&
        std::all_of(v.begin(), v.end(), [](const json &e) { return e.is_string(); })) {
        for (const auto &e : v)
            out.push_back(e.get<std::string>());
        return {};
    }
    return Status{std::string("\"") + name + "\": a string or an array of strings, not " +
                  v.dump()};
}

Status count(const json &body, const char *name, int lo, int hi, int &out)
{
    if (!body.contains(name)) return {};
    const json &v = body[name];
    if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
        return Status{std::string("\"") + name + "\": an integer of " + std::to_string(lo) + ".." +
                      std::to_string(hi) + ", not " + v.dump()};
    out = v.get<int>();
    return {};
}

Status duration(const json &body, std::int64_t &out)
{
    if (!body.contains("duration")) return {};
    const json &v = body["duration"];
    std::optional<std::int64_t> ns;
    if (v.is_number() && v.get<double>() > 0 && v.get<double>() <= 3600)
        ns = static_cast<std::int64_t>(v.get<double>() * 1e9);
    else if (v.is_string())
        ns = parseDurationNs(v.get<std::string>());
    if (!ns || *ns < 100'000'000 || *ns > 3'600'000'000'000)
        return Status{"\"duration\": 0.1 s to 1 h, as \"2s\", \"500ms\" or seconds, not " +
                      v.dump()};
    out = *ns;
    return {};
}

// The warm-up left out of each run: the default, or half of a shorter run (as the desktop's
// Sweep tab does).
double warmupFor(std::int64_t durationNs)
{
    return std::min(kWarmupS, static_cast<double>(durationNs) / 2e9);
}

Status assignments(const json &body, Assignments &out)
{
    std::vector<std::string> sets;
    if (auto st = words(body, "set", sets); !st.ok()) return st;
    for (const auto &kv : sets) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            return Status{"\"set\": \"" + kv + "\" is not NAME=VALUE"};
        out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    return {};
}

Status profileName(const json &body, std::string &out)
{
    if (auto st = stringField(body, "profile", out); !st.ok()) return st;
    return clientProfileName(out);
}

// A job's "device": as a run's (clientDeviceSpec); none, the profile's.
Status deviceSpec(const json &body, std::string &out)
{
    if (auto st = stringField(body, "device", out); !st.ok()) return st;
    if (body.contains("device"))
        if (auto st = clientDeviceSpec(out); !st.ok()) return Status{"\"device\": " + st.error};
    return {};
}

Status sweepFrom(const json &b, const DeviceProvider &devices, SweepSpec &s)
{
    if (auto st = onlyFields(
            b, {"kind", "profile", "device", "set", "vary", "grid", "tie", "repeat", "duration"},
            "a sweep job");
        !st.ok())
        return st;
    if (auto st = profileName(b, s.profile); !st.ok()) return st;
    if (auto st = deviceSpec(b, s.device); !st.ok()) return st;
    if (auto st = assignments(b, s.sets); !st.ok()) return st;
    std::vector<std::string> vary, grid, ties;
    if (auto st = words(b, "vary", vary); !st.ok()) return st;
    if (auto st = words(b, "grid", grid); !st.ok()) return st;
    if (auto st = words(b, "tie", ties); !st.ok()) return st;
    for (const auto &t : vary) {
        SweepAxis a;
        if (auto st = parseVaryAxis(t, a); !st.ok()) return Status{"\"vary\": " + st.error};
        s.axes.push_back(a);
    }
    for (const auto &t : grid) {
        SweepAxis a;
        if (auto st = parseGridAxis(t, a); !st.ok()) return Status{"\"grid\": " + st.error};
        s.axes.push_back(a);
    }
    if (s.axes.empty()) return Status{"a sweep needs \"vary\" or \"grid\": nothing to sweep"};
    for (const auto &t : ties) {
        SweepTie tie;
        if (auto st = parseTie(t, tie); !st.ok()) return Status{"\"tie\": " + st.error};
        s.ties.push_back(tie);
    }
    if (auto st = orderTies(s.ties); !st.ok()) return Status{"\"tie\": " + st.error};
    if (auto st = count(b, "repeat", 1, 100, s.repeat); !st.ok()) return st;
    if (auto st = duration(b, s.durationNs); !st.ok()) return st;
    s.warmupS = warmupFor(s.durationNs);
    // Every point against the profile and the registry now, so that a mistake is the
    // request's (400), not a job that fails at its first run.
    ResolvedProfile base;
    if (auto st = resolveSweepBase(s, devices, base); !st.ok()) return st;
    if (s.device.empty()) s.device = base.profile.device; // the runs' (and the grant's)
    std::vector<SweepPoint> points;
    return expandPoints(s, base.params, points);
}

Status tuneFrom(const json &b, TuneOptions &t)
{
    if (auto st = onlyFields(b,
                             {"kind", "profile", "device", "set", "minimize", "maximize",
                              "subject_to", "over", "tie", "budget", "duration"},
                             "a tune job");
        !st.ok())
        return st;
    if (auto st = profileName(b, t.profile); !st.ok()) return st;
    if (auto st = deviceSpec(b, t.device); !st.ok()) return st;
    if (auto st = assignments(b, t.sets); !st.ok()) return st;
    std::string minimize, maximize;
    if (auto st = stringField(b, "minimize", minimize); !st.ok()) return st;
    if (auto st = stringField(b, "maximize", maximize); !st.ok()) return st;
    if (minimize.empty() == maximize.empty())
        return Status{"a tune takes one of \"minimize\" and \"maximize\" (a metric)"};
    t.objective = minimize.empty() ? maximize : minimize;
    t.maximize = !maximize.empty();
    if (auto st = words(b, "subject_to", t.constraints); !st.ok()) return st;
    std::vector<std::string> over;
    if (auto st = words(b, "over", over); !st.ok()) return st;
    for (const auto &w : over) // comma-separated, as --over takes them
        for (std::size_t from = 0, comma = 0; from <= w.size(); from = comma + 1) {
            comma = w.find(',', from);
            if (comma == std::string::npos) comma = w.size();
            if (comma > from) t.over.push_back(w.substr(from, comma - from));
        }
    if (auto st = words(b, "tie", t.ties); !st.ok()) return st;
    if (auto st = count(b, "budget", 4, 1000, t.budget); !st.ok()) return st;
    if (auto st = duration(b, t.durationNs); !st.ok()) return st;
    t.warmupS = warmupFor(t.durationNs);
    if (auto st = checkTune(t); !st.ok()) return st; // the request's mistake (400)
    if (t.device.empty()) { // the runs' (and the grant's): the profile's, as a run's
        ResolvedProfile r;
        if (auto st = resolveProfile(t.profile, t.sets, r, {}, t.devices->defaultsFn()); !st.ok())
            return st;
        t.device = r.profile.device;
    }
    return {};
}

Status reproduceFrom(const json &b, ReproduceOptions &r)
{
    if (auto st = onlyFields(b, {"kind", "case", "repeat", "duration"}, "a reproduce job");
        !st.ok())
        return st;
    if (auto st = stringField(b, "case", r.which); !st.ok()) return st;
    if (r.which == kNapiCaseName)
        r.device = std::string(kNapiDevice); // its runs are on the kernel lab: its grant
    else if (auto cases = casesFor(r.which); !cases.ok())
        return cases.status().within("\"case\": ");
    if (auto st = count(b, "repeat", 1, 100, r.repeat); !st.ok()) return st;
    if (auto st = duration(b, r.durationNs); !st.ok()) return st;
    r.warmupS = warmupFor(r.durationNs);
    return {};
}

} // namespace

Status jobSpecFromJson(const json &body, const DeviceProvider &devices, JobSpec &out)
{
    out = JobSpec{}; // nothing of an earlier request
    out.sweep.devices = out.tune.devices = out.reproduce.devices = &devices;
    if (!body.is_object()) return Status{"a job is a JSON object with its \"kind\""};
    if (!body.contains("kind") || !body["kind"].is_string())
        return Status{"\"kind\": sweep, tune or reproduce"};
    out.kind = body["kind"].get<std::string>();
    out.params = body;
    out.params.erase("kind");
    if (out.kind == "sweep") return sweepFrom(body, devices, out.sweep.spec);
    if (out.kind == "tune") return tuneFrom(body, out.tune);
    if (out.kind == "reproduce") return reproduceFrom(body, out.reproduce);
    return Status{"\"kind\": \"" + out.kind + "\" is not one (allowed: sweep, tune, reproduce)"};
}

} // namespace ringlab
