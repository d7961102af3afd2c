// SPDX-License-Identifier: GPL-2.0-or-later
// JSON from outside (profiles, request and job bodies) parsed as nlohmann::json parses it,
// but an object that names a key twice is refused: nlohmann keeps the last value silently,
// so {"load.rate_pps": 1000, "load.rate_pps": 900000} would run at a rate its author may
// never have read.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ringlab {

// Parses `text` into `out`; false with `error` set when it is not JSON (the parser's
// message) or an object names a key twice ("the key \"params\".\"load.rate_pps\" is given
// twice"). Never throws.
bool parseStrictJson(std::string_view text, nlohmann::json &out, std::string &error);

} // namespace ringlab
