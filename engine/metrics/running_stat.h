// SPDX-License-Identifier: GPL-2.0-or-later
// Mean, median, min and max of a stream of values in bounded memory, for the summary of a run
// that may last for days. Count, sum, min and max are exact. The median is exact while at most
// kExactValues have been added; past that it comes from a log-bucketed sketch (as DDSketch):
// within kRelativeError of the true median, in memory that grows with the logarithm of the
// values' range, not with their number.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace ringlab {

struct MetricSummary {
    std::size_t n = 0;
    double mean = 0, median = 0, min = 0, max = 0;
};

class RunningStat {
  public:
    static constexpr std::size_t kExactValues = 512; // 51 s at 10 Hz
    static constexpr double kRelativeError = 0.005;

    void add(double v); // NaN and infinities are not values: left out
    MetricSummary result() const;
    bool exact() const { return n_ <= kExactValues; }
    // What it holds: kept values plus sketch buckets (bounded; the memory test reads it).
    std::size_t storedItems() const { return exact_.size() + positive_.size() + negative_.size(); }

  private:
    double valueAtRank(std::uint64_t rank) const; // from the sketch, 0-based, ascending
    std::uint64_t n_ = 0;
    double sum_ = 0, min_ = 0, max_ = 0;
    std::vector<double> exact_;
    std::uint64_t zeros_ = 0;
    std::map<int, std::uint64_t> positive_, negative_; // bucket -> count, by magnitude
};

} // namespace ringlab
