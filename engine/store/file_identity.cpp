// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/file_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace ringlab {

std::optional<FileIdentity> FileIdentity::of(const std::filesystem::path &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    return FileIdentity{st.st_dev, st.st_ino};
}

bool isSqliteFile(const std::filesystem::path &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return false;
    struct stat st {};
    char head[16] = {};
    const bool sqlite = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                        ::read(fd, head, sizeof head) == static_cast<ssize_t>(sizeof head) &&
                        std::memcmp(head, "SQLite format 3", sizeof head) == 0;
    ::close(fd);
    return sqlite;
}

std::string fileChange(const std::filesystem::path &path, const FileIdentity &then)
{
    const auto now = FileIdentity::of(path);
    if (!now) return "was deleted or moved away";
    if (*now != then) return "was replaced by another file";
    return {};
}

} // namespace ringlab
