// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/run_load.h"

#include <cstdio>
#include <numeric>

#include "engine/store/session_compare.h"

namespace ringlab {

LoadSpread loadSpread(SessionStore &store, const std::vector<std::int64_t> &sessions,
                      double warmupS)
{
    LoadSpread out;
    for (const std::int64_t id : sessions) {
        const CompareSide side = compareSideOf(store, {id}, warmupS);
        const auto it = side.values.find(std::string(kNeighbourMetric));
        if (it == side.values.end() || it->second.empty()) continue;
        const double mean = std::accumulate(it->second.begin(), it->second.end(), 0.0) /
                            static_cast<double>(it->second.size());
        if (!out.measured || mean < out.minMsPerS) out.minMsPerS = mean, out.minSession = id;
        if (!out.measured || mean > out.maxMsPerS) out.maxMsPerS = mean, out.maxSession = id;
        ++out.measured;
    }
    return out;
}

std::string loadSpreadWarning(const LoadSpread &s)
{
    if (s.measured < 2 || s.maxMsPerS - s.minMsPerS <= kLoadSpreadMsPerS) return {};
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "warning: the machine's load differed between these runs: other processes "
                  "took %.0f ms/s of CPU during session %lld and %.0f ms/s during session %lld "
                  "(more than %.0f ms/s apart); their figures may differ by the neighbour, not "
                  "by the settings",
                  s.minMsPerS, static_cast<long long>(s.minSession), s.maxMsPerS,
                  static_cast<long long>(s.maxSession), kLoadSpreadMsPerS);
    return buf;
}

} // namespace ringlab
