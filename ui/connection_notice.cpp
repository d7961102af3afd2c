// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/connection_notice.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace ringlab::ui {

ConnectionNotice::ConnectionNotice(QAction *reconnect, QWidget *parent)
    : QFrame(parent), label_(new QLabel), button_(new QToolButton)
{
    setObjectName(QStringLiteral("connectionNotice"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(QStringLiteral("#connectionNotice { background: #fdecea; }"
                                 "#connectionNotice QLabel { color: #5f1111; }"));
    label_->setWordWrap(true);
    label_->setTextFormat(Qt::PlainText);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse); // to copy into a report
    button_->setDefaultAction(reconnect);
    button_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 8, 4);
    row->addWidget(label_, 1);
    row->addWidget(button_, 0, Qt::AlignVCenter);
    hide();
}

void ConnectionNotice::setNotice(const QString &text)
{
    label_->setText(text);
    setVisible(!text.isEmpty());
}

QString ConnectionNotice::text() const
{
    return label_->text();
}

} // namespace ringlab::ui
