// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/reproduce_job.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>

#include "engine/common/host_info.h"
#include "engine/common/number_text.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/engine.h"
#include "engine/experiments/recorded_run.h"
#include "engine/experiments/report_text.h"
#include "engine/git_revision.h"
#include "engine/profile/reference_cases.h"
#include "engine/profile/resolve_profile.h"
#include "engine/store/recorder.h"
#include "engine/store/run_load.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_store.h"
#include "engine/version.h"

namespace ringlab {
namespace {

using Say = std::function<void(const std::string &)>;

struct Side {
    std::string profileName;
    ParamSet params;
    std::string group;
    std::int64_t firstId = 0;
    std::vector<std::int64_t> ids;
};

// Per repeat: the metric's value on this side, per `per` and scaled as the case says.
std::vector<double> caseValues(const CompareSide &s, const CaseMetric &m, bool after)
{
    const std::string label(after && !m.labelAfter.empty() ? m.labelAfter : m.label);
    std::vector<double> out;
    const auto it = s.values.find(label);
    if (it == s.values.end()) return out;
    const std::vector<double> *den = nullptr;
    if (!m.per.empty()) {
        const auto d = s.values.find(std::string(m.per));
        if (d == s.values.end() || d->second.size() != it->second.size()) return out;
        den = &d->second;
    }
    for (std::size_t k = 0; k < it->second.size(); ++k) {
        double v = it->second[k];
        if (den) v = (*den)[k] > 0 ? v / (*den)[k] : NAN;
        if (std::isfinite(v)) out.push_back(v * m.scale);
    }
    return out;
}

std::string verdictOf(const CaseMetric &m, const Estimate &a, const Estimate &b,
                      const Difference &d)
{
    if (a.batches < 3 || b.batches < 3) return "no interval: needs 3 or more repeats";
    if (!d.significant) return "not resolvable at this noise";
    const int dir = d.diff > 0 ? +1 : -1;
    if (m.seedDirection == 0) return dir > 0 ? "rises (no seed figure)" : "falls (no seed figure)";
    return dir == m.seedDirection ? "reproduced" : "not reproduced: opposite direction";
}

// Words of `text` in lines of at most `width` characters, each after the first indented.
std::string wrapped(std::string_view text, std::size_t width, const std::string &indent)
{
    std::string out, line;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find(' ', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view word = text.substr(pos, end - pos);
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n" + indent;
            line.clear();
        }
        line += (line.empty() ? "" : " ") + std::string(word);
        pos = end + 1;
    }
    return out + line;
}

bool loadSide(const ReferenceCase &c, std::string_view profile, Side &side, std::string &error)
{
    // The case's profile over the registry's values (no device's defaults).
    ResolvedProfile resolved;
    if (auto st = resolveProfile(std::string(profile), {}, resolved); !st.ok()) {
        error = std::string(c.name) + ": " + st.error;
        return false;
    }
    side.params = resolved.params;
    side.profileName = resolved.profile.name;
    return true;
}

// The case's verdicts, as a `comparison` event on every session of both groups, so that
// `sessions show` of any of them says what the pair showed.
void recordComparison(SessionStore &store, const ReproduceCase &rc, const Side &a, const Side &b)
{
    Event e;
    e.kind = "comparison";
    e.source = "reproduce";
    e.message = "reproduce " + std::string(rc.reference->name) + ": before " + a.profileName +
                " (" + rc.beforeLabel + "), after " + b.profileName + " (" + rc.afterLabel + ")";
    for (const auto &r : rc.rows) {
        e.message += "; " + std::string(r.metric->name) + " " + tableNumber(r.a.mean) + " -> " +
                     tableNumber(r.b.mean) + " " + std::string(r.metric->unit);
        if (r.diff.ciHalf > 0 && r.a.mean != 0)
            appendf(e.message, " (%+.1f %% ±%.1f)", r.diff.pct,
                    r.diff.ciHalf / std::fabs(r.a.mean) * 100);
        e.message += ": " + r.verdict;
    }
    for (const Side *s : {&a, &b})
        for (const std::int64_t id : s->ids) {
            SessionInfo info;
            if (store.get(id, info)) e.t = info.durationS;
            store.append(id, {}, {e});
        }
}

// Before a run: the case, the side and the repeat, its place among the runs, the time left.
void announceReproduceRun(const ReproduceOptions &o, const ReferenceCase &c, const Side &s, int r,
                          int done, int runs, const Say &say)
{
    say(std::string(c.name) + ": " + s.profileName + ", run " + std::to_string(r) + " of " +
        std::to_string(o.repeat) + " (" + std::to_string(done) + "/" + std::to_string(runs) + ")");
    if (o.onStep) o.onStep(done, runs);
    if (o.onProgress)
        o.onProgress(
            {done, runs, done - 1,
             static_cast<double>(runs - done + 1) * (static_cast<double>(o.durationNs) / 1e9 + 0.3),
             std::string(c.name) + ": " + s.profileName + ", run " + std::to_string(r)});
}

// Repeat `r` of a side as a session of its group.
RecordedRun reproduceRun(const ReproduceOptions &o, const Side &s, int r, const std::string &device)
{
    RecordedRun run;
    run.setup.params = s.params;
    run.setup.profile = s.profileName;
    run.setup.sessionName = s.profileName + " #" + std::to_string(r);
    run.setup.runGroup = s.group;
    run.setup.repeatIndex = r;
    run.setup.device.spec = device;
    run.setup.device.traffic = o.traffic;
    run.durationNs = o.durationNs;
    run.started = o.onSessionStarted;
    return run;
}

// One run of a side, its session kept with the side's; Interrupted or Failed stop the command.
Outcome runSide(const ReproduceOptions &o, int sigFd, SessionStore &store, const ReferenceCase &c,
                Side &s, int r, const std::string &device, const Say &say, std::string &error)
{
    const RecordedRun run = reproduceRun(o, s, r, device);
    std::int64_t id = 0;
    const Outcome end = recordRun(run, *o.devices, store, sigFd, o.cancelled, say, id);
    if (id) {
        if (!s.firstId) s.firstId = id;
        s.ids.push_back(id);
    }
    if (end == Outcome::Interrupted) {
        error = "interrupted; the runs so far are in " + store.file().string();
        return Outcome::Interrupted;
    }
    if (end == Outcome::Failed) {
        error = std::string(c.name) + ": a run of " + s.profileName + " failed";
        return Outcome::Failed;
    }
    return Outcome::Done;
}

// The case's runs, before and after in ABBA order: a drift over them falls on both alike.
Outcome runCaseSides(const ReproduceOptions &o, int sigFd, SessionStore &store,
                     const ReferenceCase &c, Side &a, Side &b, const std::string &device, int runs,
                     int &done, const Say &say, std::string &error)
{
    for (int r = 1; r <= o.repeat; ++r) {
        Side *first = r % 2 ? &a : &b, *second = r % 2 ? &b : &a;
        for (Side *s : {first, second}) {
            ++done;
            announceReproduceRun(o, c, *s, r, done, runs, say);
            if (const Outcome end = runSide(o, sigFd, store, c, *s, r, device, say, error);
                end != Outcome::Done)
                return end;
        }
    }
    return Outcome::Done;
}

// Each metric of the case, before against after, with its verdict.
void compareCaseMetrics(const ReferenceCase &c, const CompareSide &sa, const CompareSide &sb,
                        ReproduceCase &rc)
{
    for (const auto &m : c.metrics) {
        ReproduceRow row{&m, {}, {}, {}, {}};
        const auto va = caseValues(sa, m, false), vb = caseValues(sb, m, true);
        if (va.empty() || vb.empty()) {
            row.verdict = "not measured on this device";
        } else {
            row.a = estimate(va, sa.repeats ? 1 : kSamplesPerBatch);
            row.b = estimate(vb, sb.repeats ? 1 : kSamplesPerBatch);
            row.diff = compareEstimates(row.a, row.b);
            row.verdict = verdictOf(m, row.a, row.b, row.diff);
        }
        rc.rows.push_back(row);
    }
}

// The load's spread over both sides' runs, when it is worth a warning.
std::string sidesLoadWarning(SessionStore &store, const Side &a, const Side &b, double warmupS)
{
    std::vector<std::int64_t> both = a.ids;
    both.insert(both.end(), b.ids.begin(), b.ids.end());
    return loadSpreadWarning(loadSpread(store, both, warmupS));
}

} // namespace

