// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine reproduce CASE|all`: each reference case's before and after profiles run
// interleaved as two groups of repeats, then the seed's figures beside the measured ones with
// 95 % intervals and a verdict per metric.
#pragma once

#include "app/cli_options.h"
#include "engine/experiments/reproduce_job.h"

namespace ringlab {

// The command: 0; 1 when a run failed or was interrupted; 2 for bad input.
int reproduceCommand(const ReproduceOptions &o);

// `reproduce`: its options, and the reproduction when given.
Subcommand addReproduceCommand(CLI::App &app);

} // namespace ringlab
