// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/calibrated_spin.h"

#include <algorithm>
#include <iterator>

#include "engine/clock.h"

namespace ringlab {

namespace {
inline void spinLoops(std::uint64_t loops)
{
    for (std::uint64_t k = 0; k < loops; ++k)
        asm volatile("" ::: "memory");
}
} // namespace

double CalibratedSpin::loopsPerNs()
{
    static double value = [] {
        // Timed in this thread's CPU time, so that the rounds measure the loop, not how much
        // of the CPU the thread got: a calibration while the machine is busy would otherwise
        // make every spin short. The median of a few rounds.
        constexpr int kRounds = 5;
        double rates[kRounds];
        for (double &rate : rates) {
            const std::uint64_t loops = 2'000'000;
            const std::int64_t t0 = threadCpuNs();
            spinLoops(loops);
            const double dt = static_cast<double>(threadCpuNs() - t0);
            rate = dt > 0 ? static_cast<double>(loops) / dt : 1.0;
        }
        std::sort(std::begin(rates), std::end(rates));
        return rates[kRounds / 2];
    }();
    return value;
}

void CalibratedSpin::spinNs(std::int64_t ns)
{
    if (ns <= 0) return;
    const double perNs = loopsPerNs();
    if (ns < kClockedNs) {
        spinLoops(static_cast<std::uint64_t>(static_cast<double>(ns) * perNs));
        return;
    }
    // Long enough to read the thread's CPU clock (a system call) now and then: spin until
    // the thread has used `ns` of CPU, so that the charge shows exactly in its CPU time
    // whatever the loop's speed is at the moment (the other hyperthread, frequency, steal).
    const std::int64_t deadline = threadCpuNs() + ns;
    const auto chunk = static_cast<std::uint64_t>(500.0 * perNs);
    while (threadCpuNs() < deadline)
        spinLoops(chunk);
}

} // namespace ringlab
