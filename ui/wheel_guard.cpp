// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/wheel_guard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QScrollBar>
#include <QWheelEvent>

namespace ringlab::ui {
namespace {

bool isGuarded(const QWidget *w)
{
    return qobject_cast<const QAbstractSpinBox *>(w) || qobject_cast<const QComboBox *>(w) ||
           (qobject_cast<const QAbstractSlider *>(w) && !qobject_cast<const QScrollBar *>(w));
}

} // namespace

WheelGuard *WheelGuard::install()
{
    auto *guard = new WheelGuard(qApp);
    qApp->installEventFilter(guard);
    return guard;
}

QWidget *WheelGuard::guardedControl(QWidget *w)
{
    // A spin box's or an editable combo box's line edit is a child of its control, within
    // the same window.
    for (; w && !w->isWindow(); w = w->parentWidget())
        if (isGuarded(w)) return w;
    return w && isGuarded(w) ? w : nullptr;
}

bool WheelGuard::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Polish) {
        // Before the widget is first shown: the wheel does not give it the focus.
        auto *w = qobject_cast<QWidget *>(watched);
        if (w && isGuarded(w) && w->focusPolicy() == Qt::WheelFocus)
            w->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (event->type() != QEvent::Wheel || !watched->isWidgetType()) return false;
    QWidget *control = guardedControl(static_cast<QWidget *>(watched));
    if (!control) return false;
    const QWidget *focus = QApplication::focusWidget();
    if (control->hasFocus() || (focus && control->isAncestorOf(focus))) return false;
    // Not for this control: ignored, so that the application hands the wheel to its parent,
    // and on up to the scroll area that encloses it.
    event->ignore();
    return true;
}

} // namespace ringlab::ui
