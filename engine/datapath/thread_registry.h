// SPDX-License-Identifier: GPL-2.0-or-later
// Named engine threads with their CPU clocks, wakeup counts and counter blocks, so the
// sampler can measure each one from outside.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <array>
#include <atomic>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "engine/datapath/counters.h"
#include "engine/datapath/thread_placement.h"

namespace ringlab {

struct ThreadEntry {
    std::string name;
    pid_t tid = 0;
    clockid_t cpuClock{};
    Counters counters;
    std::atomic<bool> exited{false};
    // A polling thread's longest time between two polls since the sampler last took it
    // (the sampler resets it); measuresGaps says the thread records it at all.
    std::atomic<std::int64_t> longestGapNs{0};
    std::atomic<std::int64_t> lastPollNs{0}; // a gap still going counts at the sample too
    std::atomic<bool> measuresGaps{false};
    // The thread's CPU time by the CPU it was on at each sample (the sampler adds each
    // interval's CPU time to the CPU it finds the thread on; every CPU Linux can name). Written by
    // the sampler only, read by the control thread at the stop.
    static constexpr int kTrackedCpus = CPU_SETSIZE;
    std::array<std::atomic<std::int64_t>, kTrackedCpus> cpuNsOn{};
    bool countersOnly = false;        // a counter block without a thread of its own
    std::int64_t finalCpuNs = 0;      // valid once exited
    std::uint64_t finalVoluntary = 0; // valid once exited
};

// The calling engine thread's counter block (set by EngineThread).
Counters &currentCounters();

class ThreadRegistry {
  public:
    std::shared_ptr<ThreadEntry> enter(std::string name); // called by the new thread itself
    // A counter block for work done on behalf of the engine by threads that are not its own
    // (the control thread priming rings). Its writers must be serialised by the caller.
    std::shared_ptr<ThreadEntry> counterBlock(std::string name);
    void leave(ThreadEntry &e); // called by the thread before it ends
    std::vector<std::shared_ptr<ThreadEntry>> entries() const;
    void remove(const std::shared_ptr<ThreadEntry> &e);

    // Reads a live thread's CPU time; false when the thread has gone.
    static bool cpuNs(const ThreadEntry &e, std::int64_t &out);
    // Voluntary context switches of a live thread from /proc; false when gone.
    static bool voluntarySwitches(const ThreadEntry &e, std::uint64_t &out);
    // The CPU a live thread is on, or last ran on (/proc stat field 39); -1 when gone.
    static int currentCpu(const ThreadEntry &e);

    // Where threads run (threads.*): each thread applies it to itself as it starts; place()
    // also moves the live ones. Check it first (checkPlacement): a failure here is the
    // kernel's, such as a CPU taken away since.
    void setPlacement(const Placement &p);
    Status place(const Placement &p);
    // The first failure of a thread that could not apply the placement at its start, once.
    std::string takePlacementFailure();

  private:
    mutable std::mutex mutex_;
    std::vector<std::shared_ptr<ThreadEntry>> entries_;
    Placement placement_;
    std::string placementFailure_;
};

// A std::jthread that names itself, registers with the registry and leaves it on exit.
class EngineThread {
  public:
    using Body = std::function<void(std::stop_token, ThreadEntry &)>;
    EngineThread() = default;
    EngineThread(ThreadRegistry &reg, std::string name, Body body);
    EngineThread(EngineThread &&) = default;
    EngineThread &operator=(EngineThread &&) = default;
    ~EngineThread() { stop(); }

    void requestStop()
    {
        if (thread_.joinable()) thread_.request_stop();
    }
    void stop()
    {
        if (thread_.joinable()) {
            thread_.request_stop();
            thread_.join();
        }
    }

  private:
    std::jthread thread_;
};

} // namespace ringlab
