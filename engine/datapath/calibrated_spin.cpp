// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/calibrated_spin.h"

#include <x86intrin.h>

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
    const std::int64_t deadline = threadCpuNs() + ns;
    while (threadCpuNs() < deadline)
        spinTsc(1000, perNs);
}

} // namespace ringlab
