// SPDX-License-Identifier: GPL-2.0-or-later
// A request's body and query read field by field, and a reply's text: what every endpoint of
// the engine's API (engine/run/run_api.h, the jobs') reads and writes the same way. Each
// reader returns a Status that names the field, what it was and what is allowed; an absent
// field leaves `out` as it is (its default).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engine/common/status.h"
#include "engine/datapath/tunables.h"

namespace ringlab {

// The body as a JSON object (an empty body is an empty object).
Status parseObject(const std::string &body, nlohmann::json &out);
// Refuses a field `what` does not take (a typo must not pass for a default): "start: unknown
// field \"profil\" (allowed: profile, set, ...)".
Status onlyFields(const nlohmann::json &body, std::initializer_list<std::string_view> allowed,
                  std::string_view what);
Status boolField(const nlohmann::json &body, const char *name, bool &out);
Status stringField(const nlohmann::json &body, const char *name, std::string &out);
// {"NAME": VALUE, ...} under "set", string or number values, as assignments in their order.
Status assignmentsField(const nlohmann::json &body, Assignments &out);
// A profile named by a client in another process: a name (GET /v1/profiles), never a path.
Status clientProfileName(const std::string &name);
// A path PREFIX + ID, or PREFIX + ID + TAIL ("/v1/sessions/12/export"): the ID's text and
// whether the tail was there. False when it is neither (no ID, or more after it): a 404.
bool idPath(const std::string &path, std::string_view prefix, std::string_view tail,
            std::string &id, bool &withTail);
// A positive integer, whole (a session's id in a path).
bool positiveId(const std::string &text, std::int64_t &id);
// Who made a change, as recorded with its event: a short word (gui, script, api).
bool changeSource(const std::string &s);
std::string queryValue(const std::multimap<std::string, std::string> &query, const std::string &key,
                       const std::string &fallback);

// The HTTP status of an engine's refusal or failure (docs/api.md): a request it understood
// but cannot do as given is 422, one it failed under is 500, one stopped by a shutdown 503.
// (Malformed requests are 400 and missing things 404 where they are read.)
int httpStatus(const Status &st);
// Text from clients and the system may not be UTF-8: replaced, never thrown on.
std::string safeDump(const nlohmann::json &j);

} // namespace ringlab
