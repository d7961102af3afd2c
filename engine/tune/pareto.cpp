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

namespace {

// j's means dominate i's: as good on every metric with a direction and better on one.
bool dominates(const std::vector<Estimate> &j, const std::vector<Estimate> &i,
               const std::vector<int> &directions)
{
    bool better = false;
    for (std::size_t m = 0; m < directions.size(); ++m) {
        if (directions[m] == 0) continue;
        if (m >= i.size() || m >= j.size()) return false; // a metric one lacks: no verdict
        const double a = i[m].mean * directions[m], b = j[m].mean * directions[m]; // larger: better
        if (b < a) return false;
        better |= b > a;
    }
    return better;
}

// j, dominating i on the means, is also significantly better on one metric. (It cannot be
// significantly worse on any: its means are as good on each.)
bool beats(const std::vector<Estimate> &j, const std::vector<Estimate> &i,
           const std::vector<int> &directions)
{
    for (std::size_t m = 0; m < directions.size(); ++m)
        if (significantlyBetter(i[m], j[m], directions[m]) > 0) return true;
    return false;
}

} // namespace

std::vector<FrontPlace> frontPlaces(const std::vector<std::vector<Estimate>> &points,
                                    const std::vector<int> &directions, std::vector<int> *by)
{
    const std::size_t n = points.size();
    std::vector<FrontPlace> out(n, FrontPlace::On);
    if (by) by->assign(n, -1);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n && out[i] != FrontPlace::Beaten; ++j) {
            if (j == i || !dominates(points[j], points[i], directions)) continue;
            const bool beaten = beats(points[j], points[i], directions);
            if (out[i] == FrontPlace::On || beaten) {
                out[i] = beaten ? FrontPlace::Beaten : FrontPlace::WithinNoise;
                if (by) (*by)[i] = static_cast<int>(j);
            }
        }
    return out;
}

std::vector<bool> paretoFront(const std::vector<std::vector<Estimate>> &points,
                              const std::vector<int> &directions, std::vector<int> *by)
{
    const std::vector<FrontPlace> places = frontPlaces(points, directions, by);
    std::vector<bool> front(places.size());
    for (std::size_t i = 0; i < places.size(); ++i)
        front[i] = places[i] == FrontPlace::On;
    return front;
}

} // namespace ringlab
