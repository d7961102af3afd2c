// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/connection_notice.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace ringlab::ui {

namespace {
const QString kLostStyle = QStringLiteral("#connectionNotice { background: #fdecea; }"
                                          "#connectionNotice QLabel { color: #5f1111; }");
const QString kBackStyle = QStringLiteral("#connectionNotice { background: #fff4e5; }"
                                          "#connectionNotice QLabel { color: #4a3000; }");
} // namespace

ConnectionNotice::ConnectionNotice(QAction *reconnect, QWidget *parent)
    : QFrame(parent), label_(new QLabel), button_(new QToolButton), dismiss_(new QToolButton)
{
    setObjectName(QStringLiteral("connectionNotice"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(kLostStyle);
    label_->setWordWrap(true);
    label_->setTextFormat(Qt::PlainText);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse); // to copy into a report
    button_->setDefaultAction(reconnect);
    button_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    dismiss_->setText(tr("Dismiss"));
    dismiss_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    dismiss_->hide();
    connect(dismiss_, &QToolButton::clicked, this, [this] {
        outcome_.clear();
        hide();
        setMinimumHeight(0); // the next notice is as high as its own text
    });
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 8, 4);
    row->addWidget(label_, 1);
    row->addWidget(button_, 0, Qt::AlignVCenter);
    row->addWidget(dismiss_, 0, Qt::AlignVCenter);
    hide();
}

void ConnectionNotice::setNotice(const QString &text)
{
    if (!text.isEmpty()) {
        if (lost_ && isVisible() && text == label_->text()) return; // said already
        lost_ = true;
        outcome_.clear();
        holdHeight();
        setStyleSheet(kLostStyle);
        label_->setText(text);
        dismiss_->hide();
        button_->show();
        show();
        return;
    }
    if (!lost_) return; // reachable, and nothing was said: stays as it is
    lost_ = false;
    showBack();
}

void ConnectionNotice::setOutcome(const QString &text)
{
    outcome_ = text;
    if (!lost_ && isVisible()) showBack();
}

void ConnectionNotice::holdHeight()
{
    // A shorter text while shown would pull up everything under the notice, under the pointer:
    // it keeps the height it has until dismissed (it grows for a longer one).
    if (isVisible()) setMinimumHeight(height());
}

void ConnectionNotice::showBack()
{
    holdHeight();
    setStyleSheet(kBackStyle);
    label_->setText(outcome_.isEmpty() ? tr("The engine is reachable again.")
                                       : tr("The engine is reachable again. %1.").arg(outcome_));
    button_->hide();
    dismiss_->show();
    show();
}

QString ConnectionNotice::text() const
{
    return label_->text();
}

} // namespace ringlab::ui
