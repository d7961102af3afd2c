// SPDX-License-Identifier: GPL-2.0-or-later
// Which file a path names (device and inode), so that a database is never written over by
// its own export or import, and a recorder notices that its file was replaced under it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

namespace ringlab {

struct FileIdentity {
    dev_t dev = 0;
    ino_t ino = 0;
    bool operator==(const FileIdentity &) const = default;
    // The file the path names now (symbolic links followed); nothing when there is none.
    static std::optional<FileIdentity> of(const std::filesystem::path &path);
};

// Whether the file starts with SQLite's header ("SQLite format 3"). Opens without blocking
// and reads only regular files: a FIFO or a device is not a database.
bool isSqliteFile(const std::filesystem::path &path);

// What became of the file `path` named when `then` was taken: empty while it still names it,
// else "was replaced by another file" or "was deleted or moved away".
std::string fileChange(const std::filesystem::path &path, const FileIdentity &then);

} // namespace ringlab
