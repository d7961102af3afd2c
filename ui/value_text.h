// SPDX-License-Identifier: GPL-2.0-or-later
// A measured value as a short text with SI prefixes (1.23 k, 4.08 M), for legends and
// axis-free read-outs, three significant digits.
#pragma once

#include <QString>

namespace ringlab::ui {

QString valueText(double v);
// An axis tick: SI prefixes as valueText, with the decimals that `step` between ticks needs
// and no trailing zeros ("0", "200 k", "1.2 M"); never "-0".
QString tickText(double v, double step);
// A signed change in percent, one decimal: "+3.2 %", "-0.4 %", and "0.0 %" for what rounds
// to zero (never "-0.0 %").
QString percentChangeText(double pct);

} // namespace ringlab::ui
