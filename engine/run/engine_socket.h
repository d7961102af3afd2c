// SPDX-License-Identifier: GPL-2.0-or-later
// Where a served engine listens on this machine: for `serve` (app/serve_command.cpp) to bind
// and for the desktop (ui/connect_dialog.cpp) to find.
#pragma once

#include <string>

namespace ringlab {

// The socket of the engine service (packaging/ringlab-engine.service listens there).
inline constexpr const char *kServiceSocketPath = "/run/ringlab/engine.sock";
// Where `serve` listens when not told: kServiceSocketPath as root, else
// $XDG_RUNTIME_DIR/ringlab/engine.sock (or /tmp/ringlab-UID/engine.sock).
std::string defaultSocketPath();
// An engine on this machine, for the desktop to offer: the service's socket, else this
// user's own `serve`'s, whichever exists; empty when neither does.
std::string localEngineSocket();

} // namespace ringlab
