// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/cli_model.h"

#include <CLI/CLI.hpp>

namespace ringlab {

namespace {
constexpr int kMaxDepth = 3;

// CLI11's type name is the declared one followed by each check's description, joined by
// ':': "TEXT:{table,jsonl}", "TEXT:DURATION", "FILE". A set ("{a,b}") gives the choices; a
// check's capitalised name stands for free text's "TEXT".
void readTypeName(const std::string &full, CliOption &o)
{
    std::vector<std::string> parts;
    std::size_t from = 0;
    while (from <= full.size()) {
        // A set may hold ':' in no value of ours, but a brace keeps its colons anyway.
        std::size_t end = from;
        int depth = 0;
        while (end < full.size() && (depth > 0 || full[end] != ':')) {
            depth += full[end] == '{' ? 1 : full[end] == '}' ? -1 : 0;
            ++end;
        }
        parts.push_back(full.substr(from, end - from));
        from = end + 1;
    }
    for (std::size_t k = 0; k < parts.size(); ++k) {
        const std::string &p = parts[k];
        if (p.size() >= 2 && p.front() == '{' && p.back() == '}') {
            std::string item;
            for (std::size_t i = 1; i + 1 < p.size(); ++i) {
                if (p[i] == ',') {
                    o.choices.push_back(item);
                    item.clear();
                } else if (p[i] != ' ') {
                    item += p[i];
                }
            }
            if (!item.empty()) o.choices.push_back(item);
        } else if (k == 0) {
            o.value = p;
        } else if (o.value == "TEXT" && !p.empty() &&
                   p.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_=") == std::string::npos) {
            o.value = p;
        }
    }
    if (!o.choices.empty() && o.value == "TEXT") o.value = "WORD";
}

CliCommand describe(const CLI::App &app, int depth)
{
    CliCommand c;
    c.name = app.get_name();
    c.help = app.get_description();
    c.commandRequired = app.get_require_subcommand_min() > 0;
    for (const CLI::Option *opt : app.get_options()) {
        if (opt->get_group().empty()) continue;
        CliOption o;
        o.positional =
            opt->get_positional() && opt->get_lnames().empty() && opt->get_snames().empty();
        if (o.positional) {
            o.names.push_back(opt->get_name());
        } else {
            for (const auto &l : opt->get_lnames())
                o.names.push_back("--" + l);
            for (const auto &s : opt->get_snames())
                o.names.push_back("-" + s);
        }
        o.help = opt->get_description();
        o.required = opt->get_required();
        if (opt->get_type_size_max() > 0) readTypeName(opt->get_type_name(), o);
        o.defaultText = opt->get_default_str();
        c.options.push_back(std::move(o));
    }
    if (depth < kMaxDepth)
        for (const CLI::App *sub : app.get_subcommands({}))
            if (!sub->get_group().empty()) c.commands.push_back(describe(*sub, depth + 1));
    return c;
}
} // namespace

CliCommand describeCli(const CLI::App &app)
{
    return describe(app, 0);
}

} // namespace ringlab
