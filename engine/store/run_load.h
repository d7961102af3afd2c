// SPDX-License-Identifier: GPL-2.0-or-later
// How much CPU other processes took during each of a job's runs (the sample metric
// neighbour_cpu_ms_per_s), and a warning when that differed enough between the runs to move
// their figures: sweeps, tunes and reproductions compare runs made minutes apart.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/session_store.h"

namespace ringlab {

// Runs whose neighbours' CPU differs by more than this are not alike: a tenth of a CPU.
inline constexpr double kLoadSpreadMsPerS = 100;
// The sample metric that measures it.
inline constexpr std::string_view kNeighbourMetric = "neighbour_cpu_ms_per_s";
// The engine's own CPU, which a neighbour's difference is weighed against.
inline constexpr std::string_view kEngineCpuMetric = "engine_cpu_ms_per_s";

struct LoadSpread {
    int measured = 0; // sessions that recorded the metric
    double minMsPerS = 0, maxMsPerS = 0;
    std::int64_t minSession = 0, maxSession = 0;
};

// Each session's mean after `warmupS`; sessions without the metric are left out.
LoadSpread loadSpread(SessionStore &store, const std::vector<std::int64_t> &sessions,
                      double warmupS);
// "" when the spread is within kLoadSpreadMsPerS, else the warning, naming both sessions.
std::string loadSpreadWarning(const LoadSpread &spread);

} // namespace ringlab
