// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/api_fields.h"

#include <charconv>

#include "engine/profile/strict_json.h"

namespace ringlab {

using nlohmann::json;

Status parseObject(const std::string &body, json &out)
{
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) {
        out = json::object();
        return {};
    }
    if (std::string why; !parseStrictJson(body, out, why))
        return Status{"the request body is not JSON: " + why};
    if (!out.is_object())
        return Status{"the request body must be a JSON object, not " +
                      std::string(out.type_name())};
    return {};
}

Status onlyFields(const json &body, std::initializer_list<std::string_view> allowed,
                  std::string_view what)
{
    for (const auto &[key, v] : body.items()) {
        bool ok = false;
        std::string list;
        for (std::string_view a : allowed) {
            ok = ok || key == a;
            list += (list.empty() ? "" : ", ") + std::string(a);
        }
        if (!ok)
            return Status{std::string(what) + ": unknown field \"" + key +
                          "\" (allowed: " + (list.empty() ? "none" : list) + ")"};
    }
    return {};
}

namespace {
// A value as it came, short: `5 (a number)`, `[1,2] (an array)`.
std::string given(const json &v)
{
    std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 40) text = text.substr(0, 40) + "...";
    const std::string type = v.type_name();
    const bool vowel = type.find_first_of("aeiou") == 0;
    return text + " (" + (vowel ? "an " : "a ") + type + ")";
}
} // namespace

Status boolField(const json &body, const char *name, bool &out)
{
    if (!body.contains(name)) return {};
    if (!body[name].is_boolean())
        return Status{std::string("field \"") + name + "\" must be true or false, not " +
                      given(body[name])};
    out = body[name].get<bool>();
    return {};
}

Status stringField(const json &body, const char *name, std::string &out)
{
    if (!body.contains(name)) return {};
    if (!body[name].is_string())
        return Status{std::string("field \"") + name + "\" must be a string, not " +
                      given(body[name])};
    out = body[name].get<std::string>();
    return {};
}

Status assignmentsField(const json &body, Assignments &out)
{
    out.clear();
    if (!body.contains("set")) return {};
    const json &set = body["set"];
    if (!set.is_object())
        return Status{std::string("field \"set\" must be an object of tunable names and values, "
                                  "e.g. {\"poll.mode\": \"busy\"}, not ") +
                      set.type_name()};
    for (const auto &[name, v] : set.items()) {
        if (v.is_string())
            out.emplace_back(name, v.get<std::string>());
        else if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float())
            out.emplace_back(name, v.dump());
        else
            return Status{"set \"" + name + "\": a value is a string or a number, not " +
                          v.type_name()};
    }
    return {};
}

Status clientProfileName(const std::string &name)
{
    const bool jsonFile = name.size() >= 5 && name.compare(name.size() - 5, 5, ".json") == 0;
    if (name.empty() || name.find('/') != std::string::npos ||
        name.find("..") != std::string::npos || jsonFile)
        return Status{"profile \"" + name +
                      "\": give a profile's name (GET /v1/profiles lists them); paths are not "
                      "taken over the API"};
    return {};
}

bool idPath(const std::string &path, std::string_view prefix, std::string_view tail,
            std::string &id, bool &withTail)
{
    if (!path.starts_with(prefix)) return false;
    id = path.substr(prefix.size());
    withTail = id.size() > tail.size() && id.ends_with(tail);
    if (withTail) id.resize(id.size() - tail.size());
    return !id.empty() && id.find('/') == std::string::npos;
}

bool positiveId(const std::string &text, std::int64_t &id)
{
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    return ec == std::errc() && ptr == text.data() + text.size() && id > 0;
}

bool changeSource(const std::string &s)
{
    if (s.empty() || s.size() > 16) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

std::string queryValue(const std::multimap<std::string, std::string> &query, const std::string &key,
                       const std::string &fallback)
{
    const auto it = query.find(key);
    return it == query.end() ? fallback : it->second;
}

int httpStatus(const Status &st)
{
    switch (st.outcome()) {
    case Outcome::Done:
        return 200;
    case Outcome::Refused:
        return 422;
    case Outcome::Interrupted:
        return 503;
    case Outcome::Failed:
        break;
    }
    return 500;
}

std::string safeDump(const json &j)
{
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace ringlab
