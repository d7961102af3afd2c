// SPDX-License-Identifier: GPL-2.0-or-later
// The experiments' reports as text (tune, reproduce, reproduce napi): printf into a string,
// and an estimate with its 95 % interval, the same in each.
#pragma once

#include <cstdio>
#include <string>

#include "engine/common/number_text.h"
#include "engine/metrics/statistics.h"

namespace ringlab {

template <class... Args> void appendf(std::string &out, const char *format, Args... args)
{
    const int n = std::snprintf(nullptr, 0, format, args...);
    if (n <= 0) return;
    std::string buf(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(buf.data(), buf.size(), format, args...);
    buf.resize(static_cast<std::size_t>(n));
    out += buf;
}

// "12.3 ±0.4"; "12.3 (no interval)" under 3 batches; "-" for none.
inline std::string withInterval(const Estimate &e)
{
    if (e.n == 0) return "-";
    return e.batches >= 3 ? shortNumber(e.mean) + " ±" + shortNumber(e.ciHalf)
                          : shortNumber(e.mean) + " (no interval)";
}

} // namespace ringlab
