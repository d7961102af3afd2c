// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/tune/pareto.h"

namespace ringlab {

int significantlyBetter(const Estimate &a, const Estimate &b, int direction)
{
    if (direction == 0 || a.n == 0 || b.n == 0) return 0;
    bool differs = false;
    if (a.batches >= 3 && b.batches >= 3) {
        if (a.ciHalf == 0 && b.ciHalf == 0)
            differs = a.mean != b.mean; // no noise on either side: any difference is real
        else
            differs = compareEstimates(a, b).significant;
    } else {
        differs = a.mean != b.mean; // no interval to judge by: the means decide
    }
    if (!differs) return 0;
    return (b.mean > a.mean) == (direction > 0) ? +1 : -1;
}

std::vector<bool> paretoFront(const std::vector<std::vector<Estimate>> &points,
                              const std::vector<int> &directions, std::vector<int> *beatenBy)
{
    const std::size_t n = points.size();
    std::vector<bool> front(n, true);
    if (beatenBy) beatenBy->assign(n, -1);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n && front[i]; ++j) {
            if (i == j) continue;
            bool better = false, worse = false;
            for (std::size_t m = 0; m < directions.size() && !worse; ++m) {
                if (m >= points[i].size() || m >= points[j].size()) {
                    worse = true; // a metric one of them lacks: no verdict
                    break;
                }
                const int s = significantlyBetter(points[i][m], points[j][m], directions[m]);
                better |= s > 0;
                worse |= s < 0;
            }
            if (better && !worse) {
                front[i] = false;
                if (beatenBy) (*beatenBy)[i] = static_cast<int>(j);
            }
        }
    return front;
}

std::vector<FrontPlace> frontOfMeans(const std::vector<std::vector<Estimate>> &points,
                                     const std::vector<int> &directions, std::vector<int> *beatenBy)
{
    const std::vector<bool> kept = paretoFront(points, directions, beatenBy);
    // j's means dominate i's: as good on every metric with a direction, better on one.
    auto dominates = [&](std::size_t j, std::size_t i) {
        bool better = false;
        for (std::size_t m = 0; m < directions.size(); ++m) {
            if (directions[m] == 0) continue;
            if (m >= points[i].size() || m >= points[j].size()) return false;
            const double a = points[i][m].mean * directions[m],
                         b = points[j][m].mean * directions[m]; // larger is better
            if (b < a) return false;
            better |= b > a;
        }
        return better;
    };
    std::vector<FrontPlace> out(points.size(), FrontPlace::On);
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (!kept[i]) {
            out[i] = FrontPlace::Beaten;
            continue;
        }
        for (std::size_t j = 0; j < points.size(); ++j)
            if (j != i && dominates(j, i)) {
                out[i] = FrontPlace::WithinNoise;
                break;
            }
    }
    return out;
}

} // namespace ringlab
