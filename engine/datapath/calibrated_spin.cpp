// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/calibrated_spin.h"

#include <x86intrin.h>

#include <algorithm>
#include <cstdint>

#include "engine/datapath/clock.h"

namespace ringlab {

double CalibratedSpin::tscPerNs()
{
    static double value = [] {
        // The TSC against the monotonic clock over 20 ms: both count wall time, so being
        // preempted meanwhile does not skew the ratio (an invariant TSC is assumed, as DPDK's
        // rte_delay_us_block does).
        const std::uint64_t c0 = __rdtsc();
        const std::int64_t t0 = nowNs();
        std::int64_t t1 = t0;
        while ((t1 = nowNs()) - t0 < 20'000'000)
            cpuRelax();
        const double ratio = static_cast<double>(__rdtsc() - c0) / static_cast<double>(t1 - t0);
        return ratio > 0 ? ratio : 1.0;
    }();
    return value;
}

namespace {
// What one read of the thread's CPU clock costs, the fastest of 200: measured once.
std::int64_t clockReadNs()
{
    static const std::int64_t value = [] {
        std::int64_t best = INT64_MAX;
        std::int64_t before = threadCpuNs();
        for (int k = 0; k < 200; ++k) {
            const std::int64_t now = threadCpuNs();
            best = std::min(best, now - before);
            before = now;
        }
        return best;
    }();
    return value;
}

// Busy for `ns` of wall time by the TSC: no system call, whatever the loop's speed is at the
// moment (the host's other hyperthread, frequency, steal).
void spinTsc(std::int64_t ns, double perNs)
{
    const std::uint64_t end =
        __rdtsc() + static_cast<std::uint64_t>(static_cast<double>(ns) * perNs);
    while (__rdtsc() < end)
        asm volatile("" ::: "memory");
}
} // namespace

void CalibratedSpin::spinNs(std::int64_t ns)
{
    if (ns <= 0) return;
    const double perNs = tscPerNs();
    if (ns < kClockedNs) {
        spinTsc(ns, perNs); // too short to be preempted in, as a rule
        return;
    }
    // Long enough to read the thread's CPU clock (a system call) now and then: spin until
    // the thread has used `ns` of CPU, so that the charge shows exactly in its CPU time even
    // when the thread is preempted meanwhile.
    // Chunks of at most 1 us, the last one only what is left. Reading the clock is a system
    // call (about 1 us in a VM, more under a sanitizer) whose return after the last read
    // would add to the charge: the deadline is that much earlier.
    const std::int64_t deadline = threadCpuNs() + ns - clockReadNs();
    for (std::int64_t now = threadCpuNs(); now < deadline; now = threadCpuNs())
        spinTsc(std::min<std::int64_t>(deadline - now, 1000), perNs);
}

} // namespace ringlab
