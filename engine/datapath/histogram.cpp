// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/histogram.h"

#include <bit>

namespace ringlab {

std::size_t Histogram::bucketOf(std::uint64_t v)
{
    if (v < 256) return static_cast<std::size_t>(v);
    const int k = 63 - std::countl_zero(v); // floor(log2 v) >= 8
    if (k >= kMaxExp) return kBuckets - 1;
    const std::uint64_t sub = (v >> (k - 7)) - 128; // 0..127
    return 256 + static_cast<std::size_t>(k - kSubBits) * 128 + static_cast<std::size_t>(sub);
}

std::uint64_t Histogram::bucketLow(std::size_t b)
{
    if (b < 256) return b;
    const std::size_t k = (b - 256) / 128 + kSubBits;
    const std::uint64_t sub = (b - 256) % 128;
    return (128 + sub) << (k - 7);
}

std::uint64_t Histogram::bucketHigh(std::size_t b)
{
    if (b < 256) return b + 1;
    const std::size_t k = (b - 256) / 128 + kSubBits;
    return bucketLow(b) + (std::uint64_t{1} << (k - 7));
}

Histogram::Snapshot Histogram::snapshot() const
{
    Snapshot s;
    for (std::size_t b = 0; b < kBuckets; ++b)
        s.counts[b] = counts_[b].load(std::memory_order_relaxed);
    return s;
}

void Histogram::Snapshot::add(const Snapshot &o)
{
    for (std::size_t b = 0; b < kBuckets; ++b)
        counts[b] += o.counts[b];
}

Histogram::Snapshot Histogram::Snapshot::minus(const Snapshot &earlier) const
{
    Snapshot d;
    for (std::size_t b = 0; b < kBuckets; ++b)
        d.counts[b] = counts[b] >= earlier.counts[b] ? counts[b] - earlier.counts[b] : 0;
    return d;
}

std::uint64_t Histogram::Snapshot::total() const
{
    std::uint64_t n = 0;
    for (auto c : counts)
        n += c;
    return n;
}

double Histogram::Snapshot::quantile(double q) const
{
    const std::uint64_t n = total();
    if (n == 0) return 0.0;
    // Rank of the q-quantile, 1-based, nearest-rank definition.
    std::uint64_t rank = static_cast<std::uint64_t>(q * static_cast<double>(n) + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
        seen += counts[b];
        if (seen >= rank) {
            if (b < 256) return static_cast<double>(b);
            return 0.5 * static_cast<double>(bucketLow(b) + bucketHigh(b) - 1);
        }
    }
    return 0.0;
}

double Histogram::Snapshot::maxValue() const
{
    for (std::size_t b = kBuckets; b-- > 0;)
        if (counts[b])
            return b < 256 ? static_cast<double>(b) : static_cast<double>(bucketHigh(b) - 1);
    return 0.0;
}

double Histogram::Snapshot::mean() const
{
    double sum = 0, n = 0;
    for (std::size_t b = 0; b < kBuckets; ++b)
        if (counts[b]) {
            const double mid = b < 256
                                   ? static_cast<double>(b)
                                   : 0.5 * static_cast<double>(bucketLow(b) + bucketHigh(b) - 1);
            sum += mid * static_cast<double>(counts[b]);
            n += static_cast<double>(counts[b]);
        }
    return n > 0 ? sum / n : 0.0;
}

} // namespace ringlab
