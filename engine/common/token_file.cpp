// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/token_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/common/regular_file.h"

namespace ringlab {

namespace {
constexpr std::size_t kMaxTokenFileBytes = 64 * 1024;
}

Status readTokenFile(const std::string &file, const std::string &what, std::string &token)
{
    token.clear();
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) return Status{what + ": " + std::strerror(errno)};
    if (!S_ISREG(st.st_mode)) return Status{what + ": not a regular file"};
    if (st.st_uid != geteuid())
        return Status{what + ": owned by uid " + std::to_string(st.st_uid) +
                      ", not by this user (uid " + std::to_string(geteuid()) + ")"};
    if (st.st_mode & 077) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        return Status{what + ": mode " + mode +
                      " lets others read it; allowed: 0600 or 0400 (chmod 600 " + file + ")"};
    }
    std::string text;
    if (auto read = readRegularFile(file, kMaxTokenFileBytes, text); !read.ok())
        return Status{what + ": " + read.error};
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
    if (text.size() < 16 || text.find_first_of(" \t\r\n") != std::string::npos)
        return Status{what +
                      ": the token must be one word of at least 16 characters (e.g. "
                      "openssl rand -hex 32 > " +
                      file + ")"};
    token = text;
    return {};
}

} // namespace ringlab
