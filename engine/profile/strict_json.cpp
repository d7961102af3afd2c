// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/profile/strict_json.h"

#include <set>
#include <vector>

namespace ringlab {

bool parseStrictJson(std::string_view text, nlohmann::json &out, std::string &error)
{
    using Event = nlohmann::json::parse_event_t;
    // The keys seen in each object being read, outermost first, and the key that leads to it.
    std::vector<std::set<std::string>> seen;
    std::vector<std::string> path;
    std::string pendingKey, duplicate;
    const auto onEvent = [&](int, Event event, nlohmann::json &parsed) {
        switch (event) {
        case Event::object_start:
            seen.emplace_back();
            path.push_back(pendingKey);
            break;
        case Event::object_end:
            if (!seen.empty()) seen.pop_back();
            if (!path.empty()) path.pop_back();
            break;
        case Event::key:
            pendingKey = parsed.is_string() ? parsed.get<std::string>() : std::string();
            if (!seen.empty() && !seen.back().insert(pendingKey).second && duplicate.empty()) {
                for (std::size_t k = 1; k < path.size(); ++k)
                    duplicate += "\"" + path[k] + "\".";
                duplicate += "\"" + pendingKey + "\"";
            }
            break;
        case Event::array_start:
            pendingKey.clear();
            break;
        default:
            break;
        }
        return true;
    };
    try {
        out = nlohmann::json::parse(text.begin(), text.end(), onEvent);
    } catch (const nlohmann::json::exception &e) { // syntax, numbers out of range (1e400)
        error = e.what();
        return false;
    }
    if (!duplicate.empty()) {
        error = "the key " + duplicate + " is given twice (each key once)";
        return false;
    }
    return true;
}

} // namespace ringlab
