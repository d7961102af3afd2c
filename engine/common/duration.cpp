// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/duration.h"

#include <charconv>
#include <cmath>

namespace ringlab {

std::optional<std::int64_t> parseDurationNs(const std::string &text)
{
    double v = 0;
    const char *b = text.data(), *e = text.data() + text.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p == b || !std::isfinite(v) || v < 0) return std::nullopt;
    const std::string unit(p, e);
    double scale = 0;
    if (unit.empty() || unit == "s")
        scale = 1e9;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "us")
        scale = 1e3;
    else if (unit == "m" || unit == "min")
        scale = 60e9;
    else if (unit == "h")
        scale = 3600e9;
    else
        return std::nullopt;
    const double ns = v * scale;
    if (ns > 9e18) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(ns));
}

} // namespace ringlab
