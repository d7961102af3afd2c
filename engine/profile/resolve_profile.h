// SPDX-License-Identifier: GPL-2.0-or-later
// A profile resolved to the values a run starts from: found by name or path, loaded, its
// values over the defaults of the device that runs it, the overrides (--set, a sweep's base,
// a panel) on top, validated together. The one way from a profile to values: `run`, the
// API's start, sweeps, tunes, reproductions and the desktop all take it.
#pragma once

#include <functional>
#include <string>

#include "engine/common/status.h"
#include "engine/datapath/tunables.h"
#include "engine/profile/profile.h"

namespace ringlab {

struct ResolvedProfile {
    Profile profile;
    ParamSet params;
};

// A device's own defaults by its spec (the device registry's deviceDefaults), given by the
// caller: the profile layer knows no devices.
using DeviceDefaultsFn = std::function<Assignments(const std::string &spec)>;

// The registry's defaults, then `defaults(device)` (the device given, else the profile's;
// none without `defaults`), then the profile's values, then `overrides`, so that an ordered
// pair moves in one step. A profile written for a device whose own defaults differ from the
// given device's (the default profile is the simulated NIC's) keeps its values but for those
// the given device sets itself: the kernel lab's request rate, a real port's TX coalescing. The
// error names the profile's file or the override, the tunable, the value and what is allowed
// ("profile FILE: ...", "--set:
// ...").
[[nodiscard]] Status resolveProfile(const std::string &nameOrPath, const Assignments &overrides,
                                    ResolvedProfile &out, const std::string &device = {},
                                    const DeviceDefaultsFn &defaults = {});

} // namespace ringlab
