// SPDX-License-Identifier: GPL-2.0-or-later
// A sweep, the engine's job (engine/experiments/job_queue.h) and the core of `ringlab-engine
// sweep`: one point per setting of the swept tunables, each run `repeat` times as a group of
// sessions in one sweep, with progress and the time left. Interrupted, it is resumed with
// its id, and the runs already measured are kept.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/common/status.h"
#include "engine/experiments/job_progress.h"
#include "engine/experiments/sweep_report.h"
#include "engine/profile/resolve_profile.h"
#include "engine/profile/sweep_spec.h"
#include "engine/run/device_provider.h"

namespace ringlab {

struct SweepOptions {
    // Makes the runs' devices (the program's provider, drivers/registry_devices.h); required.
    const DeviceProvider *devices = nullptr;
    SweepSpec spec;                   // a new sweep
    std::string resume;               // or: the id of one to continue
    std::string db;                   // empty: the default database
    std::vector<std::string> metrics; // the table's and the front's (default: engine CPU, p99, rx)
    SweepFormat format = SweepFormat::Table;
    // Where progress goes ("point 3 of 10 ..., run 1 of 3 (4/30), about 2 min left"); after
    // every run `onRun` gets the sweep as recorded so far; `cancelled` is asked while a run
    // waits; `onSessionStarted` gets each run's session as soon as it is recorded.
    std::function<void(const std::string &)> progress;
    // Before each run: its place among the sweep's planned runs (1-based), and how many.
    std::function<void(int run, int runs)> onStep;
    ProgressFn onProgress; // the same, typed: counts and the time left
    std::function<void(std::int64_t session)> onSessionStarted;
    std::function<void(const SweepRecord &)> onRun;
    std::function<bool()> cancelled;
};

// The values every point of a sweep starts from: its profile over the defaults of the runs'
// device (the one given, else the profile's, as for a run), the sweep's --set on top
// (resolveProfile).
[[nodiscard]] Status resolveSweepBase(const SweepSpec &spec, const DeviceProvider &devices,
                                      ResolvedProfile &out);

// Checks everything (profile, values, every point, metrics) before the first run. `id`
// receives the sweep's id as soon as it has one.
Status runSweep(const SweepOptions &o, int sigFd, std::string &id);

} // namespace ringlab
