// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/value_text.h"

#include <algorithm>
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

QString percentChangeText(double pct)
{
    if (!std::isfinite(pct)) return QStringLiteral("–");
    const double rounded = std::round(pct * 10) / 10;
    if (rounded == 0) return QStringLiteral("0.0 %");
    return QStringLiteral("%1%2 %").arg(rounded > 0 ? "+" : "").arg(rounded, 0, 'f', 1);
}

QString tickText(double v, double step)
{
    if (!std::isfinite(v)) return QStringLiteral("–");
    step = std::fabs(step);
    if (std::fabs(v) < step * 1e-6) return QStringLiteral("0");
    const double a = std::fabs(v);
    double scale = 1;
    const char *suffix = "";
    if (a >= 1e9) {
        scale = 1e9;
        suffix = " G";
    } else if (a >= 1e6) {
        scale = 1e6;
        suffix = " M";
    } else if (a >= 1e3) {
        scale = 1e3;
        suffix = " k";
    }
    const double s = step > 0 ? step / scale : 1;
    const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(s) - 1e-9)), 0, 6);
    QString text = QString::number(v / scale, 'f', decimals);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(QLatin1Char('.'))) text.chop(1);
    }
    return text + QLatin1String(suffix);
}

} // namespace ringlab::ui
