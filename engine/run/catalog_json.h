// SPDX-License-Identifier: GPL-2.0-or-later
// What an engine offers, as JSON: its devices, its tunables (with the registry's text) and its
// profiles. One form for `ringlab-engine devices|params --json` and for the API (docs/api.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "engine/datapath/device.h"
#include "engine/datapath/tunables.h"
#include "engine/run/device_provider.h"

namespace ringlab {

// "ignored", "fixed", "unavailable" or "applies".
std::string_view supportName(Support s);

nlohmann::json devicesJson(const std::vector<DeviceListing> &devices);
// The inverse, for a client of another engine (GET /v1/devices): every row as devicesJson
// wrote it. A row or field that is not one is refused, naming its place and what is allowed;
// a tunable or support this build does not know is left out (a newer engine's).
Result<std::vector<DeviceListing>> devicesFromJson(const nlohmann::json &rows);
// Every tunable: type, unit, range or choices, live or restart, help; "default" is the value
// in `current`; "device" says what a device does with it when `support` names it.
nlohmann::json tunablesJson(const ParamSet &current,
                            const std::vector<TunableSupport> &support = {});
// name -> text of every value in `ps`.
nlohmann::json valuesJson(const ParamSet &ps);
// The profiles found (listProfiles()), each with its values; `problems` for those left out.
nlohmann::json profilesJson();

} // namespace ringlab
