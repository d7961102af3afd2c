// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/segment_model.h"
#include "ui/series_catalog.h"
#include "ui/value_text.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <algorithm>

#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_metrics.h"

namespace ringlab::ui {

const std::vector<SegmentMetric> &segmentMetrics()
{
    // The metric table's segment columns (MetricView::segment) in their rank; headings are
    // its too (metricHeading).
    static const std::vector<SegmentMetric> m = [] {
        std::vector<std::pair<int, SegmentMetric>> ranked;
        for (const MetricDef &d : metricTable())
            for (const SegmentColumn &c : d.view.segment) {
                if (d.perThread() == c.thread.empty())
                    qFatal("segment columns: %s needs a thread exactly when it is a family",
                           d.name.c_str());
                ranked.push_back({c.rank,
                                  {d.name.c_str(), c.thread.empty() ? "" : c.thread.data(),
                                   metricHeading(d, c.thread), c.on}});
            }
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        std::vector<SegmentMetric> out;
        for (auto &r : ranked)
            out.push_back(std::move(r.second));
        return out;
    }();
    return m;
}

int segmentMetricIndex(const std::string &label)
{
    const auto &all = segmentMetrics();
    for (std::size_t k = 0; k < all.size(); ++k)
        if (all[k].label() == label) return static_cast<int>(k);
    return -1;
}

namespace {
QString withCi(double v, double ci)
{
    const int decimals = std::fabs(v) >= 100 ? 0 : 1;
    return ci > 0 ? QStringLiteral("%1 ±%2").arg(v, 0, 'f', decimals).arg(ci, 0, 'f', decimals)
                  : QString::number(v, 'f', decimals);
}
} // namespace

SegmentModel::SegmentModel(QObject *parent) : QAbstractTableModel(parent)
{
    for (int k = 0; k < static_cast<int>(segmentMetrics().size()); ++k)
        if (segmentMetrics()[static_cast<std::size_t>(k)].defaultOn) columns_.push_back(k);
    updateShown();
}

QString SegmentModel::deviceFigureTitle(const std::string &name)
{
    if (const auto s = deviceSeriesFor(name)) return s->label;
    return QString::fromStdString(name);
}

bool SegmentModel::takeDeviceFigures(const SampleTable &tab)
{
    // Rates and times only: a segment's mean of a running total (rr_requests, a port's
    // imissed) says nothing.
    std::vector<std::string> figures;
    for (const MetricKey &m : tab.metrics)
        if (m.thread.empty() && isDeviceRateFigure(m.name)) figures.push_back(m.name);
    if (figures == deviceFigures_) return false;
    deviceFigures_ = std::move(figures);
    updateShown();
    return true;
}

void SegmentModel::updateShown()
{
    shown_ = columns_;
    const int fixed = static_cast<int>(segmentMetrics().size());
    for (const std::string &name : deviceColumns_) {
        const auto it = std::find(deviceFigures_.begin(), deviceFigures_.end(), name);
        if (it != deviceFigures_.end())
            shown_.push_back(fixed + static_cast<int>(it - deviceFigures_.begin()));
    }
}

std::string SegmentModel::metricName(int m) const
{
    const int fixed = static_cast<int>(segmentMetrics().size());
    return m < fixed ? segmentMetrics()[static_cast<std::size_t>(m)].name
                     : deviceFigures_[static_cast<std::size_t>(m - fixed)];
}

std::string SegmentModel::metricLabel(int m) const
{
    const int fixed = static_cast<int>(segmentMetrics().size());
    return m < fixed ? segmentMetrics()[static_cast<std::size_t>(m)].label()
                     : deviceFigures_[static_cast<std::size_t>(m - fixed)];
}

void SegmentModel::setDeviceColumns(const std::vector<std::string> &names)
{
    beginResetModel();
    deviceColumns_ = names;
    updateShown();
    endResetModel();
}

void SegmentModel::setSession(const SampleTable &tab, const std::vector<ParamChangeRow> &changes,
                              double warmupS)
{
    beginResetModel();
    rows_.clear();
    takeDeviceFigures(tab);
    // Nothing measured yet (an engine attached to with no run, a run before its first
    // sample): no segment, rather than a "start" row from 0 to 0 s.
    const auto segs = tab.t.empty() ? std::vector<Segment>{} : segmentsOf(tab, changes, warmupS);
    for (const auto &seg : segs)
        rows_.push_back(rowFor(tab, seg));
    endResetModel();
}

SegmentModel::Row SegmentModel::rowFor(const SampleTable &tab, const Segment &seg) const
{
    Row r;
    r.seg = seg;
    r.estimatedRows = seg.rows.size();
    r.estimatedFirst = seg.rows.empty() ? SIZE_MAX : seg.rows.front();
    for (const auto &m : segmentMetrics())
        r.est.push_back(estimateOf(tab, seg.rows, m.name, m.thread));
    for (const std::string &name : deviceFigures_)
        r.est.push_back(estimateOf(tab, seg.rows, name, {}));
    return r;
}

void SegmentModel::followLive(const SampleTable &tab, const std::vector<ParamChangeRow> &changes,
                              double warmupS)
{
    const auto segs = tab.t.empty() ? std::vector<Segment>{} : segmentsOf(tab, changes, warmupS);
    // A figure that appears (a BPF program loaded late) makes every row again.
    if (takeDeviceFigures(tab)) rows_.clear();
    std::vector<Row> next;
    next.reserve(segs.size());
    for (std::size_t k = 0; k < segs.size(); ++k) {
        const Segment &seg = segs[k];
        // The same segment, from the same first row (the warm-up moves it once it is over).
        const bool known =
            k < rows_.size() && rows_[k].seg.start == seg.start &&
            rows_[k].seg.opened == seg.opened && rows_[k].estimatedRows <= seg.rows.size() &&
            rows_[k].estimatedFirst == (seg.rows.empty() ? SIZE_MAX : seg.rows.front());
        const std::size_t grown = known ? seg.rows.size() - rows_[k].estimatedRows : 0;
        if (known && (grown == 0 || (k + 1 == segs.size() &&
                                     grown < std::max<std::size_t>(1, seg.rows.size() / 300)))) {
            Row r = rows_[k];
            r.seg = seg; // its times and rows now; its statistics a little older
            next.push_back(std::move(r));
            continue;
        }
        next.push_back(rowFor(tab, seg));
    }
    beginResetModel();
    rows_ = std::move(next);
    endResetModel();
}

void SegmentModel::setColumns(const std::vector<int> &metrics)
{
    beginResetModel();
    columns_.clear();
    for (int k : metrics)
        if (k >= 0 && k < static_cast<int>(segmentMetrics().size())) columns_.push_back(k);
    updateShown();
    endResetModel();
}

void SegmentModel::setBaselineSegment(int k)
{
    beginResetModel();
    baselineSeg_ = std::max(0, k);
    externalLabel_.clear();
    external_.clear();
    endResetModel();
}

void SegmentModel::setExternalBaseline(const QString &label, std::map<std::string, Estimate> est)
{
    beginResetModel();
    baselineSeg_ = 0;
    externalLabel_ = label;
    external_ = std::move(est);
    endResetModel();
}

QString SegmentModel::baselineLabel() const
{
    if (!externalLabel_.isEmpty()) return externalLabel_;
    return baselineSeg_ ? tr("segment %1").arg(baselineSeg_) : tr("the previous segment");
}

const Estimate *SegmentModel::baselineFor(int row, int metric) const
{
    if (!externalLabel_.isEmpty()) {
        auto it = external_.find(metricLabel(metric));
        return it == external_.end() ? nullptr : &it->second;
    }
    const int base = baselineSeg_ ? baselineSeg_ - 1 : row - 1;
    if (base < 0 || base >= static_cast<int>(rows_.size()) || base == row) return nullptr;
    return &rows_[static_cast<std::size_t>(base)].est[static_cast<std::size_t>(metric)];
}

QString SegmentModel::deltaText(int row, int metric) const
{
    if (row < 0 || row >= static_cast<int>(rows_.size()) || metric < 0 ||
        metric >= static_cast<int>(rows_[static_cast<std::size_t>(row)].est.size()))
        return {};
    const Estimate &b = rows_[static_cast<std::size_t>(row)].est[static_cast<std::size_t>(metric)];
    if (externalLabel_.isEmpty() && baselineSeg_ == row + 1) return tr("baseline");
    const Estimate *a = baselineFor(row, metric);
    if (!a || !a->n || !b.n) return {};
    const Difference d = compareEstimates(*a, b);
    const QString pct = percentChangeText(d.pct);
    if (!hasInterval(*a) || !hasInterval(b)) return pct + tr("  too short to judge");
    return pct + (d.significant ? tr("  significant") : tr("  within noise"));
}

QVariant SegmentModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole && section >= kFixedColumns && (section - kFixedColumns) % 2)
        return tr("Difference to %1, with Welch's 95 % interval").arg(baselineLabel());
    if (role != Qt::DisplayRole) return {};
    if (section == 0) return tr("#");
    if (section == 1) return tr("from s");
    if (section == 2) return tr("to s");
    if (section == 3) return tr("setting");
    const auto k = static_cast<std::size_t>((section - kFixedColumns) / 2);
    if (k >= shown_.size()) return {};
    const int m = shown_[k], fixed = static_cast<int>(segmentMetrics().size());
    const QString title =
        m < fixed ? QString::fromStdString(segmentMetrics()[static_cast<std::size_t>(m)].title)
                  : deviceFigureTitle(metricName(m));
    return (section - kFixedColumns) % 2 == 0 ? title : tr("Δ %1").arg(title);
}

