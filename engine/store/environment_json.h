// SPDX-License-Identifier: GPL-2.0-or-later
// A session's environment as JSON and CSV, for the JSON export, the API's session resource
// and `sessions export --format env-csv`: {"recorded": bool, "facts": [{key, label, rank,
// value | absent}]}, the labels and ranks from environment_facts.h.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "engine/common/environment_facts.h"

namespace ringlab {

nlohmann::json environmentJson(const Environment &env);
// One row per fact: key,label,rank,value,absent (a header only when not recorded).
void environmentCsv(const Environment &env, std::ostream &out);

} // namespace ringlab
