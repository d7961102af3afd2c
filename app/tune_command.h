// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine tune` (its core: engine/experiments/tune_job.h): the tuner on recorded runs. Each
// setting it tries is a group of sessions "tune ID candidate K"; the answer is printed with its
// interval, the probability that its constraints hold and the trail, and can be saved as a profile.
#pragma once

#include "app/cli_options.h"
#include "engine/experiments/tune_job.h"

namespace ringlab {

// 0 found; 1 not found, interrupted, or a run failed before an answer; 2 bad input.
int tuneCommand(const TuneOptions &o);

// `tune`: its options, and the tune when given.
Subcommand addTuneCommand(CLI::App &app);

} // namespace ringlab
