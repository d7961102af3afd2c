// SPDX-License-Identifier: GPL-2.0-or-later
// A shared work queue with N worker threads (kworker/N), as the kernel's system workqueue:
// refill work, per-packet hand-off work and housekeeping all wait in the same queue, so
// queueing delay is real. A work item is pending at most once; it may be queued again as
// soon as it starts to run, and is never run by two workers at once (as in Linux, a work
// item is non-reentrant): queued again while it runs, it runs again after, on that worker.
// Which items are running is the queue's to know (by address, as the kernel's busy hash), so
// an item is not touched after its function has returned.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/datapath/clock.h"
#include "engine/datapath/packet.h"
#include "engine/datapath/thread_registry.h"

namespace ringlab {

class WorkQueue {
  public:
    // Workers are named "<name>/N". `clock`: a delayed item's deadline (a ManualClock only
    // with no workers: they wait on the monotonic clock).
    WorkQueue(ThreadRegistry &reg, int threads, const std::string &name = "kworker",
              const Clock &clock = monotonicClock());
    ~WorkQueue() { stop(); }
    WorkQueue(const WorkQueue &) = delete;
    WorkQueue &operator=(const WorkQueue &) = delete;

    // False when the item is already pending (nothing queued).
    bool queue(WorkItem *w);
    bool queueDelayed(WorkItem *w, std::int64_t delayNs);
    // Stops the workers; items not yet run are discarded.
    void stop();
    std::size_t depth() const;

    // No workers (`threads` 0), for a logic test on a ManualClock: runs on the calling thread
    // what is queued and the delayed items due at the clock's time, in order, until none is
    // left (an item queued meanwhile runs too; one delayed into the future waits). Returns how
    // many items ran.
    std::size_t runDue();
    // The earliest delayed item's deadline; -1: none.
    std::int64_t nextDelayedNs() const;

  private:
    void worker(std::stop_token st);
    void enqueueLocked(WorkItem *w);
    void moveDueLocked(std::int64_t nowNs);

    const Clock &clock_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    WorkItem *head_ = nullptr;
    WorkItem *tail_ = nullptr;
    std::size_t depth_ = 0;
    std::multimap<std::int64_t, WorkItem *> delayed_;
    std::vector<const WorkItem *> busy_;  // running now, one per busy worker
    std::vector<const WorkItem *> rerun_; // of those, queued again while running
    int idle_ = 0;
    bool stopping_ = false;
    std::vector<EngineThread> workers_;
};

} // namespace ringlab
