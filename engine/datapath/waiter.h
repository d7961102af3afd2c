// SPDX-License-Identifier: GPL-2.0-or-later
// A futex a thread sleeps on until a deadline or a wake-up: the engine's wait queue. Futex
// timeouts honour the thread's timer slack exactly as clock_nanosleep does, so sleeps here
// have usleep_range semantics while staying wakeable for stop and reconfiguration.
#pragma once

#include <atomic>
#include <cstdint>

namespace ringlab {

class Waiter {
  public:
    // Sleeps until `deadlineNs` (CLOCK_MONOTONIC, absolute; < 0 means no deadline) unless a
    // wake() arrives first. Returns true when woken, false on timeout.
    bool waitUntil(std::int64_t deadlineNs);
    // Wakes the sleeper if there is one; costs a system call only then.
    void wake();
    // A wake() that arrived while nobody slept is kept for the next waitUntil.
    void clear() { word_.store(0, std::memory_order_relaxed); }
    // A wake() is pending (sent, not yet consumed by a wait, clear() or consume()).
    bool pending() const { return word_.load(std::memory_order_relaxed) != 0; }
    // Takes a pending wake() as waitUntil does, without waiting (a logic test's step).
    bool consume() { return word_.exchange(0, std::memory_order_acquire) != 0; }

  private:
    std::atomic<std::uint32_t> word_{0}; // 1 = wake pending
    std::atomic<std::uint32_t> sleeping_{0};
};

// Sets the calling thread's timer slack (prctl PR_SET_TIMERSLACK) when it differs from the
// last value set by this thread. 0 is stored as 1 ns, since the kernel reads 0 as "default".
void setTimerSlackNs(std::int64_t ns);

} // namespace ringlab
