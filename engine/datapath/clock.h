// SPDX-License-Identifier: GPL-2.0-or-later
// Monotonic time in nanoseconds (vDSO, no system call), and the calling thread's CPU time.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

namespace ringlab {

// A time no one read: a stage that had no need of the clock passes it on.
inline constexpr std::int64_t kNoReading = -1;

inline std::int64_t nowNs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Where a datapath mechanism reads the time: the monotonic clock, or a logic test's virtual
// one, so that the test can say at which exact time each arm, flush and fire happens.
class Clock {
  public:
    virtual ~Clock() = default;
    virtual std::int64_t now() const = 0;
};

class MonotonicClock final : public Clock {
  public:
    std::int64_t now() const override { return nowNs(); }
};
inline const Clock &monotonicClock()
{
    static const MonotonicClock clock;
    return clock;
}

// A test's clock: it stands still until told to move.
class ManualClock final : public Clock {
  public:
    explicit ManualClock(std::int64_t startNs = 1'000'000'000) : ns_(startNs) {}
    std::int64_t now() const override { return ns_.load(std::memory_order_relaxed); }
    void set(std::int64_t ns) { ns_.store(ns, std::memory_order_relaxed); }
    void advance(std::int64_t ns) { ns_.fetch_add(ns, std::memory_order_relaxed); }

  private:
    std::atomic<std::int64_t> ns_;
};

// CPU time used by the calling thread (a system call: the vDSO does not serve this clock).
inline std::int64_t threadCpuNs()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

inline timespec toTimespec(std::int64_t ns)
{
    return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

inline void cpuRelax()
{
    __builtin_ia32_pause();
}

} // namespace ringlab
