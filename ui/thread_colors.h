// SPDX-License-Identifier: GPL-2.0-or-later
// One colour per engine thread (and per named series), the same in every chart.
#pragma once

#include <QColor>
#include <QHash>
#include <QString>

namespace ringlab::ui {

class ThreadColors {
  public:
    static QColor of(const QString &name);
};

} // namespace ringlab::ui
