// SPDX-License-Identifier: GPL-2.0-or-later
// Log-linear latency histogram (HDR layout, 128 sub-buckets per power of two: < 0.8 % bucket
// width). One writer records into cumulative counts; readers snapshot and subtract two
// snapshots to get one interval's distribution.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace ringlab {

class Histogram {
  public:
    static constexpr int kSubBits = 8; // values < 256 are exact
    static constexpr int kMaxExp = 40; // up to 2^40 ns (~18 min)
    static constexpr std::size_t kBuckets = 256 + (kMaxExp - kSubBits) * 128;

    static std::size_t bucketOf(std::uint64_t v);
    static std::uint64_t bucketLow(std::size_t b);
    static std::uint64_t bucketHigh(std::size_t b); // exclusive

    // Single writer.
    void record(std::uint64_t v)
    {
        auto &slot = counts_[bucketOf(v)];
        slot.store(slot.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }

    struct Snapshot {
        std::vector<std::uint64_t> counts = std::vector<std::uint64_t>(kBuckets, 0);
        void add(const Snapshot &o);
        // Interval distribution: this minus an earlier snapshot.
        Snapshot minus(const Snapshot &earlier) const;
        std::uint64_t total() const;
        // Value at quantile q in [0,1]: the midpoint of the bucket holding it; 0 if empty.
        double quantile(double q) const;
        double maxValue() const; // upper edge of the highest non-empty bucket
        double mean() const;
    };
    Snapshot snapshot() const;

  private:
    std::array<std::atomic<std::uint64_t>, kBuckets> counts_{};
};

} // namespace ringlab
