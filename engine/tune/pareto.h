// SPDX-License-Identifier: GPL-2.0-or-later
// The Pareto front of measured points. A point leaves the front only when another point's
// means are at least as good on every metric and better on one (it dominates): the point with
// the best mean on an axis is always on it, however wide its interval. Noise decides how far
// off a dominated point is: "beaten" when a point dominating it is also significantly better
// on one metric (95 % Welch intervals, as compare), "within noise" when every such lead lies
// inside the intervals. Where a metric has no interval on either side (fewer than 3 batches or
// repeats), the means decide.
#pragma once

#include <vector>

#include "engine/metrics/statistics.h"

namespace ringlab {

// How B stands against A on one metric whose better direction is `direction` (+1 higher,
// -1 lower): +1 significantly better, -1 significantly worse, 0 within the noise.
int significantlyBetter(const Estimate &a, const Estimate &b, int direction);

// Where a point stands against the others, as the CLI, the chart and the tuner's report say it.
enum class FrontPlace {
    On,          // no other point's means dominate it
    WithinNoise, // dominated on the means, but no dominating point is significantly better
    Beaten,      // a point dominating it is significantly better on at least one metric
};

// points[i][m]: point i's estimate of metric m; directions[m] as above (0: not an axis).
// `by` (when given) names, per point off the front, the point that puts it there: one that
// beats it when any does, else one whose means dominate it (-1 on the front). A metric one of
// two points lacks gives no verdict between them. Over two metrics, sorted on the first, the
// points On are monotone on the second (a staircase).
std::vector<FrontPlace> frontPlaces(const std::vector<std::vector<Estimate>> &points,
                                    const std::vector<int> &directions,
                                    std::vector<int> *by = nullptr);

// Per point, whether it is on the front (frontPlaces' On).
std::vector<bool> paretoFront(const std::vector<std::vector<Estimate>> &points,
                              const std::vector<int> &directions, std::vector<int> *by = nullptr);

} // namespace ringlab
