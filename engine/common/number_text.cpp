// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/number_text.h"

#include <cmath>
#include <cstdio>

namespace ringlab {

std::string shortNumber(double v)
{
    if (!std::isfinite(v)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, std::fabs(v) >= 100 ? "%.0f" : "%.3g", v);
    return buf;
}

std::string tableNumber(double v)
{
    if (!std::isfinite(v)) return "-";
    const double a = std::fabs(v);
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  a >= 100  ? "%.0f"
                  : a >= 10 ? "%.1f"
                  : a >= 1  ? "%.2f"
                            : "%.3g",
                  v);
    return buf;
}

} // namespace ringlab