std::string formatReproduceCase(const ReproduceCase &rc, bool markdown)
{
    const ReferenceCase &c = *rc.reference;
    std::string out;
    if (markdown) {
        appendf(out, "### Case: %s\n\n%s\n\nBefore: `%s` (%s). After: `%s` (%s).\n\n",
                std::string(c.name).c_str(), std::string(c.title).c_str(),
                std::string(c.before).c_str(), rc.beforeLabel.c_str(), std::string(c.after).c_str(),
                rc.afterLabel.c_str());
        out += "| metric | seed | before | after | change (95 % CI) | verdict |\n";
        out += "|---|---|---:|---:|---:|---|\n";
    } else {
        appendf(out, "== %s: %s\n   before: %s, %s\n   after:  %s, %s\n\n",
                std::string(c.name).c_str(), std::string(c.title).c_str(),
                std::string(c.before).c_str(), rc.beforeLabel.c_str(), std::string(c.after).c_str(),
                rc.afterLabel.c_str());
        appendf(out, "   %-30s %10s %10s %22s  %s\n", "metric", "before", "after",
                "change (95 % CI)", "verdict");
    }
    for (const auto &r : rc.rows) {
        const CaseMetric &m = *r.metric;
        const std::string name =
            std::string(m.name) + " (" + std::string(m.unit) + ")" + (m.mechanism ? " *" : "");
        std::string change = "-";
        if (r.a.n && r.b.n) {
            change.clear();
            const double pctCi = r.a.mean != 0 ? r.diff.ciHalf / std::fabs(r.a.mean) * 100 : 0;
            if (r.diff.ciHalf > 0)
                appendf(change, "%+.1f %% ±%.1f", r.diff.pct, pctCi);
            else
                appendf(change, "%+.1f %%", r.diff.pct);
        }
        std::string seed(m.seedText);
        if (m.seedDirection != 0 && m.seedPct != 0) appendf(seed, " (%+.0f %%)", m.seedPct);
        if (markdown)
            appendf(out, "| %s | %s | %s | %s | %s | %s |\n", name.c_str(), seed.c_str(),
                    tableNumber(r.a.mean).c_str(), tableNumber(r.b.mean).c_str(), change.c_str(),
                    r.verdict.c_str());
        else
            appendf(out, "   %-30s %10s %10s %22s  %s\n      seed: %s\n", name.c_str(),
                    tableNumber(r.a.mean).c_str(), tableNumber(r.b.mean).c_str(), change.c_str(),
                    r.verdict.c_str(), seed.c_str());
    }
    if (markdown)
        appendf(out, "\n\\* the mechanism's direct effect. %s\n\n", std::string(c.note).c_str());
    else
        appendf(out, "\n   * the mechanism's direct effect.\n   %s\n\n",
                wrapped(c.note, 90, "   ").c_str());
    if (!rc.loadWarning.empty())
        out += (markdown ? "**" + rc.loadWarning + "**\n\n"
                         : wrapped(rc.loadWarning, 90, "   ") + "\n\n");
    return out;
}

