// SPDX-License-Identifier: GPL-2.0-or-later
// Wheel safety for the whole application: a spin box, a combo box or a slider changes on
// the wheel only when it has the focus. Over one without the focus the wheel goes on to
// what encloses it, as if the control were not there, so that a scroll area scrolls instead
// of a value changing (and a restart being queued) under a pointer that was only passing.
// The wheel never gives such a control the focus either (Qt::WheelFocus becomes
// Qt::StrongFocus): a click or Tab does. Installed once, on the application.
#pragma once

#include <QObject>

class QWidget;

namespace ringlab::ui {

class WheelGuard : public QObject {
    Q_OBJECT
  public:
    using QObject::QObject;
    // Installs a guard on the application (parented to it); returns it.
    static WheelGuard *install();
    // The spin box, combo box or slider `w` belongs to (itself, or the one its inner line
    // edit is part of), or null; scroll bars are not guarded.
    static QWidget *guardedControl(QWidget *w);

  protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
};

} // namespace ringlab::ui
