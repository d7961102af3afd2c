// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine reproduce CASE|all`: each reference case's before and after profiles run
// interleaved as two groups of repeats, then the seed's figures beside the measured ones with
// 95 % intervals and a verdict per metric.
#pragma once

#include <cstdint>
#include <string>

namespace ringlab {

struct ReproduceOptions {
    std::string which = "all"; // a case name or all
    int repeat = 3;
    std::int64_t durationNs = 5'000'000'000;
    double warmupS = 1.0;
    std::string db; // empty: the default database
    bool markdown = false;
    std::string device;  // --device; empty: the profiles' own
    std::string traffic; // --traffic (lab)
};

// 0; 1 when a run failed or was interrupted; 2 for bad input.
int reproduceCommand(const ReproduceOptions &o);

} // namespace ringlab
