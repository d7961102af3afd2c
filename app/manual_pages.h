// SPDX-License-Identifier: GPL-2.0-or-later
// The two programs' manual pages: what each says beyond its options (what it is, the
// files it reads and writes, its environment and exit status). Printed by
// `ringlab-engine manual` and `ringlab --manual`; the build installs them as man1 pages.
#pragma once

#include <string>

#include "app/cli_model.h"
#include "app/cli_options.h"

namespace ringlab {

std::string engineManual(const CliCommand &cli);
std::string desktopManual(const CliCommand &cli);

// `manual`: prints ringlab-engine's manual page (roff) for the build; hidden from users.
Subcommand addManualCommand(CLI::App &app);

} // namespace ringlab
