// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/sweep_command.h"

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
    o.progress = [](const std::string &msg) {
        std::fprintf(stderr, "ringlab-engine: %s\n", msg.c_str());
    };
    const int sigFd = takeStopSignals();
    std::string id, error;
    const SweepEnd end = runSweep(o, sigFd, id, error);
    close(sigFd);
    if (end == SweepEnd::BadInput) {
        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", error.c_str());
        return 2;
    }
    if (!id.empty()) {
        // The table of what was measured, also after an interruption.
        SessionStore store(SessionStore::pathOr(o.db), Db::Mode::ReadOnly);
        SweepRecord sweep;
        std::vector<std::string> labels;
        std::string e2;
        if (loadSweep(store, id, sweep, e2) &&
            sweepMetricLabels(o.metrics.empty() ? defaultSweepMetrics() : o.metrics, true, labels,
                              e2))
            std::fputs(formatSweep(sweep, sweepTable(store, sweep, labels), o.format).c_str(),
                       stdout);
    }
    if (end != SweepEnd::Completed) {
        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", error.c_str());
        return 1;
    }
    return 0;
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
    std::vector<std::string> labels;
    std::string error;
    if (!sweepMetricLabels(metrics.empty() ? defaultSweepMetrics() : metrics, true, labels,
                           error)) {
        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", error.c_str());
        return 2;
    }
    SessionStore store(SessionStore::pathOr(db));
    SweepRecord sweep;
    if (!loadSweep(store, id, sweep, error)) {
        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", error.c_str());
        return 2;
    }
    std::fputs(formatSweep(sweep, sweepTable(store, sweep, labels), format).c_str(), stdout);
    return 0;
}

} // namespace ringlab
