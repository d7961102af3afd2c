// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/host/settings_journal.h"

#include "drivers/host/ethtool_netlink.h"
#include "drivers/host/netdev_napi.h"
#include "drivers/host/thread_sched.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

namespace ringlab::host {

namespace {

using nlohmann::json;

constexpr const char *kHeaderKey = "ringlab_settings_journal";
constexpr std::size_t kMaxJournalBytes = 1 << 20; // far beyond any run's settings
constexpr std::size_t kMaxValueBytes = 64 << 10;  // a sysfs file is one page

std::string errnoText(int e)
{
    return std::strerror(e);
}

// A setting that is not a file: an address that one of the kernel's interfaces reads and
// writes (netlink, a thread's scheduling).
struct SettingScheme {
    bool (*is)(std::string_view);
    Status (*read)(const std::string &, std::string &);
    Status (*write)(const std::string &, const std::string &);
    bool (*gone)(const std::string &); // went with its device or thread
};
constexpr SettingScheme kSchemes[] = {
    {isNapiSettingAddress, readNapiSetting, writeNapiSetting, napiSettingGone},
    {isEthtoolSettingAddress, readEthtoolSetting, writeEthtoolSetting, ethtoolSettingGone},
    {isThreadAffinityAddress, readThreadAffinity, writeThreadAffinity, threadSettingGone},
    {isThreadPolicyAddress, readThreadPolicy, writeThreadPolicy, threadSettingGone},
};

const SettingScheme *schemeOf(std::string_view path)
{
    for (const SettingScheme &s : kSchemes)
        if (s.is(path)) return &s;
    return nullptr;
}

// mkdir -p with mode 0700 for the directories it makes.
Status makeDirs(const std::string &dir)
{
    std::string at;
    std::size_t from = 0;
    while (from <= dir.size()) {
        const std::size_t slash = dir.find('/', from);
        at = dir.substr(0, slash == std::string::npos ? dir.size() : slash);
        from = slash == std::string::npos ? dir.size() + 1 : slash + 1;
        if (at.empty()) continue;
        if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST)
            return Status::refused("settings journal: cannot make " + at + ": " + errnoText(errno));
    }
    return Status::success();
}

// The directory is ours alone: a journal names files to write, so nobody else may put one
// there.
Status checkPrivate(const std::string &dir)
{
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        return Status::refused("settings journal: " + dir + ": " + errnoText(errno));
    if (!S_ISDIR(st.st_mode))
        return Status::refused("settings journal: " + dir + " is not a directory");
    if (st.st_uid != ::geteuid() || (st.st_mode & 0022) != 0)
        return Status::refused("settings journal: " + dir +
                               " must belong to this user and be writable by nobody else");
    return Status::success();
}

Status writeAll(int fd, const std::string &text)
{
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return Status::failed(errnoText(n < 0 ? errno : EIO));
        done += static_cast<std::size_t>(n);
    }
    return Status::success();
}

// Writes a setting's file as `echo VALUE > PATH` does (or a NAPI's, through netlink).
Status writeSetting(const std::string &path, const std::string &value)
{
    if (const SettingScheme *s = schemeOf(path)) return s->write(path, value);
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return Status::refused(path + ": cannot open to write '" + value +
                               "': " + errnoText(errno));
    Status st = writeAll(fd, value + "\n");
    if (::close(fd) != 0 && st.ok()) st = Status::failed(errnoText(errno));
    if (!st.ok())
        return Status::refused(path + ": the kernel refused '" + value + "': " + st.error);
    return Status::success();
}

bool readBounded(int fd, std::size_t limit, std::string &out)
{
    out.clear();
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) return true;
        out.append(buf, static_cast<std::size_t>(n));
        if (out.size() > limit) return false;
    }
}

// A setting that went with its device (a netdev removed, as a kernel lab's veth is at the
// end of its run, or a NAPI it no longer has): there is nothing left to put back.
bool settingGone(const std::string &path)
{
    if (const SettingScheme *s = schemeOf(path)) return s->gone(path);
    return ::access(path.c_str(), F_OK) != 0 && errno == ENOENT;
}

void restoreEntries(const std::vector<JournalEntry> &entries, const std::string &journal,
                    std::vector<JournalEntry> *restored, std::vector<JournalEntry> *gone,
                    std::vector<std::string> &failures)
{
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
        if (const Status st = writeSetting(it->path, it->value); st.ok()) {
            if (restored) restored->push_back(*it);
        } else if (settingGone(it->path)) {
            if (gone) gone->push_back(*it);
        } else {
            failures.push_back(journal + ": " + st.error);
        }
    }
}

// A journal's settings, or false with why when it is not one of ours.
bool parseJournal(const std::string &text, std::vector<JournalEntry> &out, std::string &why)
{
    std::size_t from = 0;
    bool header = false;
    while (from < text.size()) {
        std::size_t end = text.find('\n', from);
        if (end == std::string::npos) end = text.size(); // a line cut by a crash: skipped below
        const std::string line = text.substr(from, end - from);
        from = end + 1;
        if (line.empty()) continue;
        const json j = json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            if (end == text.size()) break; // the last line, written in part when it died
            why = "a line is not JSON";
            return false;
        }
        if (!header) {
            if (!j.contains(kHeaderKey)) {
                why = "no journal header";
                return false;
            }
            header = true;
            continue;
        }
        const auto p = j.find("path"), v = j.find("value");
        if (p == j.end() || v == j.end() || !p->is_string() || !v->is_string()) {
            why = "a setting without a path and a value";
            return false;
        }
        const std::string path = p->get<std::string>();
        if (!schemeOf(path) &&
            (path.empty() || path[0] != '/' || path.find("/../") != std::string::npos)) {
            why = "a setting whose path is neither absolute nor a netdev's, a NAPI's or a "
                  "thread's: " +
                  path;
            return false;
        }
        out.push_back({path, v->get<std::string>()});
    }
    if (!header) why = "empty";
    return header;
}

} // namespace

