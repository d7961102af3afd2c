// SPDX-License-Identifier: GPL-2.0-or-later
// A notice above a form: word-wrapped, framed, hidden while it has nothing to say (where a
// tool's runs go when the window is attached to another engine).
#pragma once

#include <QLabel>

namespace ringlab::ui {

class NoticeLabel : public QLabel {
  public:
    explicit NoticeLabel(QWidget *parent = nullptr) : QLabel(parent)
    {
        setWordWrap(true);
        setTextFormat(Qt::PlainText);
        setFrameShape(QFrame::StyledPanel);
        setMargin(6);
        setStyleSheet(QStringLiteral("QLabel { background: #fff8e1; color: #4e3b00; }"));
        hide();
    }
    void setNotice(const QString &text)
    {
        setText(text);
        setVisible(!text.isEmpty());
    }
};

} // namespace ringlab::ui
