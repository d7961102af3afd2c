// SPDX-License-Identifier: GPL-2.0-or-later
// Statistics for summaries and comparisons. Consecutive samples of a run are correlated,
// so the confidence interval of a mean uses batch means: the series is cut into b
// contiguous batches of at least `minBatch` values (b at most 10), and the interval is
// t(b-1) * sd(batch means) / sqrt(b). With fewer than 3 batches there is no interval (and no
// significant difference): the series is too short to tell noise from an effect.
// Independent values (one mean per repeat) use minBatch = 1.
#pragma once

#include <vector>

namespace ringlab {

struct Estimate {
    std::size_t n = 0;
    double mean = 0, median = 0, p99 = 0, min = 0, max = 0;
    double ciHalf = 0; // 95 % confidence half-width of the mean (0 when n < 2)
    int batches = 0;
};

inline constexpr std::size_t kSamplesPerBatch = 5; // 0.5 s at the default 100 ms interval
Estimate estimate(const std::vector<double> &values, std::size_t minBatch = kSamplesPerBatch);
// Two-sided 95 % Student t quantile for `dof` degrees of freedom.
double tQuantile975(int dof);

struct Difference {
    double a = 0, b = 0;      // means
    double diff = 0;          // b - a
    double pct = 0;           // (b - a) / |a| * 100, 0 when a == 0
    double ciHalf = 0;        // 95 % half-width of the difference (Welch)
    bool significant = false; // the interval excludes zero
};

// Whether an estimate has a confidence interval (3 batches or more): without one on either
// side, a comparison is too short to judge, which is not the same as "no difference".
inline bool hasInterval(const Estimate &e)
{
    return e.batches >= 3;
}

// B against A from two estimates (batch means of each, Welch-Satterthwaite dof).
Difference compareEstimates(const Estimate &a, const Estimate &b);

} // namespace ringlab
