// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/segment_table.h"

#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

#include "engine/store/session_compare.h"
#include "ui/segment_model.h"

namespace ringlab::ui {

namespace {
constexpr int kOther = -1; // the combo's entry that asks for another session's segment
constexpr int kInUse = -2; // the other session's segment in use
} // namespace

namespace {
// The chosen columns, by metric ("rx_pps", "wakeups_per_s[poll]"), so that a column added to
// the metric table moves none of them.
const QString kColumnsKey = QStringLiteral("segments/columnNames");

// The settings' columns, or nullopt when none were chosen. Before 0.1 they were kept by
// position in this, the old catalogue's order: read once and written back by name.
std::optional<std::vector<int>> savedColumns(QSettings &s)
{
    static constexpr const char *kByPosition[] = {"rx_pps",
                                                  "engine_cpu_ms_per_s",
                                                  "wakeups_per_s[poll]",
                                                  "latency_p99_us",
                                                  "drops_per_s",
                                                  "latency_p50_us",
                                                  "rtt_p50_us",
                                                  "tx_pps",
                                                  "cpu_ms_per_s[poll]",
                                                  "interrupts_per_s",
                                                  "timer_arms_per_s",
                                                  "timer_arms_per_frame",
                                                  "refill_wakeups_per_s",
                                                  "wakeups_per_s[refill]",
                                                  "poll_gap_max_us[poll]",
                                                  "rx_missed_per_s",
                                                  "alloc_fail_per_s",
                                                  "machine_cpu_pct",
                                                  "rx_per_poll"};
    const QString oldKey = QStringLiteral("segments/columns");
    if (!s.contains(kColumnsKey) && s.contains(oldKey)) {
        QStringList names;
        for (const QVariant &v : s.value(oldKey).toList())
            if (const int k = v.toInt(); k >= 0 && k < int(std::size(kByPosition)))
                names << QLatin1String(kByPosition[k]);
        s.setValue(kColumnsKey, names);
        s.remove(oldKey);
    }
    if (!s.contains(kColumnsKey)) return std::nullopt;
    std::vector<int> cols;
    for (const QString &name : s.value(kColumnsKey).toStringList())
        if (const int k = segmentMetricIndex(name.toStdString()); k >= 0) cols.push_back(k);
    std::sort(cols.begin(), cols.end());
    if (cols.empty()) return std::nullopt;
    return cols;
}
} // namespace

SegmentTable::SegmentTable(SegmentModel *model, std::function<SessionStore *()> store,
                           QWidget *parent)
    : QWidget(parent), view_(new QTableView), baseline_(new QComboBox), columns_(new QToolButton),
      model_(model), store_(std::move(store))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Δ against")));
    baseline_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    baseline_->setToolTip(tr("The segment every Δ column compares with, by the engine's "
                             "statistics (as ringlab-engine compare 2:1 2:3)"));
    bar->addWidget(baseline_);
    bar->addStretch(1);
    columns_->setText(tr("Columns"));
    columns_->setToolTip(tr("Choose the metrics the table shows"));
    columns_->setPopupMode(QToolButton::InstantPopup);
    columns_->setMenu(new QMenu(columns_));
    connect(columns_->menu(), &QMenu::aboutToShow, this, &SegmentTable::chooseColumns);
    bar->addWidget(columns_);
    layout->addLayout(bar);

    view_->setModel(model_);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(view_->horizontalHeader(), &QWidget::customContextMenuRequested, this,
            [this](const QPoint &p) {
                chooseColumns();
                columns_->menu()->popup(view_->horizontalHeader()->mapToGlobal(p));
            });
    view_->setAlternatingRowColors(true);
    // Header and four rows: the newest settings stay in sight at 1280x800; two on a screen
    // shorter than that, so that the window fits 1024x640.
    const QScreen *screen = QGuiApplication::primaryScreen();
    const int rows = screen && screen->availableGeometry().height() < 760 ? 2 : 4;
    view_->setMinimumHeight(view_->horizontalHeader()->sizeHint().height() +
                            rows * view_->verticalHeader()->defaultSectionSize() + 4);
    layout->addWidget(view_, 1);

    QSettings s;
    if (const auto cols = savedColumns(s)) model_->setColumns(*cols);
    // A device's figures are chosen by name: another session may have them, or not.
    std::vector<std::string> deviceCols;
    for (const QString &name : s.value(QStringLiteral("segments/deviceColumns")).toStringList())
        deviceCols.push_back(name.toStdString());
    model_->setDeviceColumns(deviceCols);

