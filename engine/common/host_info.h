// SPDX-License-Identifier: GPL-2.0-or-later
// The machine a session ran on, so a result can be traced and repeated.
#pragma once

#include <string>

namespace ringlab {

struct HostInfo {
    std::string hostname;
    std::string cpuModel;
    int cores = 0;
    std::string kernel;
};

HostInfo currentHost();
// Now in UTC, ISO 8601 with milliseconds: 2026-11-29T21:37:05.123Z
std::string isoTimeNow();

} // namespace ringlab
