// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/environment_json.h"

#include "engine/common/utf8_text.h"
#include "engine/store/session_report.h"

namespace ringlab {

nlohmann::json environmentJson(const Environment &env)
{
    using nlohmann::json;
    json facts = json::array();
    for (const auto &f : env.facts) {
        const FactSpec *spec = findFactSpec(f.key);
        json j = {{"key", utf8OrEscaped(f.key)},
                  {"label", utf8OrEscaped(factLabel(f.key))},
                  {"rank", std::string(spec ? rankName(spec->rank) : "record")}};
        if (f.present())
            j["value"] = utf8OrEscaped(f.value);
        else
            j["absent"] = utf8OrEscaped(f.absent);
        facts.push_back(std::move(j));
    }
    return {{"recorded", env.recorded()}, {"facts", facts}};
}

void environmentCsv(const Environment &env, std::ostream &out)
{
    out << "key,label,rank,value,absent\n";
    for (const auto &f : env.facts) {
        const FactSpec *spec = findFactSpec(f.key);
        out << csvCell(f.key) << ',' << csvCell(factLabel(f.key)) << ','
            << (spec ? rankName(spec->rank) : "record") << ','
            << csvCell(f.present() ? f.value : std::string()) << ',' << csvCell(f.absent) << '\n';
    }
}

} // namespace ringlab
