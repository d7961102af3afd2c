// SPDX-License-Identifier: GPL-2.0-or-later
// One recorded run of a fixed length: the engine on a device with given values, a session
// in a group of repeats, stopped by time, a signal or a cancel. What `reproduce`, `sweep`
// and `tune` (engine/experiments) are made of.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/common/status.h"
#include "engine/run/run_service.h"

namespace ringlab {

struct RecordedRun {
    RunSetup setup; // an empty device spec: the provider's default (the simulated NIC)
    std::int64_t durationNs = 5'000'000'000;
    // Told the new session's id as soon as it is recorded (a session list can show it).
    std::function<void(std::int64_t session)> started;
};

// Records the run in `store`, its device made by `devices`; a signal on `sigFd` (-1: none) or
// `cancelled` interrupts it. `say` gets what went wrong. `session` receives the new session's id (0
// if none was made).
Outcome recordRun(const RecordedRun &run, const DeviceProvider &devices, SessionStore &store,
                  int sigFd, const std::function<bool()> &cancelled,
                  const std::function<void(const std::string &)> &say, std::int64_t &session);

} // namespace ringlab
