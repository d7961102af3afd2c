// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/params_printer.h"

#include "engine/run/catalog_json.h"

#include <iomanip>
#include <sstream>

namespace ringlab {

namespace {
std::string wrap(std::string_view text, std::size_t width, const std::string &indent)
{
    std::string out, line;
    std::istringstream words{std::string(text)};
    std::string w;
    while (words >> w) {
        if (!line.empty() && line.size() + 1 + w.size() > width) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
    }
    if (!line.empty()) out += indent + line + "\n";
    return out;
}
const TunableSupport *findSupport(const std::vector<TunableSupport> &support, TunableId id)
{
    for (const auto &s : support)
        if (s.id == id) return &s;
    return nullptr;
}
} // namespace

void printParamsText(std::ostream &out, const ParamSet &current,
                     const std::vector<TunableSupport> &support)
{
    std::string_view group;
    for (const auto &t : tunables()) {
        if (t.group != group) {
            group = t.group;
            out << (&t == &tunables().front() ? "" : "\n") << "== " << group << " ==\n";
        }
        out << std::left << std::setw(20) << t.name << " " << std::setw(8) << typeName(t.type)
            << " " << std::setw(8) << (t.apply == Apply::Live ? "live" : "restart") << " default "
            << ParamSet::format(t, current.value(t.id)) << "; allowed: " << allowedText(t) << "\n";
        out << wrap(helpText(t), 76, "    ");
        if (const auto *sup = findSupport(support, t.id))
            out << wrap(std::string("** ") + std::string(supportName(sup->support)) +
                            " on this device: " + sup->reason,
                        76, "    ");
    }
}

void printParamsJson(std::ostream &out, const ParamSet &current,
                     const std::vector<TunableSupport> &support)
{
    out << tunablesJson(current, support).dump(2) << "\n";
}

std::string paramValueLine(const ParamSet &ps, const TunableInfo &t)
{
    std::ostringstream out;
    out << std::left << std::setw(20) << t.name << " = " << std::setw(18) << ps.text(t.id) << " ("
        << (t.unit.empty() ? std::string(typeName(t.type)) : std::string(t.unit)) << ", "
        << (t.apply == Apply::Live ? "live" : "restart") << ")\n";
    return out.str();
}

} // namespace ringlab
