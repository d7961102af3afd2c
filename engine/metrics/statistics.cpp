// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/statistics.h"

#include <algorithm>
#include <cmath>

namespace ringlab {

double tQuantile975(int dof)
{
    static const double table[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                   2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                   2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                   2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (dof < 1) return 0;
    if (dof <= 30) return table[dof];
    if (dof <= 60) return 2.042 - (2.042 - 2.000) * (dof - 30) / 30.0;
    if (dof <= 120) return 2.000 - (2.000 - 1.980) * (dof - 60) / 60.0;
    return 1.960;
}

Estimate estimate(const std::vector<double> &values, std::size_t minBatch)
{
    Estimate e;
    std::vector<double> v;
    for (double x : values)
        if (std::isfinite(x)) v.push_back(x);
    e.n = v.size();
    if (v.empty()) return e;
    double sum = 0;
    for (double x : v)
        sum += x;
    e.mean = sum / static_cast<double>(v.size());
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t m = sorted.size() / 2;
    e.median = sorted.size() % 2 ? sorted[m] : 0.5 * (sorted[m - 1] + sorted[m]);
    e.min = sorted.front();
    e.max = sorted.back();
    e.p99 = sorted[std::min(sorted.size() - 1,
                            static_cast<std::size_t>(std::ceil(0.99 * sorted.size())) - 1)];
    if (v.size() < 2) return e;

    const std::size_t b = std::min<std::size_t>(10, v.size() / std::max<std::size_t>(1, minBatch));
    if (b < 3) return e;                   // too short for an interval
    const std::size_t size = v.size() / b; // the remainder is left out of the batches
    std::vector<double> means(b, 0.0);
    for (std::size_t k = 0; k < b; ++k) {
        for (std::size_t j = 0; j < size; ++j)
            means[k] += v[k * size + j];
        means[k] /= static_cast<double>(size);
    }
    double mm = 0;
    for (double x : means)
        mm += x;
    mm /= static_cast<double>(b);
    double var = 0;
    for (double x : means)
        var += (x - mm) * (x - mm);
    var /= static_cast<double>(b - 1);
    e.batches = static_cast<int>(b);
    e.ciHalf = tQuantile975(static_cast<int>(b) - 1) * std::sqrt(var / static_cast<double>(b));
    return e;
}

Difference compareEstimates(const Estimate &a, const Estimate &b)
{
    Difference d;
    d.a = a.mean;
    d.b = b.mean;
    d.diff = b.mean - a.mean;
    d.pct = a.mean != 0 ? d.diff / std::fabs(a.mean) * 100.0 : 0.0;
    // Standard errors back from the half-widths, then Welch-Satterthwaite.
    const double ta = a.batches > 1 ? tQuantile975(a.batches - 1) : 0,
                 tb = b.batches > 1 ? tQuantile975(b.batches - 1) : 0;
    const double sa = ta > 0 ? a.ciHalf / ta : 0, sb = tb > 0 ? b.ciHalf / tb : 0;
    const double se2 = sa * sa + sb * sb;
    if (se2 <= 0 || a.batches < 2 || b.batches < 2) {
        d.ciHalf = 0;
        d.significant = false;
        return d;
    }
    const double num = se2 * se2;
    const double den =
        (sa * sa * sa * sa) / (a.batches - 1) + (sb * sb * sb * sb) / (b.batches - 1);
    const int dof = den > 0 ? static_cast<int>(std::floor(num / den)) : a.batches + b.batches - 2;
    d.ciHalf = tQuantile975(std::max(1, dof)) * std::sqrt(se2);
    d.significant = std::fabs(d.diff) > d.ciHalf;
    return d;
}

} // namespace ringlab
