// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine sessions list|show|export|delete`.
#pragma once

#include <cstdint>
#include <string>

namespace ringlab {

struct SessionsOptions {
    std::string db; // empty: the default database
    std::int64_t id = 0;
    std::string format = "csv";
    std::string output; // empty: standard output
    double warmupS = 1.0;
};

int sessionsList(const SessionsOptions &o);
int sessionsShow(const SessionsOptions &o);
int sessionsExport(const SessionsOptions &o);
int sessionsDelete(const SessionsOptions &o);

} // namespace ringlab
