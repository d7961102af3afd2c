// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/environment_capture.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/common/cpu_list.h"

namespace ringlab {

namespace fs = std::filesystem;

namespace {

struct Reader {
    fs::path root;

    fs::path at(const std::string &path) const
    {
        return root.empty() ? fs::path(path) : root / path.substr(1);
    }

    // The first line of a file (trailing white space cut), or false with the reason.
    bool line(const std::string &path, std::string &out, std::string &why) const
    {
        const fs::path p = at(path);
        std::error_code dirEc;
        if (fs::is_directory(p, dirEc)) {
            why = "unreadable: " + path + " is a directory, not a file";
            return false;
        }
        std::ifstream in(p);
        if (!in) {
            const int err = errno;
            std::error_code ec;
            if (!fs::exists(p, ec))
                why = "not present on this kernel: " + path + " missing";
            else
                why = "unreadable: " + path + ": " +
                      (err ? std::strerror(err) : std::string("cannot be opened"));
            return false;
        }
        out.clear();
        std::getline(in, out);
        if (in.bad()) {
            why = "unreadable: " + path + ": read failed";
            return false;
        }
        while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back())))
            out.pop_back();
        return true;
    }

    Fact fact(const std::string &key, const std::string &path) const
    {
        Fact f{key, {}, {}};
        if (!line(path, f.value, f.absent)) f.value.clear();
        return f;
    }
};

// /proc/meminfo's "Key:   123 kB" lines.
void memFacts(const Reader &r, Environment &env)
{
    const struct {
        const char *key, *field;
    } kMem[] = {{"mem.total_kb", "MemTotal"},
                {"mem.available_kb", "MemAvailable"},
                {"mem.hugepages_total", "HugePages_Total"},
                {"mem.hugepages_free", "HugePages_Free"},
                {"mem.hugepage_size_kb", "Hugepagesize"}};
    std::ifstream in(r.at("/proc/meminfo"));
    std::vector<std::pair<std::string, std::string>> lines;
    for (std::string l; std::getline(in, l);) {
        const auto colon = l.find(':');
        if (colon == std::string::npos) continue;
        std::istringstream v(l.substr(colon + 1));
        std::string number;
        v >> number;
        lines.emplace_back(l.substr(0, colon), number);
    }
    for (const auto &m : kMem) {
        Fact f{m.key, {}, {}};
        if (lines.empty())
            f.absent = "unreadable: /proc/meminfo";
        else {
            for (const auto &[k, v] : lines)
                if (k == m.field) f.value = v;
            if (f.value.empty())
                f.absent =
                    std::string("not present on this kernel: /proc/meminfo has no ") + m.field;
        }
        env.facts.push_back(std::move(f));
    }
}

void cpuinfoFacts(const Reader &r, Environment &env)
{
    std::ifstream in(r.at("/proc/cpuinfo"));
    std::string model, flags;
    bool read = false;
    for (std::string l; std::getline(in, l);) {
        read = true;
        auto valueOf = [&l] {
            const auto colon = l.find(':');
            return colon == std::string::npos ? std::string() : l.substr(colon + 1);
        };
        if (model.empty() && l.rfind("model name", 0) == 0) model = valueOf();
        if (flags.empty() && l.rfind("flags", 0) == 0) flags = valueOf() + " ";
    }
    const auto trim = [](std::string s) {
        s.erase(0, s.find_first_not_of(" \t"));
        return s;
    };
    Fact m{"cpu.model", trim(model), {}};
    if (!read)
        m.absent = "unreadable: /proc/cpuinfo";
    else if (m.value.empty())
        m.absent = "not present on this kernel: /proc/cpuinfo has no model name";
    Fact virt{"kernel.virtualisation", {}, {}};
    if (!read)
        virt.absent = "unreadable: /proc/cpuinfo";
    else if (flags.empty())
        virt.absent = "not present on this CPU: /proc/cpuinfo has no flags line (not x86)";
    else if (flags.find(" hypervisor ") == std::string::npos)
        virt.value = "none (no hypervisor flag)";
    else {
        std::string vendor, product, why;
        const bool v = r.line("/sys/class/dmi/id/sys_vendor", vendor, why);
        const bool p = r.line("/sys/class/dmi/id/product_name", product, why);
        virt.value = "virtual machine";
        if (v || p)
            virt.value += " (" + vendor + (v && p ? " " : "") + product + ")";
        else
            virt.value += " (vendor unknown: /sys/class/dmi/id/sys_vendor " +
                          why.substr(0, why.find(':')) + ")";
    }
    env.facts.push_back(std::move(virt));
    env.facts.push_back(std::move(m));
}

