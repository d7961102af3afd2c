// SPDX-License-Identifier: GPL-2.0-or-later
// Which process on this host wrote a row that says "running" (a session, a job), so that a
// reader can tell one still going from one whose process died: a pid alone is reused, so
// the process's start time and the boot are kept beside it.
#pragma once

#include <cstdint>
#include <string>

namespace ringlab {

// This boot's id (/proc/sys/kernel/random/boot_id).
std::string bootId();
// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot; 0 if gone.
std::int64_t processStart(std::int64_t pid);
// Whether the process (pid, its start, the boot it ran in) is gone.
bool processGone(std::int64_t pid, std::int64_t pidStart, const std::string &boot);

} // namespace ringlab
