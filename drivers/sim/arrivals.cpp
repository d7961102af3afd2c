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
    last_ = static_cast<double>(fromNs);
    if (shape.ratePps <= 0) {
        next_ = 9.3e18;
        return;
    }
    gapNs_ = 1e9 / shape.ratePps;
    epochNs_ = static_cast<double>(fromNs);
    next_ = following(static_cast<double>(fromNs));
}

std::uint64_t ArrivalGenerator::skipUntil(std::int64_t until)
{
    const double t = static_cast<double>(until);
    if (next_ > t) return 0;
    switch (shape_.pattern) {
    case LoadPattern::Constant: {
        const auto n = static_cast<std::uint64_t>(std::floor((t - next_) / gapNs_)) + 1;
        next_ += static_cast<double>(n) * gapNs_;
        return n;
    }
    case LoadPattern::Bursty: {
        std::uint64_t n = 0;
        const double on = static_cast<double>(shape_.onNs);
        const double period = on + static_cast<double>(shape_.offNs);
        while (next_ <= t) {
            // Frames left in this burst, up to t.
            const double burstEnd = next_ - std::fmod(next_ - epochNs_, period) + on;
            const double last = std::min(t, burstEnd - 1e-9);
            const auto k = static_cast<std::uint64_t>(std::floor((last - next_) / gapNs_)) + 1;
            n += k;
            next_ = following(next_ + static_cast<double>(k - 1) * gapNs_);
        }
        return n;
    }
    case LoadPattern::Poisson: {
        std::uint64_t n = 0;
        const double mean = (t - next_) / gapNs_;
        if (mean < 512) {
            while (next_ <= t) {
                ++n;
                next_ = following(next_);
            }
            return n;
        }
        // Many arrivals: a normal draw for the count (Box-Muller), then, the process being
        // memoryless, the next arrival an exponential gap after t.
        const double z =
            std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
        n = 1 + static_cast<std::uint64_t>(
                    std::max(0.0, std::llround(mean + z * std::sqrt(mean)) + 0.0));
        next_ = following(t);
        return n;
    }
    }
    return 0;
}

double ArrivalGenerator::following(double t)
{
    if (shape_.ratePps <= 0) return 9.3e18;
    switch (shape_.pattern) {
    case LoadPattern::Constant:
        return t + gapNs_;
    case LoadPattern::Poisson:
        return t - std::log(uniform()) * gapNs_;
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
