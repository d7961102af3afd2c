// SPDX-License-Identifier: GPL-2.0-or-later
// The defaults of a run, defined once for every program that starts one.
#pragma once

#include <cstdint>

namespace ringlab {

inline constexpr std::int64_t kSampleIntervalNs = 100'000'000; // 10 samples a second
inline constexpr std::int64_t kRecorderFlushNs = 500'000'000;  // a crash loses at most this
inline constexpr double kWarmupS = 1.0;                        // left out of summaries

} // namespace ringlab
