// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine serve`: the engine as a service the desktop app and scripts attach to
// (docs/api.md), until SIGINT or SIGTERM. A run still going then is stopped and its session
// completed.
#pragma once

#include <string>
#include <vector>

#include "app/cli_options.h"
namespace ringlab {

struct ServeOptions {
    std::string listen; // empty: the default Unix socket
    std::string tokenFile;
    bool metricsPublic = false;
    std::string tlsCert, tlsKey;
    std::string db;
    bool record = true;
    std::string eal;
    std::string socketGroup = "ringlab";
    bool socketGroupGiven = false;  // --socket-group given: a group that cannot be set refuses
    std::vector<std::string> allow; // --allow: grants for devices that need privilege
};

int serveCommand(const ServeOptions &o);

// `serve`: its options, and the engine served when it was given.
Subcommand addServeCommand(CLI::App &app);

} // namespace ringlab
