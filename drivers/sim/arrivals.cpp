// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/sim/arrivals.h"

#include <cmath>

namespace ringlab::sim {

double ArrivalGenerator::uniform()
{
    // xorshift64*, 53 significant bits, never 0.
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    const std::uint64_t x = rng_ * 0x2545F4914F6CDD1DULL;
    return (static_cast<double>(x >> 11) + 0.5) * 0x1.0p-53;
}

void ArrivalGenerator::reshape(const ArrivalShape &shape, std::int64_t fromNs)
{
    shape_ = shape;
    if (shape.ratePps <= 0) {
        next_ = 9.3e18;
        return;
    }
    gapNs_ = 1e9 / shape.ratePps;
    epochNs_ = static_cast<double>(fromNs);
    next_ = following(static_cast<double>(fromNs));
}

double ArrivalGenerator::following(double t)
{
    if (shape_.ratePps <= 0) return 9.3e18;
    switch (shape_.pattern) {
    case LoadPattern::Constant: return t + gapNs_;
    case LoadPattern::Poisson: return t - std::log(uniform()) * gapNs_;
    case LoadPattern::Bursty: {
        const double on = static_cast<double>(shape_.onNs);
        const double period = on + static_cast<double>(shape_.offNs);
        double next = t + gapNs_;
        const double phase = std::fmod(next - epochNs_, period);
        if (phase >= on) next += period - phase; // silence: first frame of the next burst
        return next;
    }
    }
    return 9.3e18;
}

} // namespace ringlab::sim
