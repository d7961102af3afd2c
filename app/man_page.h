// SPDX-License-Identifier: GPL-2.0-or-later
// A manual page in roff (man(7)) from a command line's description: the synopsis, every
// command with its options and arguments, and the sections a program adds (the tunables,
// files, exit status).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "app/cli_model.h"

namespace ringlab {

struct ManSection {
    std::string title;                                      // "TUNABLES"
    std::vector<std::string> paragraphs;                    // before the items
    std::vector<std::pair<std::string, std::string>> items; // term, its text
    std::vector<ManSection> subsections;                    // .SS, one level
};

struct ManPage {
    std::string program; // "ringlab-engine"
    std::string summary; // the NAME line's text
    std::string version; // "ringlab 0.1.0"
    std::string date;    // of the release, so that a rebuild gives the same page
    std::vector<std::string> description;
    CliCommand cli;
    std::vector<ManSection> sections; // after COMMANDS
};

std::string renderManPage(const ManPage &page);
// Text as roff reads it literally: backslashes, a leading dot or quote, hyphens as minus.
std::string roffText(const std::string &text);

// The tunables from the registry, a subsection per group: name, type, unit, what is allowed,
// the default, live or restart, and the help.
ManSection tunablesSection();

} // namespace ringlab
