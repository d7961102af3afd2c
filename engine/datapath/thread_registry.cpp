// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/thread_registry.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "engine/datapath/clock.h"

namespace ringlab {
namespace {
thread_local Counters *tlsCounters = nullptr;
Counters &orphanCounters()
{
    thread_local Counters c; // threads outside the engine never reach the sampler
    return c;
}
} // namespace

Counters &currentCounters()
{
    return tlsCounters ? *tlsCounters : orphanCounters();
}

std::shared_ptr<ThreadEntry> ThreadRegistry::enter(std::string name)
{
    auto e = std::make_shared<ThreadEntry>();
    e->name = std::move(name);
    e->tid = static_cast<pid_t>(syscall(SYS_gettid));
    pthread_getcpuclockid(pthread_self(), &e->cpuClock);
    pthread_setname_np(pthread_self(), e->name.substr(0, 15).c_str());
    tlsCounters = &e->counters;
    std::lock_guard lock(mutex_);
    // Under the lock, so that a place() racing this start cannot be undone by it.
    if (auto st = applyPlacement(0, e->name, placement_); !st.ok() && placementFailure_.empty())
        placementFailure_ = st.error;
    entries_.push_back(e);
    return e;
}

void ThreadRegistry::setPlacement(const Placement &p)
{
    std::lock_guard lock(mutex_);
    placement_ = p;
}

Status ThreadRegistry::place(const Placement &p)
{
    std::lock_guard lock(mutex_);
    placement_ = p;
    for (const auto &e : entries_)
        if (!e->countersOnly && !e->exited.load(std::memory_order_acquire))
            if (auto st = applyPlacement(e->tid, e->name, p); !st.ok()) return st;
    return Status::success();
}

std::string ThreadRegistry::takePlacementFailure()
{
    std::lock_guard lock(mutex_);
    return std::exchange(placementFailure_, {});
}

std::shared_ptr<ThreadEntry> ThreadRegistry::counterBlock(std::string name)
{
    auto e = std::make_shared<ThreadEntry>();
    e->name = std::move(name);
    e->countersOnly = true;
    std::lock_guard lock(mutex_);
    entries_.push_back(e);
    return e;
}

void ThreadRegistry::leave(ThreadEntry &e)
{
    e.finalCpuNs = threadCpuNs();
    rusage ru{};
    getrusage(RUSAGE_THREAD, &ru);
    e.finalVoluntary = static_cast<std::uint64_t>(ru.ru_nvcsw);
    tlsCounters = nullptr;
    e.exited.store(true, std::memory_order_release);
}

std::vector<std::shared_ptr<ThreadEntry>> ThreadRegistry::entries() const
{
    std::lock_guard lock(mutex_);
    return entries_;
}

void ThreadRegistry::remove(const std::shared_ptr<ThreadEntry> &e)
{
    std::lock_guard lock(mutex_);
    entries_.erase(std::remove(entries_.begin(), entries_.end(), e), entries_.end());
}

bool ThreadRegistry::cpuNs(const ThreadEntry &e, std::int64_t &out)
{
    timespec ts;
    if (clock_gettime(e.cpuClock, &ts) != 0) return false;
    out = std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
    return true;
}

bool ThreadRegistry::voluntarySwitches(const ThreadEntry &e, std::uint64_t &out)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/status", static_cast<int>(e.tid));
    FILE *f = std::fopen(path, "re");
    if (!f) return false;
    char line[256];
    bool found = false;
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, "voluntary_ctxt_switches:", 24) == 0) {
            out = std::strtoull(line + 24, nullptr, 10);
            found = true;
            break;
        }
    }
    std::fclose(f);
    return found;
}

int ThreadRegistry::currentCpu(const ThreadEntry &e)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", static_cast<int>(e.tid));
    FILE *f = std::fopen(path, "re");
    if (!f) return -1;
    char line[1024];
    const bool got = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    // Fields after the name (which may hold spaces and parentheses) start at field 3.
    const char *p = got ? std::strrchr(line, ')') : nullptr;
    if (!p) return -1;
    ++p;
    for (int field = 3; field <= 39; ++field) {
        while (*p == ' ')
            ++p;
        if (!*p) return -1;
        if (field == 39) return static_cast<int>(std::strtol(p, nullptr, 10));
        while (*p && *p != ' ')
            ++p;
    }
    return -1;
}

EngineThread::EngineThread(ThreadRegistry &reg, std::string name, Body body)
    : thread_([&reg, name = std::move(name), body = std::move(body)](std::stop_token st) {
          auto entry = reg.enter(name);
          body(st, *entry);
          reg.leave(*entry);
      })
{
}

} // namespace ringlab
