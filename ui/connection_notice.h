// SPDX-License-Identifier: GPL-2.0-or-later
// Above the tabs while the attached engine cannot be reached: why, whole (word-wrapped),
// what became of the run, and a button for the action that reconnects. When the engine is
// back the notice does not vanish under the pointer (the layout would jump and a click meant
// for Reconnect would land on what moved up): it says so, and what became of the run the
// window followed ("session 12 is interrupted"), until dismissed. Hidden otherwise.
#pragma once

#include <QFrame>

class QAction;
class QLabel;
class QToolButton;

namespace ringlab::ui {

class ConnectionNotice : public QFrame {
    Q_OBJECT
  public:
    explicit ConnectionNotice(QAction *reconnect, QWidget *parent = nullptr);
    // Why the engine is out of reach; empty: it is reachable (a notice shown turns into the
    // "back" notice, which stays until dismissed).
    void setNotice(const QString &text);
    // What became of the run while the engine was out of reach, shown in the "back" notice.
    void setOutcome(const QString &text);
    QString text() const;
    bool lost() const { return lost_; }
    QLabel *label() const { return label_; }
    QToolButton *button() const { return button_; }
    QToolButton *dismissButton() const { return dismiss_; }

  private:
    void showBack();
    void holdHeight();

    QLabel *label_;
    QToolButton *button_, *dismiss_;
    bool lost_ = false;
    QString outcome_;
};

} // namespace ringlab::ui
