// SPDX-License-Identifier: GPL-2.0-or-later
// The TX coalesce timer, modelled as the kernel's hrtimer: hrtimer_start() stores the
// expiry in the timer queue and reprograms the clock-event device only when the new expiry
// is the earliest. Here an arm stores the expiry (an atomic) and the timerfd, the clock
// event of the clean thread, is reprogrammed only when the expiry moves earlier than what
// it holds; when the timerfd fires, the clean thread finds the current expiry and sleeps
// again if it moved later (so a timer pushed out per frame costs no system call per frame).
//
// A cancel clears the expiry and leaves the timerfd as it is, as the kernel leaves the
// clock event of another CPU when it removes a timer there: it fires once into the clean
// thread, which finds nothing due.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>

namespace ringlab {

class CoalesceTimer {
  public:
    CoalesceTimer(); // throws std::system_error when no timerfd can be made
    ~CoalesceTimer();
    CoalesceTimer(const CoalesceTimer &) = delete;
    CoalesceTimer &operator=(const CoalesceTimer &) = delete;

    // The descriptor the clean thread polls (readable when the programmed expiry passed).
    int fd() const { return fd_; }

    // hrtimer_start(): expire at `expiryNs` (CLOCK_MONOTONIC), replacing any expiry. Any
    // thread. A system call only when the expiry moves earlier than the programmed one.
    void start(std::int64_t expiryNs)
    {
        const std::int64_t old = expiry_.exchange(expiryNs, std::memory_order_seq_cst);
        // Pushed out (the usual case): the programmed expiry, no later than the old one,
        // fires first and finds this one.
        if (old != kIdle && expiryNs >= old) return;
        if (expiryNs >= programmed_.load(std::memory_order_seq_cst)) return;
        reprogram();
    }
    // hrtimer_try_to_cancel(). Any thread.
    void cancel() { expiry_.store(kIdle, std::memory_order_seq_cst); }
    bool armed() const { return expiry_.load(std::memory_order_relaxed) != kIdle; }
    // When it expires (CLOCK_MONOTONIC, or a test's clock), 0 when idle.
    std::int64_t expiryNs() const { return expiry_.load(std::memory_order_relaxed); }

    // The clean thread, when fd() is readable: true when the timer expired (and is now
    // idle), false when it was cancelled or pushed out (then the timerfd holds the new one).
    bool expire(std::int64_t nowNs);

    // timerfd_settime() calls so far (tests and benchmarks read the saving).
    std::uint64_t reprograms() const { return reprograms_.load(std::memory_order_relaxed); }

  private:
    static constexpr std::int64_t kIdle = 0;
    static constexpr std::int64_t kNothing = std::numeric_limits<std::int64_t>::max();

    // Programs the current expiry if it is earlier than what the timerfd holds.
    void reprogram();
    // Under lock_: sets the timerfd to `expiryNs`.
    void program(std::int64_t expiryNs);

    int fd_ = -1;
    std::atomic<std::int64_t> expiry_{kIdle};        // the timer queue: one timer
    std::atomic<std::int64_t> programmed_{kNothing}; // what the timerfd holds
    std::atomic<std::uint64_t> reprograms_{0};
    std::mutex lock_; // the clock event's: taken only to program it
};

} // namespace ringlab
