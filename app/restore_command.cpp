// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/restore_command.h"

#include <cstdio>
#include <memory>

#include "drivers/host/settings_journal.h"
#include "engine/common/utf8_text.h"

namespace ringlab {

int restoreCommand(const std::string &journalDir)
{
    const host::RestoreReport r = host::restoreStale(journalDir);
    for (const auto &e : r.restored)
        std::printf("restored %s to '%s'\n", utf8OrEscaped(e.path).c_str(),
                    utf8OrEscaped(e.value).c_str());
    for (const auto &e : r.gone)
        std::printf("gone with its device: %s (was '%s')\n", utf8OrEscaped(e.path).c_str(),
                    utf8OrEscaped(e.value).c_str());
    for (const auto &f : r.failures)
        std::fprintf(stderr, "ringlab-engine restore: %s\n", utf8OrEscaped(f).c_str());
    std::printf("%zu journal(s) of ended runs in %s: %zu setting(s) put back, %zu not\n",
                r.journals.size(), journalDir.c_str(), r.restored.size(), r.failures.size());
    return r.failures.empty() ? 0 : 1;
}

void restoreLeftovers()
{
    const std::string dir = host::defaultJournalDir();
    const host::RestoreReport r = host::restoreStale(dir);
    for (const auto &e : r.restored)
        std::fprintf(stderr,
                     "ringlab-engine: a run that ended without restoring left %s changed: "
                     "put back to '%s'\n",
                     utf8OrEscaped(e.path).c_str(), utf8OrEscaped(e.value).c_str());
    for (const auto &f : r.failures)
        std::fprintf(stderr, "ringlab-engine: %s\n", utf8OrEscaped(f).c_str());
}

Subcommand addRestoreCommand(CLI::App &app)
{
    auto dir = std::make_shared<std::string>(host::defaultJournalDir());
    auto *cmd = app.add_subcommand(
        "restore", "Put back the host settings of runs that ended without doing so (kill -9)");
    cmd->add_option("--journal-dir", *dir, "Where the runs' journals are")->capture_default_str();
    return {cmd, [dir] { return restoreCommand(*dir); }};
}

} // namespace ringlab
