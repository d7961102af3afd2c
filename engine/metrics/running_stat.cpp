// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/running_stat.h"

#include <algorithm>
#include <cmath>

namespace ringlab {
namespace {

// Bucket k holds magnitudes in (gamma^(k-1), gamma^k]; its midpoint is within
// kRelativeError of every value in it.
const double kGamma = (1 + RunningStat::kRelativeError) / (1 - RunningStat::kRelativeError);
const double kLogGamma = std::log(kGamma);

int bucketOf(double magnitude)
{
    return static_cast<int>(std::ceil(std::log(magnitude) / kLogGamma));
}

double midpointOf(int bucket)
{
    return 2 * std::pow(kGamma, bucket) / (kGamma + 1);
}

} // namespace

void RunningStat::add(double v)
{
    if (!std::isfinite(v)) return;
    if (n_ == 0) {
        min_ = max_ = v;
        exact_.reserve(kExactValues);
    }
    ++n_;
    sum_ += v;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
    if (n_ <= kExactValues)
        exact_.push_back(v);
    else if (!exact_.empty())
        std::vector<double>().swap(exact_); // the sketch answers from now on
    // Magnitudes below 1e-300 count as zero (their logarithm would leave int's range).
    if (std::fabs(v) < 1e-300)
        ++zeros_;
    else if (v > 0)
        ++positive_[bucketOf(v)];
    else
        ++negative_[bucketOf(-v)];
}

double RunningStat::valueAtRank(std::uint64_t rank) const
{
    // Ascending: the largest negative magnitudes first, then zeros, then positives.
    for (auto it = negative_.rbegin(); it != negative_.rend(); ++it) {
        if (rank < it->second) return -midpointOf(it->first);
        rank -= it->second;
    }
    if (rank < zeros_) return 0;
    rank -= zeros_;
    for (const auto &[bucket, count] : positive_) {
        if (rank < count) return midpointOf(bucket);
        rank -= count;
    }
    return max_;
}

MetricSummary RunningStat::result() const
{
    MetricSummary m;
    m.n = n_;
    if (!n_) return m;
    m.mean = sum_ / static_cast<double>(n_);
    m.min = min_;
    m.max = max_;
    if (exact()) {
        std::vector<double> v = exact_;
        const std::size_t mid = v.size() / 2;
        std::nth_element(v.begin(), v.begin() + static_cast<long>(mid), v.end());
        m.median = v[mid];
        if (v.size() % 2 == 0)
            m.median =
                0.5 * (*std::max_element(v.begin(), v.begin() + static_cast<long>(mid)) + m.median);
    } else {
        m.median = 0.5 * (valueAtRank((n_ - 1) / 2) + valueAtRank(n_ / 2));
    }
    m.median = std::clamp(m.median, min_, max_);
    return m;
}

} // namespace ringlab
