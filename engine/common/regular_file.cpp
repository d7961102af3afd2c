// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ringlab {

namespace {
std::string kindOf(mode_t mode)
{
    if (S_ISREG(mode)) return {};
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string sizeText(std::size_t bytes)
{
    if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + " MiB";
    if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
    return std::to_string(bytes) + " bytes";
}
} // namespace

std::string specialFileKind(const std::filesystem::path &file)
{
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) return {};
    return kindOf(st.st_mode);
}

Status readRegularFile(const std::filesystem::path &file, std::size_t maxBytes, std::string &out)
{
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return Status::failure(std::string("cannot be read: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return Status::failure(std::string("cannot be read: ") + std::strerror(err));
    }
    if (const std::string kind = kindOf(st.st_mode); !kind.empty()) {
        ::close(fd);
        return Status::failure("is " + kind + ", not a regular file");
    }
    const auto tooLarge = [&](std::size_t size) {
        return Status::failure("is " + std::to_string(size) + " bytes, more than the " +
                               sizeText(maxBytes) + " allowed");
    };
    if (static_cast<std::size_t>(st.st_size) > maxBytes) {
        ::close(fd);
        return tooLarge(static_cast<std::size_t>(st.st_size));
    }
    std::string text;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            return Status::failure(std::string("cannot be read: ") + std::strerror(err));
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > maxBytes) { // it grew while read
            ::close(fd);
            return tooLarge(text.size());
        }
    }
    ::close(fd);
    out = std::move(text);
    return Status::success();
}

} // namespace ringlab
