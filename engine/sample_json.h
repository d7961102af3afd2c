// SPDX-License-Identifier: GPL-2.0-or-later
// The JSON form of samples and events (the JSON-lines schema in docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/sample.h"

namespace ringlab {

nlohmann::json toJson(const Sample &s);
nlohmann::json toJson(const Event &e);
// Stage span names, in order: harvest, handoff, process, tx_post, tx_wire.
const char *stageSpanName(std::size_t k);

} // namespace ringlab
