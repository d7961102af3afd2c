// SPDX-License-Identifier: GPL-2.0-or-later
// Above the tabs while the attached engine cannot be reached: why, whole (word-wrapped),
// what became of the run, and a button for the action that reconnects. Hidden otherwise.
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
    // Empty: hidden.
    void setNotice(const QString &text);
    QString text() const;
    QLabel *label() const { return label_; }
    QToolButton *button() const { return button_; }

  private:
    QLabel *label_;
    QToolButton *button_;
};

} // namespace ringlab::ui
