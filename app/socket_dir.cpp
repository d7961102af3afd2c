// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/socket_dir.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace ringlab {

namespace {

std::string modeText(mode_t mode)
{
    char text[8];
    std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
    return text;
}

std::string userText(uid_t uid)
{
    const struct passwd *pw = getpwuid(uid);
    return "uid " + std::to_string(uid) + (pw ? " (" + std::string(pw->pw_name) + ")" : "");
}

// Every directory above `dir` may be written only by its owner (root or this user), unless it
// is sticky (/tmp): otherwise another user could rename `dir` and put their own in its place.
Status checkAncestors(const std::filesystem::path &dir)
{
    for (auto p = dir.parent_path(); !p.empty(); p = p.parent_path()) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0)
            return Status{"socket directory " + dir.string() + ": cannot read " + p.string() +
                          " (" + std::strerror(errno) + ")"};
        if (st.st_uid != 0 && st.st_uid != geteuid())
            return Status{"socket directory " + dir.string() + ": " + p.string() +
                          " above it is owned by " + userText(st.st_uid) +
                          ", who could replace it; allowed: directories of root or of this "
                          "user (give --listen unix:PATH elsewhere)"};
        if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
            return Status{"socket directory " + dir.string() + ": " + p.string() +
                          " above it has mode " + modeText(st.st_mode) +
                          ": others may write in it without the sticky bit, and so replace the "
                          "socket's directory; allowed: writable by its owner only, or sticky "
                          "as /tmp (give --listen unix:PATH elsewhere)"};
        if (p == p.root_path()) break;
    }
    return {};
}

// A note when the group cannot traverse a directory above `dir` (it could not reach the socket).
void noteUnreachable(const std::filesystem::path &dir, gid_t gid, const std::string &group,
                     std::string &notes)
{
    for (auto p = dir.parent_path(); !p.empty(); p = p.parent_path()) {
        struct stat st {};
        if (::stat(p.c_str(), &st) == 0 && !(st.st_mode & S_IXOTH) &&
            !(st.st_gid == gid && (st.st_mode & S_IXGRP))) {
            notes += "group " + group + " cannot reach the socket: " + p.string() +
                     " above it has mode " + modeText(st.st_mode) + " and is not the group's; ";
            return;
        }
        if (p == p.root_path()) break;
    }
}

} // namespace

Status prepareSocketDir(const std::string &dirText, const SocketDirOptions &o, std::string &notes)
{
    const std::filesystem::path dir = std::filesystem::path(dirText).lexically_normal();
    const std::string what = "socket directory " + dir.string();
    if (auto st = checkAncestors(dir); !st.ok()) return st;

    const struct group *g = o.group.empty() ? nullptr : getgrnam(o.group.c_str());
    if (!g && o.groupRequired)
        return Status{"--socket-group " + o.group +
                      ": no such group (getent group lists them; addgroup --system " + o.group +
                      " makes it)"};
    const gid_t gid = g ? g->gr_gid : 0;

    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return Status{what + ": cannot make it (" + std::strerror(errno) + ")"};
    const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return Status{what + ": " +
                      (errno == ELOOP || errno == ENOTDIR
                           ? std::string("a symbolic link or a file is in the way; allowed: a "
                                         "directory of this user's")
                           : std::string(std::strerror(errno)))};
    struct stat st {};
    Status result;
    if (fstat(fd, &st) != 0) {
        result = Status{what + ": " + std::strerror(errno)};
    } else if (st.st_uid != geteuid()) {
        result = Status{what + " is owned by " + userText(st.st_uid) + ", not by this user (" +
                        userText(geteuid()) +
                        "): its owner could replace the socket; remove it, or give --listen "
                        "unix:PATH in a directory of yours"};
    } else if (st.st_mode & 022) {
        result = Status{what + " has mode " + modeText(st.st_mode) +
                        ": group or others may write in it, and so replace the socket; allowed: "
                        "0700, or 0750 of the socket's group (chmod 700 " +
                        dir.string() + ")"};
    } else if (g) {
        std::string failed;
        if (st.st_gid != gid && fchown(fd, static_cast<uid_t>(-1), gid) != 0)
            failed = std::strerror(errno);
        else if ((st.st_mode & 0050) != 0050 && fchmod(fd, (st.st_mode & 0777) | 0050) != 0)
            failed = std::strerror(errno);
        if (!failed.empty()) {
            const std::string why =
                "cannot give " + dir.string() + " to group " + o.group + " (" + failed + ")";
            if (o.groupRequired)
                result = Status{"--socket-group " + o.group + ": " + why +
                                "; the group could not reach the socket"};
            else
                notes += why + ": the socket is this user's only; ";
        } else {
            noteUnreachable(dir, gid, o.group, notes);
        }
    }
    close(fd);
    return result;
}

} // namespace ringlab
