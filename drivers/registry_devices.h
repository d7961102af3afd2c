// SPDX-License-Identifier: GPL-2.0-or-later
// The device registry as the engine's DeviceProvider: what each program (ringlab-engine,
// the desktop, the experiments, the tests) gives the run service and the API.
#pragma once

#include "engine/run/device_provider.h"

namespace ringlab {

// The registry's provider, one per process (it holds no state of its own).
const DeviceProvider &registryDevices();

} // namespace ringlab
