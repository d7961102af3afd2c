// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/reproduce_command.h"

#include <poll.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "app/stop_signals.h"
#include "drivers/registry.h"
#include "engine/clock.h"
#include "engine/engine.h"
#include "engine/host_info.h"
#include "engine/profile.h"
#include "engine/recorder.h"
#include "engine/reference_cases.h"
#include "engine/session_compare.h"
#include "engine/session_store.h"
#include "engine/version.h"

namespace ringlab {
namespace {

struct Side {
    std::string profileName;
    ParamSet params;
    std::string group;
    std::int64_t firstId = 0;
};

enum class RunEnd { Completed, Failed, Interrupted };

// One recorded run of `side`, for the given duration; a signal on `sigFd` interrupts it.
RunEnd recordRun(const ReproduceOptions &o, SessionStore &store, Side &side, int index,
                 const std::string &deviceSpec, int sigFd)
{
    DeviceOptions dev;
    dev.spec = deviceSpec;
    dev.traffic = o.traffic;
    dev.trafficBoundS = static_cast<int>(o.durationNs / 1'000'000'000) + 1;
    std::unique_ptr<Engine> engine;
    try {
        engine = std::make_unique<Engine>(side.params, deviceFactory(dev), EngineOptions{});
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ringlab-engine: reproduce: device %s: %s\n", dev.spec.c_str(),
                     e.what());
        return RunEnd::Failed;
    }
    if (auto st = engine->checkDevice(); !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: reproduce: %s\n", st.error.c_str());
        return RunEnd::Failed;
    }
    SessionInfo info;
    info.name = side.profileName + " #" + std::to_string(index);
    info.device = engine->deviceInfo().name;
    info.profile = side.profileName;
    info.intervalS = 0.1;
    info.runGroup = side.group;
    info.repeatIndex = index;
    const std::int64_t id = store.createSession(info, side.params);
    if (!side.firstId) side.firstId = id;
    auto recorder = std::make_shared<Recorder>(store.file(), id);
    engine->subscribe(recorder);
    try {
        engine->start();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ringlab-engine: reproduce: cannot start %s: %s\n",
                     side.profileName.c_str(), e.what());
        recorder->finish("failed");
        store.deleteSession(id);
        return RunEnd::Failed;
    }
    const std::int64_t deadline = nowNs() + o.durationNs;
    bool interrupted = false;
    for (std::int64_t left; (left = deadline - nowNs()) > 0;) {
        pollfd fd{sigFd, POLLIN, 0};
        if (::poll(&fd, 1, static_cast<int>((left + 999'999) / 1'000'000)) > 0) {
            interrupted = true;
            break;
        }
    }
    engine->stop();
    engine.reset();
    recorder->finish(interrupted ? "interrupted" : "completed");
    if (recorder->samplesLost() > 0) {
        std::fprintf(stderr, "ringlab-engine: reproduce: session %lld lost %llu samples (%s)\n",
                     static_cast<long long>(id),
                     static_cast<unsigned long long>(recorder->samplesLost()),
                     recorder->lastError().c_str());
        return RunEnd::Failed;
    }
    return interrupted ? RunEnd::Interrupted : RunEnd::Completed;
}

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

struct Row {
    const CaseMetric *metric;
    Estimate a, b;
    Difference diff;
    std::string verdict;
};

std::string verdictOf(const CaseMetric &m, const Estimate &a, const Estimate &b,
                      const Difference &d)
{
    if (a.batches < 3 || b.batches < 3) return "no interval: needs 3 or more repeats";
    if (!d.significant) return "not resolvable at this noise";
    const int dir = d.diff > 0 ? +1 : -1;
    if (m.seedDirection == 0) return dir > 0 ? "rises (no seed figure)" : "falls (no seed figure)";
    return dir == m.seedDirection ? "reproduced" : "not reproduced: opposite direction";
}

std::string fmt(double v)
{
    char buf[32];
    if (!std::isfinite(v)) return "-";
    const double a = std::fabs(v);
    std::snprintf(buf, sizeof buf,
                  a >= 100  ? "%.0f"
                  : a >= 10 ? "%.1f"
                  : a >= 1  ? "%.2f"
                            : "%.3f",
                  v);
    return buf;
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

void printCase(const ReproduceOptions &o, const ReferenceCase &c, const std::vector<Row> &rows,
               const std::string &aLabel, const std::string &bLabel)
{
    if (o.markdown) {
        std::printf("### %s\n\n%s\n\nBefore: `%s` (%s). After: `%s` (%s).\n\n",
                    std::string(c.name).c_str(), std::string(c.title).c_str(),
                    std::string(c.before).c_str(), aLabel.c_str(), std::string(c.after).c_str(),
                    bLabel.c_str());
        std::printf("| metric | seed | before | after | change (95 %% CI) | verdict |\n");
        std::printf("|---|---|---:|---:|---:|---|\n");
    } else {
        std::printf("== %s: %s\n   before: %s, %s\n   after:  %s, %s\n\n",
                    std::string(c.name).c_str(), std::string(c.title).c_str(),
                    std::string(c.before).c_str(), aLabel.c_str(), std::string(c.after).c_str(),
                    bLabel.c_str());
        std::printf("   %-30s %10s %10s %22s  %s\n", "metric", "before", "after",
                    "change (95 % CI)", "verdict");
    }
    for (const auto &r : rows) {
        const CaseMetric &m = *r.metric;
        const std::string name =
            std::string(m.name) + " (" + std::string(m.unit) + ")" + (m.mechanism ? " *" : "");
        std::string change = "-";
        if (r.a.n && r.b.n) {
            char buf[64];
            const double pctCi = r.a.mean != 0 ? r.diff.ciHalf / std::fabs(r.a.mean) * 100 : 0;
            if (r.diff.ciHalf > 0)
                std::snprintf(buf, sizeof buf, "%+.1f %% ±%.1f", r.diff.pct, pctCi);
            else
                std::snprintf(buf, sizeof buf, "%+.1f %%", r.diff.pct);
            change = buf;
        }
        std::string seed(m.seedText);
        if (m.seedDirection != 0 && m.seedPct != 0) {
            char buf[32];
            std::snprintf(buf, sizeof buf, " (%+.0f %%)", m.seedPct);
            seed += buf;
        }
        if (o.markdown)
            std::printf("| %s | %s | %s | %s | %s | %s |\n", name.c_str(), seed.c_str(),
                        fmt(r.a.mean).c_str(), fmt(r.b.mean).c_str(), change.c_str(),
                        r.verdict.c_str());
        else
            std::printf("   %-30s %10s %10s %22s  %s\n      seed: %s\n", name.c_str(),
                        fmt(r.a.mean).c_str(), fmt(r.b.mean).c_str(), change.c_str(),
                        r.verdict.c_str(), seed.c_str());
    }
    if (o.markdown)
        std::printf("\n\\* the mechanism's direct effect. %s\n\n", std::string(c.note).c_str());
    else
        std::printf("\n   * the mechanism's direct effect.\n   %s\n\n",
                    wrapped(c.note, 90, "   ").c_str());
}

bool loadSide(const ReferenceCase &c, std::string_view profile, Side &side)
{
    std::string error;
    Profile p;
    const auto file = findProfile(std::string(profile), error);
    if (file.empty() || !loadProfile(file, p, error)) {
        std::fprintf(stderr, "ringlab-engine: reproduce %s: %s\n", std::string(c.name).c_str(),
                     error.c_str());
        return false;
    }
    if (auto st = side.params.set(p.values); !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: reproduce %s: profile %s: %s\n",
                     std::string(c.name).c_str(), file.c_str(), st.error.c_str());
        return false;
    }
    side.profileName = p.name;
    return true;
}

} // namespace

int reproduceCommand(const ReproduceOptions &o)
{
    std::vector<const ReferenceCase *> cases;
    if (o.which == "all") {
        for (const auto &c : referenceCases())
            cases.push_back(&c);
    } else if (const ReferenceCase *c = findReferenceCase(o.which)) {
        cases.push_back(c);
    } else {
        std::fprintf(stderr, "ringlab-engine: reproduce: unknown case \"%s\" (allowed: %s, all)\n",
                     o.which.c_str(), referenceCaseNames().c_str());
        return 2;
    }
    if (o.repeat == 1)
        std::fprintf(stderr, "ringlab-engine: reproduce: with --repeat 1 the intervals show the "
                             "noise within one run, not between runs: use --repeat 3 or more "
                             "for a verdict that holds across runs\n");
    else if (o.repeat == 2)
        std::fprintf(stderr, "ringlab-engine: reproduce: --repeat 2 gives no interval (it needs "
                             "3 or more repeats): the verdicts will say so\n");
    // Every profile first: a bad one stops the command before anything runs.
    std::vector<std::pair<Side, Side>> sides;
    for (const auto *c : cases) {
        Side a, b;
        if (!loadSide(*c, c->before, a) || !loadSide(*c, c->after, b)) return 2;
        sides.emplace_back(std::move(a), std::move(b));
    }
    const std::filesystem::path path =
        o.db.empty() ? SessionStore::defaultPath() : std::filesystem::path(o.db);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path().empty() ? "." : path.parent_path(), ec);
    SessionStore store(path);

    // Signals are taken through a descriptor; engine threads inherit the blocked mask.
    const int sigFd = takeStopSignals();

    const HostInfo host = currentHost();
    const std::string stamp = isoTimeNow();
    if (o.markdown)
        std::printf("Measured by `ringlab-engine reproduce %s --repeat %d --duration %llds` "
                    "(ringlab %s, %s) on %s, %d cores, %s; %s.\n\n",
                    o.which.c_str(), o.repeat, static_cast<long long>(o.durationNs / 1'000'000'000),
                    RINGLAB_VERSION, RINGLAB_GIT_REVISION, host.cpuModel.c_str(), host.cores,
                    host.kernel.c_str(), stamp.substr(0, 10).c_str());
    else
        std::printf("ringlab %s (%s) on %s, %d cores, %s\n"
                    "each case: before and after interleaved, %d repeats of %.1f s each (the "
                    "first %.1f s left out); intervals are 95 %% over the repeats\n\n",
                    RINGLAB_VERSION, RINGLAB_GIT_REVISION, host.cpuModel.c_str(), host.cores,
                    host.kernel.c_str(), o.repeat, static_cast<double>(o.durationNs) / 1e9,
                    o.warmupS);
    std::fflush(stdout);

    int exitCode = 0;
    for (std::size_t k = 0; k < cases.size() && exitCode == 0; ++k) {
        const ReferenceCase &c = *cases[k];
        auto &[a, b] = sides[k];
        a.group = "reproduce " + std::string(c.name) + " " + stamp + " before";
        b.group = "reproduce " + std::string(c.name) + " " + stamp + " after";
        const std::string device = o.device.empty() ? "sim" : o.device;
        // ABBA order: a drift over the case's runs falls on both sides alike.
        for (int r = 1; r <= o.repeat && exitCode == 0; ++r) {
            Side *first = r % 2 ? &a : &b, *second = r % 2 ? &b : &a;
            for (Side *s : {first, second}) {
                std::fprintf(stderr, "ringlab-engine: reproduce %s: %s, run %d of %d\n",
                             std::string(c.name).c_str(), s->profileName.c_str(), r, o.repeat);
                const RunEnd end = recordRun(o, store, *s, r, device, sigFd);
                if (end == RunEnd::Interrupted)
                    std::fprintf(stderr,
                                 "ringlab-engine: reproduce: interrupted; the runs so "
                                 "far are in %s\n",
                                 store.file().c_str());
                if (end != RunEnd::Completed) {
                    exitCode = 1;
                    break;
                }
            }
        }
        if (exitCode) break;
        CompareSide sa, sb;
        std::string error;
        if (!loadCompareSide(store, std::to_string(a.firstId), o.warmupS, sa, error) ||
            !loadCompareSide(store, std::to_string(b.firstId), o.warmupS, sb, error)) {
            std::fprintf(stderr, "ringlab-engine: reproduce %s: %s\n", std::string(c.name).c_str(),
                         error.c_str());
            exitCode = 1;
            break;
        }
        std::vector<Row> rows;
        for (const auto &m : c.metrics) {
            Row row{&m, {}, {}, {}, {}};
            const auto va = caseValues(sa, m, false), vb = caseValues(sb, m, true);
            if (va.empty() || vb.empty()) {
                row.verdict = "not measured on this device";
            } else {
                row.a = estimate(va, sa.repeats ? 1 : kSamplesPerBatch);
                row.b = estimate(vb, sb.repeats ? 1 : kSamplesPerBatch);
                row.diff = compareEstimates(row.a, row.b);
                row.verdict = verdictOf(m, row.a, row.b, row.diff);
            }
            rows.push_back(row);
        }
        printCase(o, c, rows, sa.label, sb.label);
        std::fflush(stdout);
    }
    close(sigFd);
    return exitCode;
}

} // namespace ringlab
