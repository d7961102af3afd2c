// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/console_commands.h"

#include <sstream>
#include <vector>

#include "app/params_printer.h"

namespace ringlab {

namespace {
const char *kHelp =
    "commands:\n"
    "  set NAME VALUE [NAME VALUE ...]  change tunables (several at once are checked together)\n"
    "  show all | threads | NAME | PREFIX  e.g. 'show refill', 'show poll.mode'\n"
    "  mark [LABEL]                      add a labelled event\n"
    "  help                              this text\n"
    "  quit                              stop the run and print the summary\n";
}

bool ConsoleCommands::execute(const std::string &line)
{
    if (runEnded()) return false;
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    if (words.empty() || words[0].starts_with("#")) return true;
    const std::string &cmd = words[0];
    if (cmd == "quit" || cmd == "exit" || cmd == "q") return false;
    if (cmd == "help" || cmd == "?") {
        std::fputs(kHelp, reply_);
    } else if (cmd == "set") {
        if (words.size() < 3 || words.size() % 2 == 0) {
            std::fprintf(reply_, "error: usage: set NAME VALUE [NAME VALUE ...]\n");
            return true;
        }
        Assignments a;
        for (std::size_t k = 1; k + 1 < words.size(); k += 2)
            a.emplace_back(words[k], words[k + 1]);
        const Status st = service_.apply(a, source_);
        if (!st.ok()) {
            std::fprintf(reply_, "error: %s\n", st.error.c_str());
            if (runEnded()) {
                std::fflush(reply_);
                return false;
            }
        } else {
            const ParamSet ps = service_.params();
            for (const auto &[name, v] : a) {
                const TunableInfo *t = findTunable(name);
                std::fprintf(reply_, "ok: %s = %s%s\n", name.c_str(), ps.text(t->id).c_str(),
                             t->apply == Apply::Restart ? " (datapath restarted)" : "");
            }
        }
    } else if (cmd == "show") {
        show(words.size() > 1 ? words[1] : "all");
    } else if (cmd == "mark") {
        std::string label = line.substr(line.find("mark") + 4);
        label.erase(0, label.find_first_not_of(" \t"));
        service_.mark(label);
        std::fprintf(reply_, "ok: marked\n");
    } else {
        std::fprintf(reply_, "error: unknown command \"%s\"\n%s", cmd.c_str(), kHelp);
    }
    std::fflush(reply_);
    return true;
}

void ConsoleCommands::show(const std::string &what)
{
    if (what == "threads") {
        printer_.printThreads(reply_);
        return;
    }
    const ParamSet ps = service_.params();
    int shown = 0;
    for (const auto &t : tunables()) {
        const bool match =
            what == "all" || t.name == what ||
            (t.name.starts_with(what) && t.name.size() > what.size() && t.name[what.size()] == '.');
        if (match) {
            std::fputs(paramValueLine(ps, t).c_str(), reply_);
            ++shown;
        }
    }
    if (!shown)
        std::fprintf(reply_, "error: no tunable or group \"%s\" (try 'show all')\n", what.c_str());
}

} // namespace ringlab
