// SPDX-License-Identifier: GPL-2.0-or-later
// The JSON form of samples and events (the JSON-lines schema in docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/common/status.h"
#include "engine/datapath/sample.h"

namespace ringlab {

nlohmann::json toJson(const Sample &s);
nlohmann::json toJson(const Event &e);
// The reverse, for a sample or event line that came from another process (an engine's
// stream): refused, saying what is wrong, when the line lacks a field or has one of the wrong
// type. What the line does not carry stays empty: latency buckets, device metrics' units.
Result<Sample> sampleFromJson(const nlohmann::json &j);
Result<Event> eventFromJson(const nlohmann::json &j);
// Stage span names, in order: harvest, handoff, process, tx_post, tx_wire.
const char *stageSpanName(std::size_t k);

} // namespace ringlab
