// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/host/thread_sched.h"

#include <sched.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ringlab::host {
namespace {

constexpr std::string_view kPrefix = "sched:", kAffinity = "/affinity", kPolicy = "/policy";

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

// An address "sched:PID:START" + suffix.
bool parse(std::string_view a, std::string_view suffix, pid_t &pid, std::uint64_t &start)
{
    if (a.substr(0, kPrefix.size()) != kPrefix || a.size() <= kPrefix.size() + suffix.size() ||
        a.substr(a.size() - suffix.size()) != suffix)
        return false;
    const std::string_view mid =
        a.substr(kPrefix.size(), a.size() - kPrefix.size() - suffix.size());
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
Status sameThread(const std::string &address, std::string_view suffix, pid_t &pid)
{
    std::uint64_t start = 0, now = 0;
    if (!parse(address, suffix, pid, start))
        return Status::refused(address + ": not a thread's setting (sched:PID:START" +
                               std::string(suffix) + ")");
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

Status threadAddress(pid_t pid, std::string_view suffix, std::string &out)
{
    std::uint64_t start = 0;
    if (!startTime(pid, start))
        return Status::refused("thread " + std::to_string(pid) + " is not there");
    out = std::string(kPrefix) + std::to_string(pid) + ":" + std::to_string(start) +
          std::string(suffix);
    return Status::success();
}

struct PolicyName {
    int policy;
    std::string_view name;
    bool realtime;
};
constexpr PolicyName kPolicies[] = {
    {SCHED_OTHER, "other", false}, {SCHED_BATCH, "batch", false}, {SCHED_IDLE, "idle", false},
    {SCHED_FIFO, "fifo", true},    {SCHED_RR, "rr", true},
};

} // namespace

Status threadAffinityAddress(pid_t pid, std::string &out)
{
    return threadAddress(pid, kAffinity, out);
}

Status threadPolicyAddress(pid_t pid, std::string &out)
{
    return threadAddress(pid, kPolicy, out);
}

bool isThreadAffinityAddress(std::string_view path)
{
    pid_t pid = 0;
    std::uint64_t start = 0;
    return parse(path, kAffinity, pid, start);
}

bool isThreadPolicyAddress(std::string_view path)
{
    pid_t pid = 0;
    std::uint64_t start = 0;
    return parse(path, kPolicy, pid, start);
}

Status readThreadAffinity(const std::string &address, std::string &out)
{
    pid_t pid = 0;
    if (Status st = sameThread(address, kAffinity, pid); !st.ok()) return st;
    cpu_set_t set;
    if (sched_getaffinity(pid, sizeof set, &set) != 0)
        return Status::refused(address + ": " + std::strerror(errno));
    out = cpuListOf(set);
    return Status::success();
}

Status writeThreadAffinity(const std::string &address, const std::string &cpuList)
{
    pid_t pid = 0;
    if (Status st = sameThread(address, kAffinity, pid); !st.ok()) return st;
    cpu_set_t set;
    if (!parseCpuList(cpuList, set))
        return Status::refused(address + ": '" + cpuList + "' is not a CPU list (e.g. 0-3,6)");
    if (sched_setaffinity(pid, sizeof set, &set) != 0)
        return Status::refused(address + ": the kernel refused CPUs " + cpuList + ": " +
                               std::strerror(errno));
    return Status::success();
}

bool threadSettingGone(const std::string &address)
{
    pid_t pid = 0;
    std::uint64_t start = 0, now = 0;
    return (parse(address, kAffinity, pid, start) || parse(address, kPolicy, pid, start)) &&
           (!startTime(pid, now) || now != start);
}

Status readThreadPolicy(const std::string &address, std::string &out)
{
    pid_t pid = 0;
    if (Status st = sameThread(address, kPolicy, pid); !st.ok()) return st;
    const int policy = sched_getscheduler(pid);
    sched_param param{};
    if (policy < 0 || sched_getparam(pid, &param) != 0)
        return Status::refused(address + ": " + std::strerror(errno));
    for (const PolicyName &p : kPolicies)
        if (p.policy == (policy & ~SCHED_RESET_ON_FORK)) {
            out = std::string(p.name) + " " + std::to_string(param.sched_priority);
            return Status::success();
        }
    return Status::refused(address + ": the thread has scheduling policy " +
                           std::to_string(policy) +
                           ", which this program cannot put back (other, batch, idle, fifo, rr)");
}

Status writeThreadPolicy(const std::string &address, const std::string &value)
{
    pid_t pid = 0;
    if (Status st = sameThread(address, kPolicy, pid); !st.ok()) return st;
    const auto space = value.find(' ');
    const std::string name = value.substr(0, space);
    int priority = -1;
    if (space != std::string::npos) {
        const char *b = value.data() + space + 1, *e = value.data() + value.size();
        const auto [end, ec] = std::from_chars(b, e, priority);
        if (ec != std::errc{} || end != e) priority = -1;
    }
    const PolicyName *p = nullptr;
    for (const PolicyName &x : kPolicies)
        if (x.name == name) p = &x;
    if (!p || priority < (p->realtime ? 1 : 0) || priority > (p->realtime ? 99 : 0))
        return Status::refused(address + ": '" + value +
                               "' is not a policy and priority (other 0, batch 0, idle 0, fifo "
                               "1-99, rr 1-99)");
    const sched_param param{priority};
    if (sched_setscheduler(pid, p->policy, &param) != 0)
        return Status::refused(address + ": the kernel refused " + value + ": " +
                               std::strerror(errno));
    return Status::success();
}

} // namespace ringlab::host
