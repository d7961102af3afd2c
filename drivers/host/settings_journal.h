// SPDX-License-Identifier: GPL-2.0-or-later
// The host settings a run changes (sysfs and procfs files: a netdev's threaded NAPI,
// gro_flush_timeout, napi_defer_hard_irqs, net.core.busy_poll, ...), put back as they were
// however the run ends (DESIGN.md, "Decided 2026-12-06"):
//  - each setting is read before its first change, and its old value is written to the
//    journal on disk, flushed, before the change is made;
//  - a clean end puts every setting back, newest first, and removes the journal;
//  - the journal is held with flock() while its process lives, so a journal whose lock can
//    be taken belongs to a process that died (kill -9, a crash): restoreStale() puts its
//    settings back, at the next start of the engine and with `ringlab-engine restore`.
// A journal is a JSON-lines file: a header line, then one line per setting.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/common/status.h"

namespace ringlab::host {

// One setting as it was before a run first changed it.
struct JournalEntry {
    // The file written (/proc/sys/net/core/busy_poll), or one NAPI's attribute through
    // netdev netlink ("netlink:netdev/napi/ID/ATTR", netdev_napi.h)
    std::string path;
    std::string value; // its content before the first change, without the trailing newline
};

// Where journals live: /run/ringlab/journal as root (gone at a reboot, as the settings
// are), else $XDG_RUNTIME_DIR/ringlab/journal, or /tmp/ringlab-UID/journal.
std::string defaultJournalDir();

class SettingsJournal {
  public:
    // A new journal of this process in `dir` (made 0700 when missing), held until it is
    // restored or destroyed. Refused when the directory cannot be made or written.
    static Status open(const std::string &dir, std::unique_ptr<SettingsJournal> &out);
    ~SettingsJournal(); // restores what is still changed
    SettingsJournal(const SettingsJournal &) = delete;
    SettingsJournal &operator=(const SettingsJournal &) = delete;

    // Writes `value` to the file at `path`. The first time a path is written its old value
    // is journalled (and flushed) first; a write the kernel refuses leaves the setting as it
    // was and says so, naming the file, the value and the kernel's reason.
    Status write(const std::string &path, const std::string &value);
    // The value at `path` now (read, trailing newline removed); refused when unreadable.
    static Status read(const std::string &path, std::string &out);
    // Puts every setting back, newest first. The journal file goes when all came back; when
    // one could not, it stays (restoreStale tries again) and the reason names the setting.
    Status restore();

    const std::string &file() const { return file_; }
    const std::vector<JournalEntry> &entries() const { return entries_; }

  private:
    SettingsJournal(std::string file, int fd) : file_(std::move(file)), fd_(fd) {}
    Status append(const JournalEntry &e);

    std::string file_;
    int fd_ = -1;
    std::vector<JournalEntry> entries_;
};

// What restoreStale did: the journals of dead processes it found, the settings it put back,
// and what it could not (each naming the journal and the setting).
struct RestoreReport {
    std::vector<std::string> journals;
    std::vector<JournalEntry> restored;
    std::vector<JournalEntry> gone; // went with their device (a removed netdev or NAPI)
    std::vector<std::string> failures;
};

// Every journal in `dir` whose process has gone: its settings put back (newest first), then
// the journal removed (kept when a setting could not be restored). Journals still held by a
// live process, and files that are not journals, are left alone.
RestoreReport restoreStale(const std::string &dir);

} // namespace ringlab::host
