// SPDX-License-Identifier: GPL-2.0-or-later
// A command line as plain data: commands, their options and arguments, each with its help,
// value name and allowed values. Read off CLI11's own tree (the same text --help prints), so
// the man pages and the shell completion made from it never drift from the programs.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ringlab {

struct CliOption {
    std::vector<std::string> names; // "--profile", "-p"; an argument: its name ("id")
    std::string value;              // "PROFILE", "FILE", "DURATION"; empty for a flag
    std::string help;
    std::string defaultText;          // empty: none shown
    std::vector<std::string> choices; // the only values allowed, when a set is
    bool positional = false;
    bool required = false;
};

struct CliCommand {
    std::string name; // the program's name at the root
    std::string help;
    std::vector<CliOption> options; // options first, then arguments, as declared
    std::vector<CliCommand> commands;
    bool commandRequired = false; // one of `commands` must be given
};

// The value names that say what a value is, for completion and the man pages. An option
// declares one with ->type_name(); anything else is free text.
inline constexpr const char *kValueFile = "FILE";
inline constexpr const char *kValueProfile = "PROFILE";
inline constexpr const char *kValueDevice = "DEVICE";
inline constexpr const char *kValueAssignment = "NAME=VALUE"; // a tunable and its value
inline constexpr const char *kValueAxis = "NAME=VALUES";      // a tunable and values to sweep
inline constexpr const char *kValueTie = "NAME=EXPRESSION";   // a tunable computed from others
inline constexpr const char *kValueTunables = "NAMES";        // tunables, comma-separated
inline constexpr const char *kValueMetric = "METRIC";
inline constexpr const char *kValueCase = "CASE";

// Commands and options in a group named "" are hidden, as in --help. Nesting is followed to
// the depth the programs use (two levels below the root).
CliCommand describeCli(const CLI::App &app);

} // namespace ringlab
