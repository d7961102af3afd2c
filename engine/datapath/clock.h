// SPDX-License-Identifier: GPL-2.0-or-later
// Monotonic time in nanoseconds (vDSO, no system call), and the calling thread's CPU time.
#pragma once

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