std::string defaultJournalDir()
{
    if (::geteuid() == 0) return "/run/ringlab/journal";
    if (const char *xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg == '/')
        return std::string(xdg) + "/ringlab/journal";
    return "/tmp/ringlab-" + std::to_string(::geteuid()) + "/journal";
}

Status SettingsJournal::read(const std::string &path, std::string &out)
{
    if (const SettingScheme *s = schemeOf(path)) return s->read(path, out);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return Status::refused(path + ": cannot read: " + errnoText(errno));
    std::string text;
    const bool ok = readBounded(fd, kMaxValueBytes, text);
    const int e = errno;
    ::close(fd);
    if (!ok) return Status::refused(path + ": cannot read: " + errnoText(e));
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    out = text;
    return Status::success();
}

Status SettingsJournal::open(const std::string &dir, std::unique_ptr<SettingsJournal> &out)
{
    if (Status st = makeDirs(dir); !st.ok()) return st;
    if (Status st = checkPrivate(dir); !st.ok()) return st;
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    const std::string file =
        dir + "/journal-" + std::to_string(::getpid()) + "-" + std::to_string(now) + ".jsonl";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return Status::refused("settings journal: cannot create " + file + ": " + errnoText(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        ::close(fd);
        ::unlink(file.c_str());
        return Status::failed("settings journal: cannot lock " + file + ": " + errnoText(e));
    }
    std::unique_ptr<SettingsJournal> j(new SettingsJournal(file, fd));
    const json header = {{kHeaderKey, 1}, {"pid", ::getpid()}};
    if (Status st = writeAll(fd, header.dump() + "\n"); !st.ok() || ::fsync(fd) != 0)
        return Status::failed("settings journal: cannot write " + file);
    out = std::move(j);
    return Status::success();
}

SettingsJournal::~SettingsJournal()
{
    if (fd_ < 0) return;
    (void)restore(); // what could not be put back stays journalled for restoreStale
    if (fd_ >= 0) ::close(fd_);
}

Status SettingsJournal::append(const JournalEntry &e)
{
    const json line = {{"path", e.path}, {"value", e.value}};
    if (Status st = writeAll(fd_, line.dump() + "\n"); !st.ok())
        return Status::failed("settings journal " + file_ + ": " + st.error);
    if (::fdatasync(fd_) != 0)
        return Status::failed("settings journal " + file_ + ": " + errnoText(errno));
    entries_.push_back(e);
    return Status::success();
}

Status SettingsJournal::write(const std::string &path, const std::string &value)
{
    if (fd_ < 0) return Status::failed("settings journal " + file_ + " is closed");
    bool known = false;
    for (const auto &e : entries_)
        known |= e.path == path;
    if (!known) {
        std::string old;
        if (Status st = read(path, old); !st.ok()) return st;
        // Journalled before the change: a crash from here on leaves the old value on disk.
        if (Status st = append({path, old}); !st.ok()) return st;
    }
    return writeSetting(path, value);
}

Status SettingsJournal::restore()
{
    if (fd_ < 0) return Status::success();
    std::vector<std::string> failures;
    restoreEntries(entries_, file_, nullptr, nullptr, failures);
    if (!failures.empty()) {
        std::string why = "settings not put back (" + file_ + " keeps them): ";
        for (std::size_t k = 0; k < failures.size(); ++k)
            why += (k ? "; " : "") + failures[k];
        return Status::failed(why);
    }
    entries_.clear();
    ::unlink(file_.c_str());
    ::close(fd_);
    fd_ = -1;
    return Status::success();
}

RestoreReport restoreStale(const std::string &dir)
{
    RestoreReport report;
    DIR *d = ::opendir(dir.c_str());
    if (!d) return report; // no journal was ever made here
    if (const Status st = checkPrivate(dir); !st.ok()) {
        ::closedir(d);
        report.failures.push_back(st.error);
        return report;
    }
    std::vector<std::string> names;
    while (const dirent *e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n.rfind("journal-", 0) == 0 && n.size() > 6 && n.substr(n.size() - 6) == ".jsonl")
            names.push_back(n);
    }
    ::closedir(d);
    for (const std::string &n : names) {
        const std::string file = dir + "/" + n;
        const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) continue;
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
            ::flock(fd, LOCK_EX | LOCK_NB) != 0) { // not ours, or its process lives
            ::close(fd);
            continue;
        }
        std::string text;
        std::vector<JournalEntry> entries;
        std::string why;
        if (!readBounded(fd, kMaxJournalBytes, text) || !parseJournal(text, entries, why)) {
            report.failures.push_back(
                file + ": not restored: " + (why.empty() ? "larger than a journal can be" : why));
            ::close(fd);
            continue;
        }
        report.journals.push_back(file);
        const std::size_t failed = report.failures.size();
        restoreEntries(entries, file, &report.restored, &report.gone, report.failures);
        if (report.failures.size() == failed) ::unlink(file.c_str());
        ::close(fd);
    }
    return report;
}

} // namespace ringlab::host
