// SPDX-License-Identifier: GPL-2.0-or-later
// The Pareto front of measured points: the points no other point beats. With noise, "beats"
// must be significant: B beats A when B is significantly better on at least one metric and
// significantly worse on none (95 % Welch intervals, as compare). Where a metric has no
// interval on either side (fewer than 3 batches or repeats), the means decide.
#pragma once

#include <vector>

#include "engine/metrics/statistics.h"

namespace ringlab {

// How B stands against A on one metric whose better direction is `direction` (+1 higher,
// -1 lower): +1 significantly better, -1 significantly worse, 0 within the noise.
int significantlyBetter(const Estimate &a, const Estimate &b, int direction);

// points[i][m]: point i's estimate of metric m; directions[m] as above. Returns, per
// point, whether it is on the front; `beatenBy` (when given) names one point that beats
// each point off the front (-1 on it).
std::vector<bool> paretoFront(const std::vector<std::vector<Estimate>> &points,
                              const std::vector<int> &directions,
                              std::vector<int> *beatenBy = nullptr);

} // namespace ringlab
