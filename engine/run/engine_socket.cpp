// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/engine_socket.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace ringlab {

std::string defaultSocketPath()
{
    if (geteuid() == 0) return kServiceSocketPath;
    if (const char *xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg == '/')
        return std::string(xdg) + "/ringlab/engine.sock";
    return "/tmp/ringlab-" + std::to_string(geteuid()) + "/engine.sock";
}

std::string localEngineSocket()
{
    struct stat st {};
    for (const std::string &path : {std::string(kServiceSocketPath), defaultSocketPath()})
        if (::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return path;
    return {};
}

} // namespace ringlab
