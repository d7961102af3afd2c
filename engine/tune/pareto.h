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

// Where a point stands against the front of the means, as a chart draws it.
enum class FrontPlace {
    On,          // nothing beats it, and no other point's means are as good on every metric
                 // and better on one
    WithinNoise, // another point's means are better, but not significantly (nothing beats it)
    Beaten,      // another point beats it (as paretoFront)
};

// The front of the means among the points paretoFront keeps: its points never get worse on
// one metric without getting better on another, so over two metrics, sorted on the first,
// they are monotone on the second (a staircase). `beatenBy` as paretoFront's.
std::vector<FrontPlace> frontOfMeans(const std::vector<std::vector<Estimate>> &points,
                                     const std::vector<int> &directions,
                                     std::vector<int> *beatenBy = nullptr);

} // namespace ringlab