Result<std::vector<const ReferenceCase *>> casesFor(const std::string &which)
{
    std::vector<const ReferenceCase *> cases;
    if (which == "all") {
        for (const auto &c : referenceCases())
            cases.push_back(&c);
    } else if (const ReferenceCase *c = findReferenceCase(which)) {
        cases.push_back(c);
    } else if (which == "napi") {
        return Status::refused("napi runs on the kernel lab, as root, with its own table: "
                               "`ringlab-engine reproduce napi`, or a job {\"kind\": "
                               "\"reproduce\", \"case\": \"napi\"}");
    } else {
        return Status::refused("unknown case \"" + which + "\" (allowed: " + referenceCaseNames() +
                               ", all)");
    }
    return cases;
}

std::string reproduceHeader(const ReproduceOptions &o, bool markdown)
{
    const HostInfo host = currentHost();
    std::string out;
    if (markdown)
        appendf(out,
                "Measured by `ringlab-engine reproduce %s --repeat %d --duration %.1fs` "
                "(ringlab %s, %s) on %s, %d cores, %s; %s.\n\n",
                o.which.c_str(), o.repeat, static_cast<double>(o.durationNs) / 1e9, RINGLAB_VERSION,
                RINGLAB_GIT_REVISION, host.cpuModel.c_str(), host.cores, host.kernel.c_str(),
                isoTimeNow().substr(0, 10).c_str());
    else
        appendf(out,
                "ringlab %s (%s) on %s, %d cores, %s\n"
                "each case: %s, %d %s of %.1f s each (the first %.1f s left out); intervals "
                "are 95 %%, %s\n\n",
                RINGLAB_VERSION, RINGLAB_GIT_REVISION, host.cpuModel.c_str(), host.cores,
                host.kernel.c_str(),
                o.which == "napi" ? "every case at a rate in turn, then the next rate"
                                  : "before and after interleaved",
                o.repeat, o.repeat == 1 ? "run" : "repeats",
                static_cast<double>(o.durationNs) / 1e9, o.warmupS,
                o.repeat >= 3   ? "over the repeats"
                : o.repeat == 2 ? "none (2 repeats give no interval)"
                                : "over 0.5 s batches of the run (noise within a run, not between "
                                  "runs)");
    return out;
}

