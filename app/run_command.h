// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine run`: a profile plus overrides on a device, samples printed as they come,
// live changes from standard input, and a summary at the end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/cli_options.h"
#include "app/sample_printer.h"
#include "engine/profile/run_defaults.h"

namespace ringlab {

struct RunOptions {
    std::string profile = "default";
    std::vector<std::string> sets; // "name=value"
    std::int64_t durationNs = -1;  // < 0: until quit, end of input or a signal
    std::int64_t intervalNs = kSampleIntervalNs;
    double warmupS = kWarmupS;
    OutputFormat output = OutputFormat::Table;
    std::string name; // session name; default: the profile's
    std::string db;   // empty: the default database
    bool record = true;
    int repeat = 1;            // > 1: that many sessions in one group (needs a duration)
    std::string device;        // --device; empty: the profile's (sim unless it names another)
    std::string eal;           // --eal
    std::string traffic;       // --traffic (lab)
    std::string metricsListen; // --metrics-listen HOST:PORT (loopback); empty: none
};

// Returns the process exit code: 0, 1 (failure while running) or 2 (bad input).
int runCommand(const RunOptions &opts);

// `run`: its options, and the run when it was given.
Subcommand addRunCommand(CLI::App &app);

} // namespace ringlab