QVariant SegmentModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
    const int row = index.row();
    const Row &r = rows_[static_cast<std::size_t>(row)];
    const int c = index.column();
    if (c >= kFixedColumns) {
        const auto k = static_cast<std::size_t>((c - kFixedColumns) / 2);
        if (k >= shown_.size()) return {};
        const int m = shown_[k];
        const Estimate &est = r.est[static_cast<std::size_t>(m)];
        const bool diff = (c - kFixedColumns) % 2 == 1;
        if (role == Qt::DisplayRole) {
            if (!diff) return est.n ? withCi(est.mean, est.ciHalf) : QStringLiteral("-");
            return deltaText(row, m);
        }
        const Estimate *base = diff ? baselineFor(row, m) : nullptr;
        const bool judged = base && base->n && est.n && hasInterval(*base) && hasInterval(est);
        if (role == Qt::ForegroundRole && judged) {
            const Difference d = compareEstimates(*base, est);
            if (!d.significant) return QBrush(QColor(0x616161));
            const int better = betterDirection(metricName(m));
            const bool good = better != 0 && ((d.diff > 0) == (better > 0));
            return QBrush(better == 0 ? QColor(0x1565c0)
                          : good      ? QColor(0x2e7d32)
                                      : QColor(0xc62828));
        }
        if (role == Qt::ToolTipRole && diff && base && base->n && est.n) {
            const Difference d = compareEstimates(*base, est);
            return tr("against %1: %2 - %3 = %4 ± %5 (95 %)")
                .arg(baselineLabel())
                .arg(d.b, 0, 'f', 2)
                .arg(d.a, 0, 'f', 2)
                .arg(d.diff, 0, 'f', 2)
                .arg(d.ciHalf, 0, 'f', 2);
        }
        if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role == Qt::FontRole && externalLabel_.isEmpty() && baselineSeg_ == row + 1) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role != Qt::DisplayRole) return {};
    switch (c) {
    case 0:
        return r.seg.index;
    case 1:
        return QString::number(r.seg.start, 'f', 1);
    case 2:
        return QString::number(r.seg.end, 'f', 1);
    case 3:
        return QString::fromStdString(r.seg.opened);
    }
    return {};
}

} // namespace ringlab::ui
