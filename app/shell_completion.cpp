// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/shell_completion.h"
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "drivers/registry.h"
#include "engine/datapath/tunables.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/profile/reference_cases.h"

namespace ringlab {

namespace {
std::string join(const std::vector<std::string> &words)
{
    std::string out;
    for (const auto &w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

// A bash identifier from the program's name: "ringlab-engine" -> "_ringlab_engine".
std::string functionName(const std::string &program)
{
    std::string f = "_";
    for (char c : program)
        f += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return f;
}

// What completes a value: a kind the script knows, or "choice WORD...".
std::string valueKind(const CliOption &o)
{
    if (!o.choices.empty()) return "choice " + join(o.choices);
    static const std::pair<const char *, const char *> kinds[] = {
        {kValueFile, "file"},         {kValueProfile, "profile"},
        {kValueDevice, "device"},     {kValueAssignment, "assignment"},
        {kValueAxis, "assignment"},   {kValueTie, "assignment"},
        {kValueTunables, "tunables"}, {kValueMetric, "metric"},
        {kValueCase, "case"},
    };
    for (const auto &[value, kind] : kinds)
        if (o.value == value) return kind;
    return "text";
}

struct Emitted {
    std::string spec;  // case arms: a command path -> its commands and options
    std::string kinds; // case arms: "path|option" -> the kind of its value
    std::string args;  // case arms: a command path -> the kind of its first argument
};

void emit(const CliCommand &c, const std::string &path, Emitted &e)
{
    std::vector<std::string> cmds, opts;
    for (const auto &sub : c.commands)
        cmds.push_back(sub.name);
    for (const auto &o : c.options) {
        if (o.positional) {
            if (e.args.find("\n    \"" + path + "\")") == std::string::npos)
                e.args += "    \"" + path + "\") echo \"" + valueKind(o) + "\" ;;\n";
            continue;
        }
        for (const auto &n : o.names)
            opts.push_back(n);
        if (o.value.empty()) continue;
        std::string pattern;
        for (const auto &n : o.names)
            pattern += (pattern.empty() ? "" : "|") + ("\"" + path + "|" + n + "\"");
        e.kinds += "    " + pattern + ") echo \"" + valueKind(o) + "\" ;;\n";
    }
    e.spec += "    \"" + path + "\") cmds=\"" + join(cmds) + "\" opts=\"" + join(opts) + "\" ;;\n";
    for (const auto &sub : c.commands)
        emit(sub, path.empty() ? sub.name : path + " " + sub.name, e);
}

std::string tunableValues()
{
    std::string arms;
    std::vector<std::string> flags;
    for (const auto &t : tunables()) {
        if (t.type == Type::Flag) flags.push_back(std::string(t.name));
        if (t.type != Type::Choice) continue;
        std::vector<std::string> values(t.choices.begin(), t.choices.end());
        arms += "    " + std::string(t.name) + ") echo \"" + join(values) + "\" ;;\n";
    }
    if (!flags.empty()) {
        std::string pattern;
        for (const auto &f : flags)
            pattern += (pattern.empty() ? "" : "|") + f;
        arms += "    " + pattern + ") echo \"true false\" ;;\n";
    }
    return arms;
}

// Long: most of it is the completion script's text, kept whole to read as the script it is.
std::string bashScript(const CliCommand &cli)
{
    const std::string f = functionName(cli.name);
    Emitted e;
    emit(cli, "", e);
    std::vector<std::string> names, metrics, cases;
    // A per-thread metric completes to its bracket; the thread's name is the user's.
    for (auto m : engineMetricNames()) {
        if (const auto b = m.find('['); b != std::string::npos) m.erase(b + 1);
        metrics.push_back(std::move(m));
    }
    for (const auto &t : tunables())
        names.emplace_back(t.name);
    for (const auto &c : referenceCases())
        cases.emplace_back(c.name);
    cases.emplace_back("all");

    std::string s;
    s += "# bash completion for " + cli.name + "; made by `" + cli.name +
         " completion bash` from its command line and registries: do not edit.\n";
    s += "# shellcheck shell=bash\n\n";
    s += f + "_tunables=\"" + join(names) + "\"\n";
    s += f + "_metrics=\"" + join(metrics) + "\"\n";
    s += f + "_cases=\"" + join(cases) + "\"\n";
    s += f + "_devices=\"" + join(deviceSpecExamples()) + "\"\n\n";
    s += "# A command path's commands and options.\n" + f + "_spec() {\n    case \"$1\" in\n" +
         e.spec + "    *) cmds=\"\" opts=\"\" ;;\n    esac\n}\n\n";
    s += "# What the value of an option (\"path|option\") is; nothing for a flag.\n" + f +
         "_kind() {\n    case \"$1\" in\n" + e.kinds + "    esac\n}\n\n";
    s += "# What a command's first argument is.\n" + f + "_arg() {\n    case \"$1\" in\n" + e.args +
         "    esac\n}\n\n";
    s += "# The values a tunable takes, for NAME=.\n" + f + "_values() {\n    case \"$1\" in\n" +
         tunableValues() + "    esac\n}\n\n";
    s += R"SH(# Candidates for a value of a kind, into COMPREPLY.
@F_complete() {
    local kind=$1 cur=$2 prog=$3
    case "$kind" in
    choice\ *) mapfile -t COMPREPLY < <(compgen -W "${kind#choice }" -- "$cur") ;;
    file)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        ;;
    profile)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(
            compgen -W "$("$prog" profiles --names 2>/dev/null)" -- "$cur"
            compgen -f -X '!*.json' -- "$cur"
            compgen -d -- "$cur"
        )
        ;;
    device) mapfile -t COMPREPLY < <(compgen -W "$@F_devices" -- "$cur") ;;
    assignment)
        if [[ $cur == *=* ]]; then
            local name=${cur%%=*}
            mapfile -t COMPREPLY < <(compgen -P "$name=" -W "$(@F_values "$name")" -- "${cur#*=}")
        else
            compopt -o nospace 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -S = -W "$@F_tunables" -- "$cur")
        fi
        ;;
    tunables)
        local head=${cur%"${cur##*,}"}
        compopt -o nospace 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -P "$head" -W "$@F_tunables" -- "${cur##*,}")
        ;;
    metric)
        mapfile -t COMPREPLY < <(compgen -W "$@F_metrics" -- "$cur")
        [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *"[" ]] && compopt -o nospace 2>/dev/null
        ;;
    case) mapfile -t COMPREPLY < <(compgen -W "$@F_cases" -- "$cur") ;;
    *) COMPREPLY=() ;;
    esac
    # bash replaces only what follows the word's last break character ('=' and ':' among
    # COMP_WORDBREAKS): each candidate loses what precedes it.
    local breaks=${COMP_WORDBREAKS//[!=:]/}
    if [[ -n $breaks && $cur == *["$breaks"]* ]]; then
        local lead=${cur%"${cur##*["$breaks"]}"}
        COMPREPLY=("${COMPREPLY[@]#"$lead"}")
    fi
}

