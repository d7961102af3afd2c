// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/man_page.h"

#include "engine/datapath/tunables.h"

namespace ringlab {

namespace {
std::string upper(std::string s)
{
    for (char &c : s)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return s;
}

// "\fB\-\-profile\fR, \fB\-p\fR \fIPROFILE\fR"
std::string optionTerm(const CliOption &o)
{
    std::string t;
    for (const auto &n : o.names)
        t += (t.empty() ? "" : ", ") + std::string(o.positional ? "\\fI" : "\\fB") +
             roffText(o.positional ? upper(n) : n) + "\\fR";
    if (!o.positional && !o.value.empty()) t += " \\fI" + roffText(o.value) + "\\fR";
    return t;
}

// Sentences: the help, then what is allowed, the default, whether it is required.
std::string optionText(const CliOption &o)
{
    std::string t = roffText(o.help);
    if (!t.empty() && t.back() != '.') t += '.';
    if (!o.choices.empty()) {
        std::string list;
        for (const auto &c : o.choices)
            list += (list.empty() ? "" : ", ") + c;
        t += " One of: " + roffText(list) + ".";
    }
    if (!o.defaultText.empty()) t += " Default: " + roffText(o.defaultText) + ".";
    if (o.required && o.positional) t += " Required.";
    return t;
}

void items(std::string &out, const std::vector<std::pair<std::string, std::string>> &list)
{
    for (const auto &[term, text] : list)
        out += ".TP\n" + term + "\n" + text + "\n";
}

void paragraphs(std::string &out, const std::vector<std::string> &list)
{
    for (std::size_t k = 0; k < list.size(); ++k)
        out += (k ? ".PP\n" : "") + roffText(list[k]) + "\n";
}

// A command and the ones below it: "sessions export" as one subsection.
void commandSection(std::string &out, const std::string &program, const CliCommand &c,
                    const std::string &path)
{
    const std::string name = path.empty() ? c.name : path + " " + c.name;
    std::string args;
    for (const auto &o : c.options)
        if (o.positional)
            args += " " + std::string(o.required ? "" : "[") + "\\fI" +
                    roffText(upper(o.names[0])) + "\\fR" + (o.required ? "" : "]");
    out += ".SS \"" + roffText(name) + "\"\n";
    out += "\\fB" + roffText(program + " " + name) + "\\fR" +
           (c.commands.empty() ? "" : " \\fICOMMAND\\fR") + " [\\fIOPTIONS\\fR]" + args +
           "\n.br\n" + roffText(c.help) + "\n";
    std::vector<std::pair<std::string, std::string>> list;
    for (const auto &o : c.options)
        if (o.names.front() != "--help" && o.names.front() != "-h")
            list.emplace_back(optionTerm(o), optionText(o));
    items(out, list);
    for (const auto &sub : c.commands)
        commandSection(out, program, sub, name);
}

void section(std::string &out, const ManSection &s, bool sub)
{
    out += (sub ? ".SS \"" : ".SH \"") + roffText(s.title) + "\"\n";
    paragraphs(out, s.paragraphs);
    items(out, s.items);
    for (const auto &ss : s.subsections)
        section(out, ss, true);
}
} // namespace

std::string roffText(const std::string &text)
{
    std::string out;
    out.reserve(text.size() + 8);
    bool lineStart = true;
    for (char c : text) {
        if (lineStart && (c == '.' || c == '\'')) out += "\\&";
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
        lineStart = c == '\n';
    }
    return out;
}

std::string renderManPage(const ManPage &page)
{
    std::string out = ".\\\" Generated from the program's own command line and registry; do not "
                      "edit.\n";
    out += ".TH \"" + upper(page.program) + "\" 1 \"" + page.date + "\" \"" +
           roffText(page.version) + "\" \"User Commands\"\n";
    out += ".SH NAME\n" + roffText(page.program) + " \\- " + roffText(page.summary) + "\n";
    out += ".SH SYNOPSIS\n\\fB" + roffText(page.program) + "\\fR" +
           (page.cli.commands.empty()  ? ""
            : page.cli.commandRequired ? " \\fICOMMAND\\fR"
                                       : " [\\fICOMMAND\\fR]") +
           " [\\fIOPTIONS\\fR]\n";
    out += ".SH DESCRIPTION\n";
    paragraphs(out, page.description);

    std::vector<std::pair<std::string, std::string>> global;
    for (const auto &o : page.cli.options)
        global.emplace_back(optionTerm(o), optionText(o));
    if (!global.empty()) {
        out += ".SH OPTIONS\n";
        items(out, global);
    }
    if (!page.cli.commands.empty()) {
        out += ".SH COMMANDS\n";
        for (const auto &c : page.cli.commands)
            commandSection(out, page.program, c, "");
    }
    for (const auto &s : page.sections)
        section(out, s, false);
    return out;
}

ManSection tunablesSection()
{
    ManSection s;
    s.title = "TUNABLES";
    s.paragraphs = {"Every knob of the engine, from its registry: set with --set NAME=VALUE, in "
                    "a profile's \"params\", or live on a running engine (those marked live). "
                    "\"ringlab-engine params\" prints the same with the current values."};
    const ParamSet defaults;
    ManSection *group = nullptr;
    for (const auto &t : tunables()) {
        if (!group || group->title != t.group) {
            s.subsections.push_back({std::string(t.group), {}, {}, {}});
            group = &s.subsections.back();
        }
        std::string facts = std::string(typeName(t.type));
        if (!t.unit.empty()) facts += ", " + std::string(t.unit);
        facts += t.apply == Apply::Live ? ", live" : ", at restart";
        facts += "; allowed: " + allowedText(t) +
                 "; default: " + ParamSet::format(t, defaults.value(t.id)) + ".";
        group->items.emplace_back("\\fB" + roffText(std::string(t.name)) + "\\fR",
                                  roffText(facts) + "\n.br\n" + roffText(helpText(t)));
    }
    return s;
}

} // namespace ringlab
