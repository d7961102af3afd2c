// SPDX-License-Identifier: GPL-2.0-or-later
// What every subcommand of ringlab-engine is made of: its options on CLI11's parser and what
// runs it once parsed, and the option checks several commands share (durations, session ids,
// --db, --set, --warmup against --duration).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/common/status.h"
#include "engine/datapath/tunables.h"

namespace ringlab {

// One subcommand: its node in the parser, and what runs it when it was given (an exit
// code: 0 done, 1 failed, 2 the command line or its input refused).
struct Subcommand {
    CLI::App *cli = nullptr;
    std::function<int()> run;
};

// A duration (10s, 500ms, 2m) of at least `minNs`; the message names the value and the forms.
CLI::Validator durationValidator(std::int64_t minNs);
// A session id: a positive integer that fits (a larger one must not saturate to another id).
CLI::Validator sessionIdValidator();
// --db FILE, the same words on every command that reads or records sessions.
CLI::Option *addDbOption(CLI::App *command, std::string &db);

// A checked duration's text in seconds.
double durationSeconds(const std::string &text);
// --set's NAME=VALUE texts; false, with a message on stderr naming `command`, for one that
// is not NAME=VALUE.
bool assignmentsFrom(const std::vector<std::string> &sets, Assignments &out, const char *command);
// Whether --warmup leaves some of --duration to measure; a message on stderr when not.
bool warmupFits(const std::string &warmup, const std::string &duration, const char *command);

// The exit status of a command that ended so (docs/cli.md, "Exit status"): 0 done, 2 refused
// (bad input: the user's to change), 1 failed or interrupted.
int exitCode(Outcome o);
inline int exitCode(const Status &st)
{
    return exitCode(st.outcome());
}

} // namespace ringlab
