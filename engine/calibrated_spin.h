// SPDX-License-Identifier: GPL-2.0-or-later
// Busy work of a given number of nanoseconds of CPU time: the processing
// stage's per-packet work and the target model's declared costs (cost.* tunables).
#pragma once

#include <cstdint>

namespace ringlab {

class CalibratedSpin {
  public:
    // At least kClockedNs: until the thread's CPU clock has advanced by `ns`. Shorter: a
    // loop calibrated once per process in CPU time.
    static constexpr std::int64_t kClockedNs = 10000;
    static void spinNs(std::int64_t ns);
    static double loopsPerNs(); // measured once per process
};

} // namespace ringlab
