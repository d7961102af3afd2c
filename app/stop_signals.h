// SPDX-License-Identifier: GPL-2.0-or-later
// SIGINT, SIGTERM and SIGHUP taken through a descriptor instead of handlers: blocked in this
// thread (engine threads started afterwards inherit the mask) and read with poll().
#pragma once

namespace ringlab {

// Blocks the stop signals and returns a signalfd for them (-1 on failure).
int takeStopSignals();

} // namespace ringlab
