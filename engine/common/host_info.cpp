// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

namespace ringlab {

HostInfo currentHost()
{
    HostInfo h;
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0) h.hostname = name;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) {
            h.cpuModel = line.substr(line.find(':') + 2);
            break;
        }
    h.cores = static_cast<int>(std::thread::hardware_concurrency());
    utsname u{};
    if (uname(&u) == 0) h.kernel = std::string(u.sysname) + " " + u.release;
    return h;
}

std::string isoTimeNow()
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t secs = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms));
    return buf;
}

} // namespace ringlab
