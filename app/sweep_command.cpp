// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/sweep_command.h"
#include "app/cli_model.h"
#include "drivers/registry_devices.h"
#include "engine/common/duration.h"
#include <memory>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/stop_signals.h"
#include "engine/store/session_store.h"

namespace ringlab {

int sweepCommand(const SweepOptions &opts)
{
    SweepOptions o = opts;
    o.devices = &registryDevices();
    o.progress = [](const std::string &msg) {
        std::fprintf(stderr, "ringlab-engine: %s\n", msg.c_str());
    };
    const int sigFd = takeStopSignals();
    std::string id;
    const Status ended = runSweep(o, sigFd, id);
    close(sigFd);
    if (ended.outcome() == Outcome::Refused) {
        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", ended.error.c_str());
        return exitCode(Outcome::Refused);
    }
    if (!id.empty()) {
        // The table of what was measured, also after an interruption.
        SessionStore store(SessionStore::pathOr(o.db), Db::Mode::ReadOnly);
        const auto sweep = loadSweep(store, id);
        const auto labels =
            sweepMetricLabels(o.metrics.empty() ? defaultSweepMetrics() : o.metrics, true);
        if (sweep.ok() && labels.ok())
            std::fputs(formatSweep(sweep.value(), sweepTable(store, sweep.value(), labels.value()),
                                   o.format)
                           .c_str(),
                       stdout);
    }
    if (!ended.ok()) std::fprintf(stderr, "ringlab-engine: sweep: %s\n", ended.error.c_str());
    return exitCode(ended.outcome());
}

int sweepListCommand(const std::string &db)
{
    SessionStore store(SessionStore::pathOr(db));
    const auto sweeps = listSweeps(store);
    if (sweeps.empty()) {
        std::printf("no sweeps in %s\n", store.file().c_str());
        return 0;
    }
    std::printf("%-18s %-20s %-24s %7s %9s  %s\n", "sweep", "started", "profile", "points", "runs",
                "varies");
    for (const auto &s : sweeps) {
        std::string varies;
        for (const auto &a : s.spec.axes)
            varies += (varies.empty() ? "" : ", ") + a.tunable;
        for (const auto &t : s.spec.ties)
            varies += ", " + t.tunable + "=" + t.expression;
        const std::string runs =
            std::to_string(s.completedRuns()) + "/" + std::to_string(s.plannedRuns());
        std::printf("%-18s %-20s %-24s %7zu %9s  %s\n", s.id.c_str(),
                    s.createdAt.substr(0, 19).c_str(), s.spec.profile.c_str(), s.points.size(),
                    runs.c_str(), varies.c_str());
    }
    return 0;
}

int sweepShowCommand(const std::string &db, const std::string &id,
                     const std::vector<std::string> &metrics, SweepFormat format)
{
    const auto labels = sweepMetricLabels(metrics.empty() ? defaultSweepMetrics() : metrics, true);
    if (!labels.ok()) {
        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", labels.error().c_str());
        return exitCode(labels.status().outcome());
    }
    SessionStore store(SessionStore::pathOr(db));
    const auto sweep = loadSweep(store, id);
    if (!sweep.ok()) {
        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", sweep.error().c_str());
        return exitCode(sweep.status().outcome());
    }
    std::fputs(formatSweep(sweep.value(), sweepTable(store, sweep.value(), labels.value()), format)
                   .c_str(),
               stdout);
    return 0;
}

namespace {

struct SweepWords {
    SweepOptions o;
    std::string duration = "5s", warmup = "1s", format = "table", show;
    std::vector<std::string> vary, grid, ties, sets;
    bool list = false;
};

// The sweep the words describe, checked before anything runs; 2 with a message when not.
int sweepFromWords(SweepWords &w)
{
    SweepOptions &sw = w.o;
    const SweepFormat fmt = w.format == "csv"    ? SweepFormat::Csv
                            : w.format == "json" ? SweepFormat::Json
                                                 : SweepFormat::Table;
    if (w.list) return sweepListCommand(sw.db);
    if (!w.show.empty()) return sweepShowCommand(sw.db, w.show, sw.metrics, fmt);
    sw.format = fmt;
    if (!assignmentsFrom(w.sets, sw.spec.sets, "sweep") ||
        !warmupFits(w.warmup, w.duration, "sweep"))
        return 2;
    sw.spec.durationNs = *parseDurationNs(w.duration);
    sw.spec.warmupS = durationSeconds(w.warmup);
    const auto refused = [](const Status &st) {
        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", st.error.c_str());
        return 2;
    };
    for (const auto &[texts, grid] : {std::pair{&w.vary, false}, std::pair{&w.grid, true}})
        for (const auto &text : *texts) {
            SweepAxis axis;
            const Status st = grid ? parseGridAxis(text, axis) : parseVaryAxis(text, axis);
            if (!st.ok()) return refused(st);
            sw.spec.axes.push_back(axis);
        }
    for (const auto &text : w.ties) {
        SweepTie tie;
        if (auto st = parseTie(text, tie); !st.ok()) return refused(st);
        sw.spec.ties.push_back(tie);
    }
    if (auto st = orderTies(sw.spec.ties); !st.ok()) return refused(st);
    if (sw.resume.empty() && sw.spec.axes.empty())
        return refused(Status{"nothing to sweep: give --vary or --grid (or --resume ID, --list, "
                              "--show ID)"});
    return sweepCommand(sw);
}

} // namespace

Subcommand addSweepCommand(CLI::App &app)
{
    auto w = std::make_shared<SweepWords>();
    SweepOptions &sw = w->o;
    auto *sweep = app.add_subcommand(
        "sweep", "Run one point per setting of the swept tunables (lists, ranges, grids, ties), "
                 "each repeated; print every point with 95 % intervals and the Pareto front");
    sweep->add_option("--profile,-p", sw.spec.profile, "Profile every point starts from")
        ->type_name(kValueProfile)
        ->capture_default_str();
    sweep->add_option("--set,-s", w->sets, "Override a tunable for every point: NAME=VALUE")
        ->type_name(kValueAssignment);
    sweep->add_option("--vary", w->vary, "NAME=V1,V2,...: one axis, these values (repeatable)")
        ->type_name(kValueAxis);
    sweep
        ->add_option("--grid", w->grid,
                     "NAME=LO..HI[:lin|:log][:N] or NAME=V1,V2,...: one axis (repeatable; the "
                     "axes are crossed)")
        ->type_name(kValueAxis);
    sweep
        ->add_option("--tie", w->ties,
                     "NAME=EXPRESSION computed at every point, e.g. "
                     "poll.sleep_max_us=2*poll.sleep_min_us (repeatable)")
        ->type_name(kValueTie);
    sweep->add_option("--repeat,-r", sw.spec.repeat, "Runs per point")->check(CLI::Range(1, 100));
    sweep->add_option("--duration,-d", w->duration, "Length of each run")
        ->check(durationValidator(500'000'000));
    sweep->add_option("--warmup", w->warmup, "Left out at the start of each run")
        ->check(durationValidator(0));
    sweep
        ->add_option("--device", sw.spec.device,
                     "The runs' device, as for run (default: the profile's)")
        ->type_name(kValueDevice);
    sweep->add_option("--traffic", sw.spec.traffic, "With --device lab: a real client");
    sweep
        ->add_option("--metric,-m", sw.metrics,
                     "A metric of the table and the front (repeatable; default "
                     "engine_cpu_ms_per_s, latency_p99_us, rx_pps)")
        ->type_name(kValueMetric);
    sweep->add_option("--format,-f", w->format, "How the result is printed")
        ->check(CLI::IsMember({"table", "csv", "json"}))
        ->capture_default_str();
    sweep->add_option("--resume", sw.resume, "Continue an interrupted sweep by its id");
    sweep->add_flag("--list", w->list, "List the sweeps in the database");
    sweep->add_option("--show", w->show, "Print a recorded sweep's table (no run)");
    addDbOption(sweep, sw.db);
    return {sweep, [w] { return sweepFromWords(*w); }};
}

} // namespace ringlab
