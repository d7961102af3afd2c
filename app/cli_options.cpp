// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/cli_options.h"

#include <charconv>
#include <cstdio>

#include "app/cli_model.h"
#include "engine/common/duration.h"

namespace ringlab {

CLI::Validator durationValidator(std::int64_t minNs)
{
    return CLI::Validator(
        [minNs](std::string &v) -> std::string {
            const auto ns = parseDurationNs(v);
            if (!ns) return "\"" + v + "\" is not a duration (use e.g. 10s, 500ms, 2m)";
            if (*ns < minNs)
                return "\"" + v + "\" is too short (at least " + std::to_string(minNs / 1'000'000) +
                       " ms)";
            return {};
        },
        "DURATION");
}

CLI::Validator sessionIdValidator()
{
    return CLI::Validator(
        [](std::string &v) -> std::string {
            std::int64_t id = 0;
            const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), id);
            if (ec == std::errc::result_out_of_range)
                return "\"" + v + "\" is too large for a session id (at most 9223372036854775807)";
            if (ec != std::errc() || ptr != v.data() + v.size() || id < 1)
                return "\"" + v + "\" is not a session id (a positive integer)";
            return {};
        },
        "ID");
}

CLI::Option *addDbOption(CLI::App *command, std::string &db)
{
    return command
        ->add_option("--db", db, "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
        ->type_name(kValueFile)
        ->check(CLI::Validator(
            [](const std::string &v) -> std::string {
                // SQLite would take these for a database that is gone when the program ends.
                if (v.empty())
                    return "\"\" names no file (leave --db out for the default database)";
                if (v == ":memory:" || v.rfind("file:", 0) == 0)
                    return "\"" + v +
                           "\" is an in-memory or URI database, which keeps nothing once the "
                           "program ends: give a file";
                return {};
            },
            "FILE"));
}

double durationSeconds(const std::string &text)
{
    return static_cast<double>(parseDurationNs(text).value_or(0)) / 1e9;
}

bool assignmentsFrom(const std::vector<std::string> &sets, Assignments &out, const char *command)
{
    for (const auto &kv : sets) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) {
            std::fprintf(stderr, "ringlab-engine: %s: --set \"%s\" is not NAME=VALUE\n", command,
                         kv.c_str());
            return false;
        }
        out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    return true;
}

bool warmupFits(const std::string &warmup, const std::string &duration, const char *command)
{
    if (parseDurationNs(warmup).value_or(0) < parseDurationNs(duration).value_or(0)) return true;
    std::fprintf(stderr,
                 "ringlab-engine: %s: --warmup %s leaves nothing of --duration %s to measure\n",
                 command, warmup.c_str(), duration.c_str());
    return false;
}

int exitCode(Outcome o)
{
    switch (o) {
    case Outcome::Done:
        return 0;
    case Outcome::Refused:
        return 2;
    case Outcome::Failed:
    case Outcome::Interrupted:
        break;
    }
    return 1;
}

} // namespace ringlab
