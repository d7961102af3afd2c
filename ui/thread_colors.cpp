// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/thread_colors.h"

namespace ringlab::ui {

QColor ThreadColors::of(const QString &name)
{
    // A qualitative palette (Tableau 10), handed out in order of first use.
    static const QColor palette[] = {
        QColor(0x4e79a7), QColor(0xf28e2b), QColor(0xe15759), QColor(0x76b7b2), QColor(0x59a14f),
        QColor(0xedc948), QColor(0xb07aa1), QColor(0xff9da7), QColor(0x9c755f), QColor(0xbab0ac)};
    static QHash<QString, QColor> assigned;
    auto it = assigned.find(name);
    if (it != assigned.end()) return *it;
    const QColor c = palette[assigned.size() % std::size(palette)];
    assigned.insert(name, c);
    return c;
}

} // namespace ringlab::ui
