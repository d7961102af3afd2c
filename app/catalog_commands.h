// SPDX-License-Identifier: GPL-2.0-or-later
// What the engine offers, as commands: `params` (every tunable, and what a device does with
// each), `metrics` (every figure it records), `profiles` and `devices`.
#pragma once

#include "app/cli_options.h"

namespace ringlab {

Subcommand addParamsCommand(CLI::App &app);
Subcommand addMetricsCommand(CLI::App &app);
Subcommand addProfilesCommand(CLI::App &app);
Subcommand addDevicesCommand(CLI::App &app);

} // namespace ringlab
