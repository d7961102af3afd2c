// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine params`: every tunable from the registry, as text or JSON.
#pragma once

#include <ostream>

#include <vector>

#include "engine/datapath/device.h"
#include "engine/datapath/tunables.h"

namespace ringlab {

// `support`: what a device does differently with some tunables (empty: no device named).
void printParamsText(std::ostream &out, const ParamSet &current,
                     const std::vector<TunableSupport> &support = {});
void printParamsJson(std::ostream &out, const ParamSet &current,
                     const std::vector<TunableSupport> &support = {});
// One line per tunable: "name = value  (unit, live)" for `show`.
std::string paramValueLine(const ParamSet &ps, const TunableInfo &t);

} // namespace ringlab