void perCpuFacts(const Reader &r, const std::vector<int> &cpus, Environment &env)
{
    for (const char *spec : {"cpu.governor", "cpu.freq_min_khz", "cpu.freq_max_khz"}) {
        const std::string file = std::strcmp(spec, "cpu.governor") == 0       ? "scaling_governor"
                                 : std::strcmp(spec, "cpu.freq_min_khz") == 0 ? "scaling_min_freq"
                                                                              : "scaling_max_freq";
        for (int c : cpus) {
            const std::string n = std::to_string(c);
            Fact f =
                r.fact(factKey(spec, n), "/sys/devices/system/cpu/cpu" + n + "/cpufreq/" + file);
            if (!f.present() && f.absent.rfind("not present", 0) == 0)
                f.absent = "not present on this machine: /sys/devices/system/cpu/cpu" + n +
                           "/cpufreq missing (no frequency scaling driver; a VM usually has none)";
            env.facts.push_back(std::move(f));
        }
    }
    for (int c : cpus) {
        const std::string n = std::to_string(c);
        const std::string dir = "/sys/devices/system/cpu/cpu" + n + "/cpuidle";
        Fact f{factKey("cpu.idle_states", n), {}, {}};
        std::error_code ec;
        if (!fs::is_directory(r.at(dir), ec)) {
            f.absent = "not present on this machine: " + dir + " missing (no cpuidle driver)";
            env.facts.push_back(std::move(f));
            continue;
        }
        std::vector<std::string> enabled;
        bool failed = false;
        for (int k = 0; k < 64; ++k) {
            const std::string state = dir + "/state" + std::to_string(k);
            if (!fs::is_directory(r.at(state), ec)) break;
            std::string name, disable, why;
            if (!r.line(state + "/name", name, why) || !r.line(state + "/disable", disable, why)) {
                f.absent = why;
                failed = true;
                break;
            }
            if (disable == "0") enabled.push_back(name);
        }
        if (!failed) {
            for (const auto &e : enabled)
                f.value += (f.value.empty() ? "" : ", ") + e;
            if (enabled.empty()) f.value = "none";
        }
        env.facts.push_back(std::move(f));
    }
}

void sysctlFacts(const Reader &r, Environment &env)
{
    for (const auto &spec : factSpecs()) {
        const std::string key(spec.key);
        if (key.rfind("sysctl.", 0) != 0 || spec.scope != FactScope::Machine) continue;
        std::string path = "/proc/sys/" + key.substr(7);
        std::replace(path.begin() + 10, path.end(), '.', '/');
        env.facts.push_back(r.fact(key, path));
    }
    std::vector<std::string> sched;
    std::error_code ec;
    for (fs::directory_iterator it(r.at("/proc/sys/kernel"), ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("sched_", 0) == 0 && !it->is_directory(ec)) sched.push_back(name);
    }
    std::sort(sched.begin(), sched.end());
    if (sched.empty()) {
        env.facts.push_back({"sysctl.kernel.sched",
                             {},
                             "not present on this kernel: no /proc/sys/kernel/sched_* sysctl"});
        return;
    }
    for (const auto &name : sched) {
        Fact f = r.fact(factKey("sysctl.kernel.sched", name), "/proc/sys/kernel/" + name);
        env.facts.push_back(std::move(f));
    }
}

std::string allowedCpus(std::vector<int> &cpus, std::string &why)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        why = std::string("unreadable: sched_getaffinity: ") + std::strerror(errno);
        return {};
    }
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpuListText(cpus);
}

} // namespace

Environment captureMachine(const fs::path &root)
{
    const Reader r{root};
    Environment env;
    env.facts.push_back(r.fact("kernel.release", "/proc/sys/kernel/osrelease"));
    env.facts.push_back(r.fact("kernel.cmdline", "/proc/cmdline"));
    Environment cpuinfo;
    cpuinfoFacts(r, cpuinfo);
    env.facts.push_back(cpuinfo.facts[0]); // virtualisation, then boot id, then the model
    env.facts.push_back(r.fact("kernel.boot_id", "/proc/sys/kernel/random/boot_id"));
    env.facts.push_back(cpuinfo.facts[1]);

    Fact online = r.fact("cpu.online", "/sys/devices/system/cpu/online");
    Fact count{"cpu.online_count", {}, online.absent};
    std::vector<int> onlineCpus;
    if (online.present()) {
        if (parseCpuList(online.value, onlineCpus))
            count.value = std::to_string(onlineCpus.size());
        else
            count.absent = "unreadable: /sys/devices/system/cpu/online is not a CPU list (\"" +
                           online.value.substr(0, 40) + "\")";
    }
    env.facts.push_back(online);
    env.facts.push_back(count);
    env.facts.push_back(r.fact("cpu.smt", "/sys/devices/system/cpu/smt/active"));
    Fact isolated = r.fact("cpu.isolated", "/sys/devices/system/cpu/isolated");
    if (isolated.present() && isolated.value.empty()) isolated.value = "none";
    env.facts.push_back(isolated);
    Fact nohz = r.fact("cpu.nohz_full", "/sys/devices/system/cpu/nohz_full");
    if (!nohz.present() && nohz.absent.rfind("not present", 0) == 0)
        nohz.absent += " (a kernel without CONFIG_NO_HZ_FULL)";
    if (nohz.present() && (nohz.value.empty() || nohz.value == "(null)")) nohz.value = "none";
    env.facts.push_back(nohz);
    std::vector<int> allowed;
    Fact allowedFact{"cpu.allowed", {}, {}};
    allowedFact.value = allowedCpus(allowed, allowedFact.absent);
    env.facts.push_back(allowedFact);
    // The CPUs the engine may run on: the allowed ones (those online, when that is known).
    std::vector<int> used;
    for (int c : allowed)
        if (onlineCpus.empty() ||
            std::find(onlineCpus.begin(), onlineCpus.end(), c) != onlineCpus.end())
            used.push_back(c);
    perCpuFacts(r, used, env);
    memFacts(r, env);
    sysctlFacts(r, env);

    Fact load = r.fact("load.average", "/proc/loadavg");
    Fact perCpu{"load.per_cpu", {}, load.absent};
    if (load.present()) {
        std::istringstream in(load.value);
        double one = 0, five = 0, fifteen = 0;
        if (in >> one >> five >> fifteen) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", one, five, fifteen);
            load.value = buf;
            if (count.present() && !onlineCpus.empty()) {
                std::snprintf(buf, sizeof buf, "%.2f",
                              one / static_cast<double>(onlineCpus.size()));
                perCpu.value = buf;
            } else
                perCpu.absent = "the count of CPUs online is absent: " + count.absent;
        } else {
            load.absent = perCpu.absent = "unreadable: /proc/loadavg is not three numbers (\"" +
                                          load.value.substr(0, 40) + "\")";
            load.value.clear();
        }
    }
    env.facts.push_back(load);
    env.facts.push_back(perCpu);
    return env;
}