Outcome runReproduce(const ReproduceOptions &o, int sigFd, std::string &error)
{
    const Say say = [&](const std::string &msg) {
        if (o.progress) o.progress(msg);
    };
    if (!o.devices) {
        error = "reproduce: no device provider (a program's mistake)";
        return Outcome::Failed;
    }
    const auto chosen = casesFor(o.which);
    if (!chosen.ok()) {
        error = chosen.error();
        return Outcome::Refused;
    }
    const auto &cases = chosen.value();
    // Every profile first: a bad one stops the command before anything runs.
    std::vector<std::pair<Side, Side>> sides;
    for (const auto *c : cases) {
        Side a, b;
        if (!loadSide(*c, c->before, a, error) || !loadSide(*c, c->after, b, error))
            return Outcome::Refused;
        sides.emplace_back(std::move(a), std::move(b));
    }
    const std::filesystem::path path =
        o.db.empty() ? SessionStore::defaultPath() : std::filesystem::path(o.db);
    SessionStore store(path);

    const std::string stamp = isoTimeNow();
    const std::string device = o.device.empty() ? "sim" : o.device;
    const int runs = static_cast<int>(cases.size()) * 2 * o.repeat;
    int done = 0;
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const ReferenceCase &c = *cases[k];
        auto &[a, b] = sides[k];
        a.group = "reproduce " + std::string(c.name) + " " + stamp + " before";
        b.group = "reproduce " + std::string(c.name) + " " + stamp + " after";
        if (const Outcome end =
                runCaseSides(o, sigFd, store, c, a, b, device, runs, done, say, error);
            end != Outcome::Done)
            return end;
        auto sideA = loadCompareSide(store, std::to_string(a.firstId), o.warmupS);
        auto sideB =
            sideA.ok() ? loadCompareSide(store, std::to_string(b.firstId), o.warmupS) : sideA;
        if (!sideB.ok()) {
            error = std::string(c.name) + ": " + sideB.error();
            return Outcome::Failed;
        }
        const CompareSide sa = std::move(sideA).value(), sb = std::move(sideB).value();
        ReproduceCase rc{&c, sa.label, sb.label, {}, {}};
        compareCaseMetrics(c, sa, sb, rc);
        rc.loadWarning = sidesLoadWarning(store, a, b, o.warmupS);
        if (!rc.loadWarning.empty()) say(std::string(c.name) + ": " + rc.loadWarning);
        recordComparison(store, rc, a, b);
        if (o.onCase) o.onCase(rc);
    }
    return Outcome::Done;
}

} // namespace ringlab
