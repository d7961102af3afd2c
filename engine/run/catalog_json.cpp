// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/catalog_json.h"

#include <optional>

#include "engine/profile/profile.h"

namespace ringlab {

using nlohmann::json;

std::string_view supportName(Support s)
{
    switch (s) {
    case Support::Applies:
        return "applies";
    case Support::Ignored:
        return "ignored";
    case Support::Fixed:
        return "fixed";
    case Support::Unavailable:
        return "unavailable";
    }
    return "?";
}

json devicesJson(const std::vector<DeviceListing> &devices)
{
    json arr = json::array();
    for (const auto &d : devices) {
        json sup = json::array();
        for (const auto &s : d.support)
            sup.push_back({{"tunable", info(s.id).name},
                           {"support", supportName(s.support)},
                           {"reason", s.reason}});
        arr.push_back({{"spec", d.spec},
                       {"kind", d.kind},
                       {"driver", d.driver},
                       {"description", d.description},
                       {"link", d.link},
                       {"rx_interrupts", d.rxInterrupts},
                       {"available", d.available},
                       {"unavailable_why", d.unavailableWhy},
                       {"support", sup}});
    }
    return arr;
}

Result<std::vector<DeviceListing>> devicesFromJson(const json &rows)
{
    if (!rows.is_array())
        return Status::refused(std::string("devices: expected an array, not ") + rows.type_name());
    std::vector<DeviceListing> out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const json &r = rows[i];
        const std::string at = "devices[" + std::to_string(i) + "]";
        if (!r.is_object()) return Status::refused(at + ": expected an object");
        DeviceListing d;
        const std::pair<const char *, std::string *> texts[] = {
            {"spec", &d.spec},     {"kind", &d.kind},
            {"driver", &d.driver}, {"description", &d.description},
            {"link", &d.link},     {"unavailable_why", &d.unavailableWhy}};
        for (const auto &[name, into] : texts) {
            const auto it = r.find(name);
            if (it == r.end()) continue;
            if (!it->is_string())
                return Status::refused(at + "." + name + ": expected a string, not " +
                                       it->type_name());
            *into = it->get<std::string>();
        }
        if (d.spec.empty()) return Status::refused(at + ".spec: missing or empty");
        const std::pair<const char *, bool *> flags[] = {{"rx_interrupts", &d.rxInterrupts},
                                                         {"available", &d.available}};
        for (const auto &[name, into] : flags) {
            const auto it = r.find(name);
            if (it == r.end()) continue;
            if (!it->is_boolean())
                return Status::refused(at + "." + name + ": expected true or false");
            *into = it->get<bool>();
        }
        if (const auto sup = r.find("support"); sup != r.end()) {
            if (!sup->is_array()) return Status::refused(at + ".support: expected an array");
            for (const json &s : *sup) {
                if (!s.is_object() || !s.value("tunable", json()).is_string() ||
                    !s.value("support", json()).is_string())
                    return Status::refused(at + ".support: each row has a \"tunable\" and a "
                                                "\"support\" (strings)");
                const TunableInfo *t = findTunable(s["tunable"].get<std::string>());
                const std::string name = s["support"].get<std::string>();
                std::optional<Support> level;
                for (Support k :
                     {Support::Applies, Support::Ignored, Support::Fixed, Support::Unavailable})
                    if (supportName(k) == name) level = k;
                if (!t || !level) continue; // a newer engine's
                const json reason = s.value("reason", json(""));
                d.support.push_back(
                    {t->id, *level,
                     reason.is_string() ? reason.get<std::string>() : std::string()});
            }
        }
        out.push_back(std::move(d));
    }
    return out;
}

json tunablesJson(const ParamSet &current, const std::vector<TunableSupport> &support)
{
    json arr = json::array();
    for (const auto &t : tunables()) {
        json j = {{"name", t.name},
                  {"group", t.group},
                  {"type", typeName(t.type)},
                  {"unit", t.unit},
                  {"apply", t.apply == Apply::Live ? "live" : "restart"},
                  {"default", ParamSet::format(t, current.value(t.id))},
                  {"allowed", allowedText(t)},
                  {"help", helpText(t)}};
        if (t.type == Type::Integer || t.type == Type::Real) {
            j["min"] = t.min;
            j["max"] = t.max;
        }
        if (t.type == Type::Choice) {
            json c = json::array();
            for (auto ch : t.choices)
                c.push_back(ch);
            j["choices"] = c;
        }
        if (t.power_of_two) j["power_of_two"] = true;
        if (!t.minWord.empty()) j["min_word"] = t.minWord;
        for (const auto &s : support)
            if (s.id == t.id)
                j["device"] = {{"support", supportName(s.support)}, {"reason", s.reason}};
        arr.push_back(j);
    }
    return arr;
}

json valuesJson(const ParamSet &ps)
{
    json values = json::object();
    for (const auto &t : tunables())
        values[std::string(t.name)] = ps.text(t.id);
    return values;
}

json profilesJson()
{
    std::vector<std::string> problems;
    json arr = json::array();
    for (const auto &p : listProfiles(&problems)) {
        json values = json::object();
        for (const auto &[k, v] : p.values)
            values[k] = v;
        arr.push_back({{"name", p.name},
                       {"description", p.description},
                       {"device", p.device},
                       {"file", p.file.string()},
                       {"values", values}});
    }
    return {{"profiles", arr}, {"problems", problems}};
}

} // namespace ringlab
