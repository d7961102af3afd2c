// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine completion bash`: a bash completion script made from the command line's
// description and the registries (tunables and their values, metrics, reference cases,
// devices). Profile names are asked of the program at completion time, so a profile the
// user adds completes too.
#pragma once

#include <string>
#include <vector>

#include "app/cli_model.h"
#include "app/cli_options.h"

namespace ringlab {

// The shells a script is made for.
const std::vector<std::string> &completionShells();
// The script for `shell` (one of completionShells()); completes `cli.name`.
std::string completionScript(const CliCommand &cli, const std::string &shell);

// `completion SHELL`: prints the script for the command line `app` holds once parsed.
Subcommand addCompletionCommand(CLI::App &app);

} // namespace ringlab
