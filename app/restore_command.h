// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine restore`: puts back the host settings of runs that died before they could
// (kill -9, a crash, a power cut of the process), from their journals
// (drivers/host/settings_journal.h). The engine does the same at the start of every run and
// serve; this is for a user who wants the host back without starting one.
#pragma once

#include "app/cli_options.h"

namespace ringlab {

// 0 nothing left changed; 1 a setting could not be put back (its journal is kept).
int restoreCommand(const std::string &journalDir);

Subcommand addRestoreCommand(CLI::App &app);

// At the start of a command that may change host settings (run, serve): what runs killed
// before they could restore left changed is put back first, and said on stderr.
void restoreLeftovers();

} // namespace ringlab
