// SPDX-License-Identifier: GPL-2.0-or-later
// The directory `ringlab-engine serve` makes its Unix socket in, checked as OpenSSH checks
// its files and systemd its runtime directories: whoever may write in it may replace the
// socket with their own, so it must be this user's and writable by nobody else.
#pragma once

#include <string>

#include "engine/common/status.h"

namespace ringlab {

struct SocketDirOptions {
    std::string group;          // the socket's group ("ringlab"); empty: none
    bool groupRequired = false; // --socket-group given: a group that cannot be set refuses
};

// Makes `dir` (one level: its parent must exist) mode 0700, or 0750 and of the group when the
// group exists; a directory that exists must be a directory (not a symbolic link), owned by
// this user and not writable by group or others, and each directory above it writable only
// by its owner (root or this user) unless sticky, as /tmp is. A directory of ours that the
// group cannot traverse is given to the group and made 0750. The error names the directory,
// what is wrong and what to do; `notes` hears of what a user should know (a group that
// cannot reach the socket).
[[nodiscard]] Status prepareSocketDir(const std::string &dir, const SocketDirOptions &o,
                                      std::string &notes);

} // namespace ringlab
