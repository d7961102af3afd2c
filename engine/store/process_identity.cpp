// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/process_identity.h"

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ringlab {

std::string bootId()
{
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id;
}

std::int64_t processStart(std::int64_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return 0;
    const auto close = line.rfind(')'); // the command name may hold spaces and parentheses
    if (close == std::string::npos) return 0;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    for (int k = 3; k <= 22 && rest >> field; ++k)
        if (k == 22) return std::strtoll(field.c_str(), nullptr, 10);
    return 0;
}

bool processGone(std::int64_t pid, std::int64_t pidStart, const std::string &boot)
{
    if (pid <= 0) return true;
    if (!boot.empty() && boot != bootId()) return true; // recorded before a reboot
    if (kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH) return true;
    return pidStart != 0 && processStart(pid) != pidStart; // the pid now belongs to another process
}

} // namespace ringlab
