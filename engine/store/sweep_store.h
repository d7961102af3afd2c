// SPDX-License-Identifier: GPL-2.0-or-later
// Sweeps in the session database. A sweep is not a table of its own: each run is a session
// whose run group is "sweep ID point K" (the repeats of a point are a group, as for `run
// --repeat`), and each holds a `sweep` event with the sweep's description and its points.
// So a sweep travels with its sessions through import and export, and a sweep killed midway
// is resumed from the sessions it completed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/metrics/statistics.h"
#include "engine/profile/sweep_spec.h"
#include "engine/store/session_store.h"

namespace ringlab {

inline constexpr const char *kSweepEventKind = "sweep";

struct SweepRun {
    int point = 0, repeat = 0;
    std::int64_t session = 0;
    std::string status;
};

struct SweepRecord {
    std::string id;
    std::string createdAt; // the first session's
    SweepSpec spec;
    std::vector<SweepPoint> points;
    std::vector<SweepRun> runs; // every session recorded for it, in id order

    int plannedRuns() const { return static_cast<int>(points.size()) * spec.repeat; }
    int completedRuns() const;
    bool completed(int point, int repeat) const;
};

std::string sweepGroup(const std::string &id, int point);
// The event every session of a sweep holds (its message is JSON).
Event sweepEvent(const std::string &id, const SweepSpec &spec,
                 const std::vector<SweepPoint> &points, int point);
// A new id, "YYYYMMDD-HHMMSS" from the clock (with "-2", "-3"... if taken).
std::string newSweepId(SessionStore &store);

// Every sweep in the database, oldest first.
std::vector<SweepRecord> listSweeps(SessionStore &store);
// One sweep by id; false with a message naming the id and the database.
Result<SweepRecord> loadSweep(SessionStore &store, const std::string &id);

// What a point measured: per metric label, its estimate over the point's completed runs
// (repeats: one mean per run; one run: batch means of its samples).
struct PointResult {
    SweepPoint point;
    std::vector<std::int64_t> sessions; // completed
    std::map<std::string, Estimate> metrics;
    std::map<std::string, std::string> units;
};
std::vector<PointResult> sweepResults(SessionStore &store, const SweepRecord &sweep);

// A metric name as users write it: flattened labels (latency_p99_us, cpu_ms_per_s[poll]),
// with dots accepted for underscores (latency.p99_us, engine.cpu_ms_per_s).
std::string metricLabel(const std::string &userName);

} // namespace ringlab
