// SPDX-License-Identifier: GPL-2.0-or-later
// Arrival times of a traffic source: constant, Poisson or bursty, computed on demand so the
// simulated device costs no CPU of its own between polls.
#pragma once

#include <cstdint>
#include <limits>

#include "engine/datapath/tunables.h"

namespace ringlab::sim {

inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

struct ArrivalShape {
    LoadPattern pattern = LoadPattern::Constant;
    double ratePps = 0;     // during bursts for the bursty pattern
    std::int64_t onNs = 0;  // bursty only
    std::int64_t offNs = 0; // bursty only
    friend bool operator==(const ArrivalShape &, const ArrivalShape &) = default;
};

class ArrivalGenerator {
  public:
    explicit ArrivalGenerator(std::uint64_t seed = 0x9e3779b97f4a7c15ULL) : rng_(seed | 1) {}

    // Takes a new shape; the next arrival follows from `fromNs` (the previous arrival, or the
    // moment the source started).
    void reshape(const ArrivalShape &shape, std::int64_t fromNs);
    const ArrivalShape &shape() const { return shape_; }

    std::int64_t peek() const
    {
        return next_ >= 9.2e18 ? kNever : static_cast<std::int64_t>(next_);
    }
    void pop()
    {
        last_ = next_;
        // Constant traffic inline (the poll thread pops once per frame); the others call out.
        next_ = shape_.pattern == LoadPattern::Constant && shape_.ratePps > 0 ? next_ + gapNs_
                                                                              : following(next_);
    }
    // The arrival before the pending one (or where the source started).
    double last() const { return last_; }
    // Consumes every arrival at or before `t` and returns how many there were, in O(1) for
    // constant and bursty traffic (an overloaded device must not cost the poll thread a
    // loop iteration per frame it drops).
    std::uint64_t skipUntil(std::int64_t t);

  private:
    double following(double t);
    double uniform();

    ArrivalShape shape_;
    double next_ = 9.3e18;
    double last_ = 0;
    double gapNs_ = 0;
    double epochNs_ = 0; // bursty: start of the first burst
    std::uint64_t rng_;
};

} // namespace ringlab::sim