    // Follow the newest segment unless the user scrolled up to read an older one.
    connect(model_, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        const QScrollBar *scroll = view_->verticalScrollBar();
        atBottom_ = scroll->value() >= scroll->maximum() - 2;
    });
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        fillBaselines();
        if (atBottom_) view_->scrollToBottom();
    });
    connect(baseline_, &QComboBox::activated, this, [this] {
        const int k = baseline_->currentData().toInt();
        if (k == kInUse) return; // the other session's segment, already the baseline
        if (k != kOther) {
            model_->setBaselineSegment(k);
            return;
        }
        bool ok = false;
        const QString spec = QInputDialog::getText(
            this, tr("Baseline"),
            tr("A segment of another session, as SESSION:SEGMENT (e.g. 12:2):"), QLineEdit::Normal,
            {}, &ok);
        if (ok)
            if (const Status st = useOtherSegment(spec.trimmed()); !st.ok())
                emit message(errorText(st), 10000);
        fillBaselines();
    });
    fillBaselines();
}

void SegmentTable::fillBaselines()
{
    const QSignalBlocker block(baseline_);
    baseline_->clear();
    baseline_->addItem(tr("the previous segment"), 0);
    // A chosen segment this session does not have (yet) is shown as it is, not hidden.
    for (int k = 1; k <= std::max(model_->rowCount(), model_->baselineSegment()); ++k)
        baseline_->addItem(tr("segment %1").arg(k), k);
    const QString label = model_->baselineLabel();
    if (model_->baselineSegment() == 0 && label != tr("the previous segment"))
        baseline_->addItem(label, kInUse);
    baseline_->addItem(tr("another session's segment…"), kOther);
    const int at = baseline_->findText(label);
    baseline_->setCurrentIndex(at >= 0 ? at : 0);
}

Status SegmentTable::useOtherSegment(const QString &spec)
{
    SessionStore *store = store_ ? store_() : nullptr;
    if (!store) return failedBecause(tr("no session database is open"));
    if (!spec.contains(QLatin1Char(':')))
        return refusedBecause(tr("baseline \"%1\": give SESSION:SEGMENT, e.g. 12:2").arg(spec));
    const auto loaded = loadCompareSide(*store, spec.toStdString(), 1.0);
    if (!loaded.ok()) return loaded.status().within("baseline: ");
    const CompareSide &side = loaded.value();
    std::map<std::string, Estimate> est;
    for (const auto &[label, values] : side.values)
        est[label] = estimate(values);
    model_->setExternalBaseline(QString::fromStdString(side.label), std::move(est));
    fillBaselines();
    return Status::success();
}

QMenu *SegmentTable::columnsMenu()
{
    chooseColumns();
    return columns_->menu();
}

void SegmentTable::chooseColumns()
{
    QMenu *menu = columns_->menu();
    menu->clear();
    const auto &cols = model_->columns();
    for (int k = 0; k < static_cast<int>(segmentMetrics().size()); ++k) {
        QAction *a = menu->addAction(
            QString::fromStdString(segmentMetrics()[static_cast<std::size_t>(k)].title));
        a->setCheckable(true);
        a->setChecked(std::find(cols.begin(), cols.end(), k) != cols.end());
        connect(a, &QAction::toggled, this, [this, k](bool on) {
            std::vector<int> now = model_->columns();
            std::erase(now, k);
            if (on) {
                // Keep the catalogue's order: the reference cases' metrics first.
                now.push_back(k);
                std::sort(now.begin(), now.end());
            }
            model_->setColumns(now);
            QStringList stored;
            for (int c : now)
                stored << QString::fromStdString(segmentMetrics()[std::size_t(c)].label());
            QSettings().setValue(kColumnsKey, stored);
        });
    }
    const auto &figures = model_->deviceFigures();
    if (figures.empty()) return;
    menu->addSection(tr("The device's own figures"));
    const auto &chosen = model_->deviceColumns();
    for (const std::string &name : figures) {
        QAction *a = menu->addAction(SegmentModel::deviceFigureTitle(name));
        a->setToolTip(QString::fromStdString(name));
        a->setCheckable(true);
        a->setChecked(std::find(chosen.begin(), chosen.end(), name) != chosen.end());
        connect(a, &QAction::toggled, this, [this, name](bool on) {
            std::vector<std::string> now = model_->deviceColumns();
            std::erase(now, name);
            if (on) now.push_back(name);
            model_->setDeviceColumns(now);
            QStringList stored;
            for (const std::string &n : now)
                stored << QString::fromStdString(n);
            QSettings().setValue(QStringLiteral("segments/deviceColumns"), stored);
        });
    }
}

} // namespace ringlab::ui
