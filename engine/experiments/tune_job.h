// SPDX-License-Identifier: GPL-2.0-or-later
// A tune, the engine's job (engine/experiments/job_queue.h) and the core of `ringlab-engine
// tune`: the tuner (engine/tune/tuner.h) on recorded runs. Each setting it tries
// is a group of sessions "tune ID candidate K"; the answer is printed with its interval, the
// probability that its constraints hold and the trail, and can be saved as a profile.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/common/status.h"
#include "engine/experiments/job_progress.h"
#include "engine/profile/run_defaults.h"
#include "engine/run/device_provider.h"
#include "engine/tune/tuner.h"

namespace ringlab {

struct TuneOptions {
    // Makes the runs' devices (the program's provider, drivers/registry_devices.h); required.
    const DeviceProvider *devices = nullptr;
    std::string profile = "default";
    Assignments sets;
    std::string objective; // --minimize or --maximize
    bool maximize = false;
    std::vector<std::string> constraints, over, ties;
    int budget = 40;
    std::int64_t durationNs = 5'000'000'000;
    double warmupS = kWarmupS;
    std::string device, traffic, db;
    std::string saveProfile; // a path: the answer as a profile
    std::function<void(const std::string &)> progress;
    // Before each run: its number (1-based) and the budget.
    std::function<void(int run, int runs)> onStep;
    ProgressFn onProgress; // the same, typed: counts and the time left
    std::function<void(std::int64_t session)> onSessionStarted; // each run's, once recorded
    std::function<bool()> cancelled;
};

// `report` receives what the command prints: the answer (or why there is none) and the trail.
// An Outcome and a message rather than a Status: a tune that is Done may still say something
// (a run failed after the answer was found), which an ok Status cannot carry.
// Done when it has an answer or every run was made without one (result.found says which),
// also when a run failed or a signal came after an answer was found (`error` says so);
// Failed or Interrupted when that happened before any answer.
Outcome runTune(const TuneOptions &o, int sigFd, TuneResult &result, std::string &report,
                std::string &error);
// Everything runTune checks before its first run (the objective, constraints, tunables,
// ties, budget, profile): a job's parameters are refused with it at submission.
[[nodiscard]] Status checkTune(const TuneOptions &o);
// The answer as a profile file: the base profile's values, --set, and the tuned ones.
Status saveTunedProfile(const TuneOptions &o, const TuneResult &r);

} // namespace ringlab
