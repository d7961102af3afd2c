// SPDX-License-Identifier: GPL-2.0-or-later
// Fields of a reply or line from an engine, read by type: empty or 0 when a field is
// missing or of another type. The engine is another program, maybe of another version,
// and nothing it sends may throw into Qt.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ringlab::ui::json_fields {

inline std::string text(const nlohmann::json &j, const char *key)
{
    if (!j.is_object()) return {};
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline std::int64_t number(const nlohmann::json &j, const char *key)
{
    if (!j.is_object()) return 0;
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

inline double real(const nlohmann::json &j, const char *key)
{
    if (!j.is_object()) return 0;
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

} // namespace ringlab::ui::json_fields
