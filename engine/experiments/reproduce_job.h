// SPDX-License-Identifier: GPL-2.0-or-later
// A reproduction, the engine's job (engine/experiments/job_queue.h) and the core of
// `ringlab-engine reproduce CASE|all`: each reference case's before and after profiles run
// interleaved as two groups of repeats, then the seed's figures beside the measured ones with
// 95 % intervals and a verdict per metric.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/common/status.h"
#include "engine/experiments/job_progress.h"
#include "engine/metrics/statistics.h"
#include "engine/profile/reference_cases.h"
#include "engine/profile/run_defaults.h"
#include "engine/run/device_provider.h"

namespace ringlab {

struct ReproduceOptions {
    // Makes the runs' devices (the program's provider, drivers/registry_devices.h); required.
    const DeviceProvider *devices = nullptr;
    std::string which = "all"; // a case name or all
    int repeat = 3;
    std::int64_t durationNs = 5'000'000'000;
    double warmupS = kWarmupS;
    std::string db; // empty: the default database
    bool markdown = false;
    std::string device;  // --device; empty: the profiles' own
    std::string traffic; // --traffic (lab)
    // Where progress goes ("stmmac: stmmac-rearm-1ms, run 1 of 3 (1/6)") and each case's
    // result as soon as it is complete; `cancelled` is asked while a run waits.
    std::function<void(const std::string &)> progress;
    // Before each run: its number (1-based) and how many the cases take.
    std::function<void(int run, int runs)> onStep;
    ProgressFn onProgress; // the same, typed: counts and the time left
    std::function<void(const struct ReproduceCase &)> onCase;
    std::function<void(std::int64_t session)> onSessionStarted; // each run's, when recorded
    std::function<bool()> cancelled;
};

struct ReproduceRow {
    const CaseMetric *metric = nullptr;
    Estimate a, b;
    Difference diff;
    std::string verdict;
};

struct ReproduceCase {
    const ReferenceCase *reference = nullptr;
    std::string beforeLabel, afterLabel; // "group of 3 repeats (sessions 1 4 5)"
    std::vector<ReproduceRow> rows;
    std::string loadWarning; // the machine's load differed between its runs (run_load.h)
};

// Runs the cases, recording every run; a signal on `sigFd` (-1: none) or `cancelled`
// interrupts it. `error` says why it ended early. Throws DbError if the database cannot
// be opened.
Outcome runReproduce(const ReproduceOptions &o, int sigFd, std::string &error);
// What `reproduce` prints first: the version, the machine and how the runs are made.
std::string reproduceHeader(const ReproduceOptions &o, bool markdown);
// One case's table: plain text for a terminal, or Markdown (docs/experiments.md).
std::string formatReproduceCase(const ReproduceCase &c, bool markdown);

// The cases `which` names (a case or all); refused for an unknown name.
Result<std::vector<const ReferenceCase *>> casesFor(const std::string &which);

} // namespace ringlab
