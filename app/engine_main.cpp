// SPDX-License-Identifier: GPL-2.0-or-later
// ringlab-engine: the headless front end of the Ringlab engine. Each subcommand is one entry
// of the table below: the function that puts its options on the parser (in the file of its
// command) and returns what runs it.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "app/catalog_commands.h"
#include "app/manual_pages.h"
#include "app/reproduce_command.h"
#include "app/restore_command.h"
#include "app/rr_client_command.h"
#include "app/run_command.h"
#include "app/serve_command.h"
#include "app/session_commands.h"
#include "app/shell_completion.h"
#include "app/sweep_command.h"
#include "app/tune_command.h"
#include "engine/common/utf8_text.h"
#include "engine/git_revision.h"
#include "engine/version.h"

using namespace ringlab;

namespace {

// In the order --help lists them.
constexpr Subcommand (*kSubcommands[])(CLI::App &) = {
    addParamsCommand,    addMetricsCommand, addProfilesCommand, addDevicesCommand,
    addRunCommand,       addServeCommand,   addSessionsCommand, addCompareCommand,
    addReproduceCommand, addSweepCommand,   addTuneCommand,     addCompletionCommand,
    addManualCommand,    addRestoreCommand, addRrClientCommand,
};

// An unknown command gets its own message, not CLI11's "A subcommand is required".
bool knownCommand(const CLI::App &app, const char *word)
{
    std::string known;
    bool found = false;
    for (const auto *sub : app.get_subcommands({})) {
        known += (known.empty() ? "" : ", ") + sub->get_name();
        found |= sub->get_name() == word;
    }
    if (!found)
        std::fprintf(stderr, "ringlab-engine: unknown command \"%s\" (allowed: %s; see --help)\n",
                     utf8OrEscaped(word).c_str(), known.c_str());
    return found;
}

} // namespace

int main(int argc, char **argv)
{
    CLI::App app{"Ringlab engine: drive a NIC datapath, tune it live, measure what it costs",
                 "ringlab-engine"};
    app.set_version_flag("--version", std::string("ringlab-engine ") + RINGLAB_VERSION + " (" +
                                          RINGLAB_GIT_REVISION + ")");
    app.require_subcommand(1);
    std::vector<Subcommand> commands;
    for (const auto add : kSubcommands)
        commands.push_back(add(app));

    if (argc > 1 && argv[1][0] != '-' && !knownCommand(app, argv[1])) return 2;
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        // --help and --version end here with 0; every mistake in the command line with 2.
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    // Every subcommand's failure is a message and an exit code, never an abort: a database
    // damaged where SQLite only notices mid-query, for one, throws from deep inside.
    try {
        for (const auto &command : commands)
            if (command.cli->parsed()) {
                const std::string name = command.cli->get_name();
                // Every command that runs an engine may change host settings: what a killed
                // one left changed goes back first, so that it is never journalled as the
                // host's own.
                if (name == "run" || name == "serve" || name == "sweep" || name == "tune" ||
                    name == "reproduce")
                    restoreLeftovers();
                return command.run();
            }
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ringlab-engine: %s\n", e.what());
        return 1;
    }
}
