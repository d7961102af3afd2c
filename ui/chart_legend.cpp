// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/chart_legend.h"

#include <QFontMetrics>

#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/value_text.h"

namespace ringlab::ui {

namespace {
QIcon swatch(const QColor &c, bool dashed)
{
    QPixmap pm(18, 10);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    QPen pen(c, 2.5);
    if (dashed) pen.setStyle(Qt::DashLine);
    p.setPen(pen);
    p.drawLine(1, 5, 17, 5);
    return QIcon(pm);
}
} // namespace

ChartLegend::ChartLegend(const QString &title, QWidget *parent)
    : QFrame(parent), title_(new QLabel(title)), baseTitle_(title), button_(new QToolButton),
      menu_(new QMenu(this)), list_(new QListWidget)
{
    setFixedWidth(kWidth);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 0, 2, 0);
    layout->setSpacing(0);
    auto *head = new QHBoxLayout;
    QFont bold = title_->font();
    bold.setBold(true);
    title_->setFont(bold);
    head->addWidget(title_, 1);
    button_->setText(tr("Series"));
    button_->setToolTip(tr("Choose the series this chart shows, and its scale"));
    button_->setPopupMode(QToolButton::InstantPopup);
    button_->setMenu(menu_);
    connect(menu_, &QMenu::aboutToShow, this, [this] {
        if (rebuildPending_) rebuildMenu();
    });
    button_->setAutoRaise(true);
    head->addWidget(button_);
    layout->addLayout(head);
    QFont small = list_->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    list_->setFont(small);
    // Compact rows: eight entries fit beside a chart at 1280x800.
    list_->setIconSize(QSize(18, 8));
    list_->setFrameShape(QFrame::NoFrame);
    list_->setSelectionMode(QAbstractItemView::NoSelection);
    list_->setFocusPolicy(Qt::NoFocus);
    list_->setUniformItemSizes(true);
    list_->setSpacing(0);
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    list_->setToolTip(tr("Click an entry to hide or show its line"));
    list_->setStyleSheet(QStringLiteral(
        "QListWidget { background: transparent; } QListWidget::item { padding: 0px; }"));
    connect(list_, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        emit hiddenToggled(item->data(Qt::UserRole).toString());
    });
    // Three rows at least, the rest a scroll away: a short chart (five of them in a 1024x640
    // window) is never held taller by its legend than by its own axis.
    list_->setMinimumHeight(3 * (QFontMetrics(small).height() + 1) + 2);
    layout->addWidget(list_, 1);
}

void ChartLegend::setEntries(const QStringList &names, const QHash<QString, QColor> &colors,
                             const QHash<QString, bool> &dashed, const QHash<QString, bool> &hidden)
{
    QStringList current;
    for (int i = 0; i < list_->count(); ++i)
        current << list_->item(i)->data(Qt::UserRole).toString();
    if (current != names) {
        list_->clear();
        items_.clear();
        for (const QString &n : names) {
            auto *item = new QListWidgetItem(swatch(colors.value(n), dashed.value(n)), n);
            item->setData(Qt::UserRole, n);
            item->setSizeHint(QSize(kWidth - 8, list_->fontMetrics().height() + 1));
            list_->addItem(item);
            items_.insert(n, item);
        }
    }
    for (auto it = items_.begin(); it != items_.end(); ++it)
        it.value()->setForeground(hidden.value(it.key()) ? QColor(160, 160, 160)
                                                         : palette().color(QPalette::Text));
}

void ChartLegend::setValues(const QHash<QString, std::optional<double>> &values,
                            const QString &unit)
{
    Q_UNUSED(unit);
    for (auto it = items_.begin(); it != items_.end(); ++it) {
        const auto v = values.value(it.key());
        const QString text = v ? QStringLiteral("%1  %2").arg(it.key(), valueText(*v)) : it.key();
        if (it.value()->text() != text) it.value()->setText(text);
    }
}

QMenu *ChartLegend::menu()
{
    if (rebuildPending_) rebuildMenu();
    return menu_;
}

void ChartLegend::setNote(const QString &note, const QString &tooltip)
{
    title_->setText(note.isEmpty() ? baseTitle_ : baseTitle_ + QStringLiteral(" · ") + note);
    title_->setToolTip(note.isEmpty() ? QString() : tooltip);
}

QString ChartLegend::titleText() const
{
    return title_->text();
}

QStringList ChartLegend::entryNames() const
{
    QStringList out;
    for (int i = 0; i < list_->count(); ++i)
        out << list_->item(i)->data(Qt::UserRole).toString();
    return out;
}

QString ChartLegend::entryText(const QString &name) const
{
    auto it = items_.find(name);
    return it == items_.end() ? QString() : it.value()->text();
}

void ChartLegend::setChoices(const QStringList &all, const QStringList &chosen, bool log,
                             bool canLog)
{
    if (all == all_ && chosen == chosen_ && log == log_ && canLog == canLog_) return;
    const bool sameList = all == all_ && canLog == canLog_;
    all_ = all;
    chosen_ = chosen;
    log_ = log;
    canLog_ = canLog;
    if (!sameList) {
        // Not now: this may run inside one of the menu's own actions, which a rebuild deletes.
        if (!rebuildPending_) {
            rebuildPending_ = true;
            QMetaObject::invokeMethod(
                this,
                [this] {
                    if (rebuildPending_) rebuildMenu(); // not if the menu opened meanwhile
                },
                Qt::QueuedConnection);
        }
        return;
    }
    for (QAction *a : menu_->actions()) {
        if (!a->isCheckable()) continue;
        const QSignalBlocker block(a);
        a->setChecked(a->data().toBool() ? log_ : chosen_.contains(a->text()));
    }
}

void ChartLegend::rebuildMenu()
{
    rebuildPending_ = false;
    menu_->clear();
    if (canLog_) {
        auto *log = menu_->addAction(tr("Logarithmic scale"));
        log->setData(true); // the scale, not a series
        log->setCheckable(true);
        log->setChecked(log_);
        connect(log, &QAction::toggled, this, &ChartLegend::logScaleToggled);
        menu_->addSeparator();
    }
    for (const QString &n : all_) {
        auto *a = menu_->addAction(n);
        a->setCheckable(true);
        a->setChecked(chosen_.contains(n));
        connect(a, &QAction::toggled, this, [this, n](bool on) { emit chosenChanged(n, on); });
    }
}

void ChartLegend::setControlsVisible(bool on)
{
    button_->setVisible(on);
}

} // namespace ringlab::ui