namespace {
const char *policyName(int p)
{
    switch (p) {
    case SCHED_OTHER:
        return "other";
    case SCHED_FIFO:
        return "fifo";
    case SCHED_RR:
        return "rr";
    case SCHED_BATCH:
        return "batch";
    case SCHED_IDLE:
        return "idle";
#ifdef SCHED_DEADLINE
    case SCHED_DEADLINE:
        return "deadline";
#endif
    default:
        return nullptr;
    }
}
} // namespace

Environment captureThreads(const std::vector<ThreadId> &threads)
{
    Environment env;
    for (const auto &t : threads) {
        const std::string gone = "thread " + t.name + " (tid " + std::to_string(t.tid) + ")";
        auto why = [&](const char *call) {
            return std::string("unreadable: ") + call + " of " + gone + ": " + std::strerror(errno);
        };
        Fact aff{factKey("thread.affinity", t.name), {}, {}};
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(t.tid, sizeof set, &set) == 0) {
            std::vector<int> cpus;
            for (int c = 0; c < CPU_SETSIZE; ++c)
                if (CPU_ISSET(c, &set)) cpus.push_back(c);
            aff.value = cpuListText(cpus);
        } else
            aff.absent = why("sched_getaffinity");
        env.facts.push_back(aff);

        Fact pol{factKey("thread.policy", t.name), {}, {}};
        Fact prio{factKey("thread.priority", t.name), {}, {}};
        const int p = sched_getscheduler(t.tid);
        if (p < 0) {
            pol.absent = prio.absent = why("sched_getscheduler");
        } else {
            const int base = p & ~SCHED_RESET_ON_FORK;
            const char *name = policyName(base);
            pol.value = name ? name : "policy " + std::to_string(base);
            if (base == SCHED_FIFO || base == SCHED_RR) {
                sched_param sp{};
                if (sched_getparam(t.tid, &sp) == 0)
                    prio.value = "rt " + std::to_string(sp.sched_priority);
                else
                    prio.absent = why("sched_getparam");
            } else {
                errno = 0;
                const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(t.tid));
                if (nice == -1 && errno != 0)
                    prio.absent = why("getpriority");
                else
                    prio.value = "nice " + std::to_string(nice);
            }
        }
        env.facts.push_back(pol);
        env.facts.push_back(prio);

        Fact last{factKey("thread.last_cpu", t.name), {}, {}};
        const std::string stat = "/proc/self/task/" + std::to_string(t.tid) + "/stat";
        std::ifstream in(stat);
        std::string l;
        if (!in || !std::getline(in, l)) {
            last.absent = "unreadable: " + stat + ": " + gone + " has ended";
        } else {
            const auto close = l.rfind(')');
            std::istringstream rest(close == std::string::npos ? std::string()
                                                               : l.substr(close + 2));
            std::string field;
            for (int k = 3; k <= 39 && rest >> field; ++k)
                if (k == 39) last.value = field;
            if (last.value.empty()) last.absent = "unreadable: " + stat + " has no field 39";
        }
        env.facts.push_back(last);

        Fact most{factKey("thread.most_cpu", t.name), {}, {}};
        std::int64_t sum = 0, best = 0;
        std::size_t bestCpu = 0;
        for (std::size_t c = 0; c < t.cpuNsOn.size(); ++c) {
            sum += t.cpuNsOn[c];
            if (t.cpuNsOn[c] > best) best = t.cpuNsOn[c], bestCpu = c;
        }
        if (sum > 0)
            most.value = std::to_string(bestCpu) + " (" +
                         std::to_string(static_cast<int>(std::lround(100.0 * best / sum))) + " %)";
        else
            most.absent = "not present: the sampler measured no CPU time of " + gone;
        env.facts.push_back(most);
    }
    return env;
}

} // namespace ringlab
