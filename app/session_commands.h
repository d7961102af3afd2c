// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine sessions list|show|export|delete`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/cli_options.h"
#include "engine/profile/run_defaults.h"

namespace ringlab {

struct SessionsOptions {
    std::string db; // empty: the default database
    std::int64_t id = 0;
    std::string format = "csv";
    std::string output; // empty: standard output
    bool force = false; // export: replace an existing SQLite file
    double warmupS = kWarmupS;
    std::string other;                // import
    std::string a, b;                 // compare: ID or ID:SEG
    std::vector<std::string> metrics; // compare: empty = the default set
};

int sessionsList(const SessionsOptions &o);
int sessionsShow(const SessionsOptions &o);
int sessionsExport(const SessionsOptions &o);
int sessionsDelete(const SessionsOptions &o);
int sessionsImport(const SessionsOptions &o);
int compareCommand(const SessionsOptions &o);

// `sessions` (list, show, export, delete, import) and `compare`: their options, and the
// command when given.
Subcommand addSessionsCommand(CLI::App &app);
Subcommand addCompareCommand(CLI::App &app);

} // namespace ringlab
