// SPDX-License-Identifier: GPL-2.0-or-later
// Busy work of a given number of nanoseconds: the processing
// stage's per-packet work and the target model's declared costs (cost.* tunables).
#pragma once

#include <cstdint>

namespace ringlab {

class CalibratedSpin {
  public:
    // At least kClockedNs: until the thread's CPU clock has advanced by `ns`. Shorter: by
    // the TSC, calibrated once per process against the monotonic clock.
    static constexpr std::int64_t kClockedNs = 10000;
    static void spinNs(std::int64_t ns);
    static double tscPerNs(); // measured once per process (20 ms)
};

} // namespace ringlab
