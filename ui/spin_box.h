// SPDX-License-Identifier: GPL-2.0-or-later
// A spin box for a form's count or length: its range, value, tooltip and unit in one call.
#pragma once

#include <QSpinBox>
#include <QString>

namespace ringlab::ui {

inline QSpinBox *spinBox(int lowest, int highest, int value, const QString &toolTip,
                         const QString &suffix = {})
{
    auto *box = new QSpinBox;
    box->setRange(lowest, highest);
    box->setValue(value);
    box->setSuffix(suffix);
    box->setToolTip(toolTip);
    return box;
}

} // namespace ringlab::ui
