// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/host/thread_affinity.h"

#include <sched.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ringlab::host {
namespace {

constexpr std::string_view kPrefix = "sched:", kSuffix = "/affinity";

// /proc/PID/stat's start time (field 22); false when the thread is not there. The command
// (field 2) may hold spaces and parentheses: the fields after it follow its last ')'.
bool startTime(pid_t pid, std::uint64_t &out)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text)) return false;
    const auto close = text.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream rest(text.substr(close + 1));
    std::string field;
    for (int k = 3; k <= 22; ++k)
        if (!(rest >> field)) return false;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
    return ec == std::errc{} && end == field.data() + field.size();
}

bool parse(std::string_view a, pid_t &pid, std::uint64_t &start)
{
    if (a.substr(0, kPrefix.size()) != kPrefix || a.size() <= kPrefix.size() + kSuffix.size() ||
        a.substr(a.size() - kSuffix.size()) != kSuffix)
        return false;
    const std::string_view mid =
        a.substr(kPrefix.size(), a.size() - kPrefix.size() - kSuffix.size());
    const auto colon = mid.find(':');
    if (colon == std::string_view::npos) return false;
    long long p = 0;
    auto [e1, c1] = std::from_chars(mid.data(), mid.data() + colon, p);
    auto [e2, c2] = std::from_chars(mid.data() + colon + 1, mid.data() + mid.size(), start);
    if (c1 != std::errc{} || e1 != mid.data() + colon || c2 != std::errc{} ||
        e2 != mid.data() + mid.size() || p <= 0 || p > 4194304)
        return false;
    pid = static_cast<pid_t>(p);
    return true;
}

// The thread the address names, still the same one; refused naming why not.
Status sameThread(const std::string &address, pid_t &pid)
{
    std::uint64_t start = 0, now = 0;
    if (!parse(address, pid, start))
        return Status::refused(address + ": not a thread's affinity (sched:PID:START/affinity)");
    if (!startTime(pid, now) || now != start)
        return Status::refused(address + ": the thread is gone");
    return Status::success();
}

std::string cpuListOf(const cpu_set_t &set)
{
    std::string out;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (!CPU_ISSET(c, &set)) continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            ++last;
        out += (out.empty() ? "" : ",") + std::to_string(c) +
               (last > c ? "-" + std::to_string(last) : "");
        c = last;
    }
    return out;
}

bool parseCpuList(std::string_view text, cpu_set_t &set)
{
    CPU_ZERO(&set);
    bool any = false;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view part = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        const auto dash = part.find('-');
        int lo = 0, hi = 0;
        const std::string_view a = part.substr(0, dash);
        auto [e1, c1] = std::from_chars(a.data(), a.data() + a.size(), lo);
        if (c1 != std::errc{} || e1 != a.data() + a.size()) return false;
        hi = lo;
        if (dash != std::string_view::npos) {
            const std::string_view b = part.substr(dash + 1);
            auto [e2, c2] = std::from_chars(b.data(), b.data() + b.size(), hi);
            if (c2 != std::errc{} || e2 != b.data() + b.size()) return false;
        }
        if (lo < 0 || hi < lo || hi >= CPU_SETSIZE) return false;
        for (int c = lo; c <= hi; ++c)
            CPU_SET(c, &set);
        any = true;
    }
    return any;
}

} // namespace

Status threadAffinityAddress(pid_t pid, std::string &out)
{
    std::uint64_t start = 0;
    if (!startTime(pid, start))
        return Status::refused("thread " + std::to_string(pid) + " is not there");
    out = std::string(kPrefix) + std::to_string(pid) + ":" + std::to_string(start) +
          std::string(kSuffix);
    return Status::success();
}

bool isThreadAffinityAddress(std::string_view path)
{
    pid_t pid = 0;
    std::uint64_t start = 0;
    return parse(path, pid, start);
}

Status readThreadAffinity(const std::string &address, std::string &out)
{
    pid_t pid = 0;
    if (Status st = sameThread(address, pid); !st.ok()) return st;
    cpu_set_t set;
    if (sched_getaffinity(pid, sizeof set, &set) != 0)
        return Status::refused(address + ": " + std::strerror(errno));
    out = cpuListOf(set);
    return Status::success();
}

Status writeThreadAffinity(const std::string &address, const std::string &cpuList)
{
    pid_t pid = 0;
    if (Status st = sameThread(address, pid); !st.ok()) return st;
    cpu_set_t set;
    if (!parseCpuList(cpuList, set))
        return Status::refused(address + ": '" + cpuList + "' is not a CPU list (e.g. 0-3,6)");
    if (sched_setaffinity(pid, sizeof set, &set) != 0)
        return Status::refused(address + ": the kernel refused CPUs " + cpuList + ": " +
                               std::strerror(errno));
    return Status::success();
}

bool threadAffinityGone(const std::string &address)
{
    pid_t pid = 0;
    std::uint64_t start = 0, now = 0;
    return parse(address, pid, start) && (!startTime(pid, now) || now != start);
}

} // namespace ringlab::host
