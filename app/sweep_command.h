// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine sweep` (its core: engine/experiments/sweep_job.h): one point per setting of the
// swept tunables, each run `repeat` times as a group of sessions in one sweep, with progress and
// the time left; a table of every point with 95 % intervals and the Pareto front. Interrupted, it
// is resumed with
// --resume ID, and the runs already measured are kept.
#pragma once

#include <string>
#include <vector>

#include "app/cli_options.h"
#include "engine/experiments/sweep_job.h"

namespace ringlab {

// The commands: 0; 1 when a run failed or was interrupted; 2 for bad input.
int sweepCommand(const SweepOptions &o);
int sweepListCommand(const std::string &db);
int sweepShowCommand(const std::string &db, const std::string &id,
                     const std::vector<std::string> &metrics, SweepFormat format);

// `sweep`: its options, and the sweep (or --list, --show) when given.
Subcommand addSweepCommand(CLI::App &app);

} // namespace ringlab