@F() {
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    read -ra words <<<"$line"
    local cur=""
    if [[ $line != *[[:space:]] && ${#words[@]} -gt 0 ]]; then
        cur=${words[-1]}
        unset 'words[-1]'
    fi
    local prog=${words[0]:-@PROGRAM} path="" expect="" w i cmds opts
    for ((i = 1; i < ${#words[@]}; i++)); do
        w=${words[i]}
        if [[ -n $expect ]]; then
            expect=""
        elif [[ $w == -* ]]; then
            [[ $w == *=* || -z $(@F_kind "$path|$w") ]] || expect=$w
        else
            @F_spec "$path"
            [[ " $cmds " == *" $w "* ]] && path=${path:+$path }$w
        fi
    done
    @F_spec "$path"
    if [[ -n $expect ]]; then
        @F_complete "$(@F_kind "$path|$expect")" "$cur" "$prog"
    elif [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    elif [[ -n $cmds ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$cmds" -- "$cur")
    else
        @F_complete "$(@F_arg "$path")" "$cur" "$prog"
    fi
}
complete -F @F @PROGRAM
)SH";
    std::string out;
    for (std::size_t k = 0; k < s.size();) {
        if (s.compare(k, 2, "@F") == 0) {
            out += f;
            k += 2;
        } else if (s.compare(k, 8, "@PROGRAM") == 0) {
            out += cli.name;
            k += 8;
        } else {
            out += s[k++];
        }
    }
    return out;
}
} // namespace

const std::vector<std::string> &completionShells()
{
    static const std::vector<std::string> shells{"bash"};
    return shells;
}

std::string completionScript(const CliCommand &cli, const std::string &shell)
{
    return shell == "bash" ? bashScript(cli) : std::string();
}

Subcommand addCompletionCommand(CLI::App &app)
{
    auto shell = std::make_shared<std::string>();
    auto *completion = app.add_subcommand(
        "completion", "Print a shell completion script (bash: source it, or install it as "
                      "/usr/share/bash-completion/completions/ringlab-engine)");
    completion->add_option("shell", *shell, "The shell")
        ->required()
        ->check(CLI::IsMember(completionShells()));
    return {completion, [&app, shell] {
                std::fputs(completionScript(describeCli(app), *shell).c_str(), stdout);
                return 0;
            }};
}

} // namespace ringlab
