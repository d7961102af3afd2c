// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine params`: every tunable from the registry, as text or JSON.
#pragma once

#include <ostream>

#include "engine/tunables.h"

namespace ringlab {

void printParamsText(std::ostream &out, const ParamSet &current);
void printParamsJson(std::ostream &out, const ParamSet &current);
// One line per tunable: "name = value  (unit, live)" for `show`.
std::string paramValueLine(const ParamSet &ps, const TunableInfo &t);

} // namespace ringlab
