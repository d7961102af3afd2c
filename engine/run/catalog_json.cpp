// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/catalog_json.h"

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
