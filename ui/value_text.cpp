// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/value_text.h"

#include <cmath>

namespace ringlab::ui {

QString valueText(double v)
{
    if (!std::isfinite(v)) return QStringLiteral("–");
    const double a = std::fabs(v);
    struct Prefix {
        double scale;
        const char *suffix;
    };
    static constexpr Prefix prefixes[] = {{1e9, " G"}, {1e6, " M"}, {1e3, " k"}};
    for (const auto &p : prefixes)
        if (a >= p.scale) return QString::number(v / p.scale, 'g', 3) + QLatin1String(p.suffix);
    if (a >= 100 || a == 0) return QString::number(v, 'f', 0);
    return QString::number(v, 'g', 3);
}

} // namespace ringlab::ui
