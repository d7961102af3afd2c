// SPDX-License-Identifier: GPL-2.0-or-later
// The values the datapath reads: one relaxed atomic per tunable, read at batch boundaries.
#pragma once

#include <atomic>
#include <bit>

#include "engine/datapath/tunables.h"

namespace ringlab {

class LiveParams {
  public:
    explicit LiveParams(const ParamSet &ps) { publish(ps); }

    void publish(const ParamSet &ps)
    {
        for (const auto &t : tunables()) {
            const Value v = ps.value(t.id);
            const auto bits = t.type == Type::Real ? std::bit_cast<std::int64_t>(v.r) : v.i;
            slots_[static_cast<std::size_t>(t.id)].store(bits, std::memory_order_relaxed);
        }
    }
    std::int64_t integer(TunableId p) const { return slot(p).load(std::memory_order_relaxed); }
    double real(TunableId p) const
    {
        return std::bit_cast<double>(slot(p).load(std::memory_order_relaxed));
    }
    bool flag(TunableId p) const { return integer(p) != 0; }
    template <class E> E choice(TunableId p) const { return static_cast<E>(integer(p)); }

  private:
    const std::atomic<std::int64_t> &slot(TunableId p) const
    {
        return slots_[static_cast<std::size_t>(p)];
    }
    std::array<std::atomic<std::int64_t>, kParamCount> slots_{};
};

} // namespace ringlab
