// SPDX-License-Identifier: GPL-2.0-or-later
// A measured value as a short text with SI prefixes (1.23 k, 4.08 M), for legends and
// axis-free read-outs, three significant digits.
#pragma once

#include <QString>

namespace ringlab::ui {

QString valueText(double v);

} // namespace ringlab::ui
