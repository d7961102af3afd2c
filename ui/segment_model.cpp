// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/segment_model.h"

#include <QBrush>
#include <QColor>

#include "engine/sample_metrics.h"

namespace ringlab::ui {

namespace {
struct MetricCol {
    const char *name, *thread, *title;
};
const MetricCol kCols[] = {{"rx_pps", "", "rx pps"},
                           {"engine_cpu_ms_per_s", "", "engine CPU ms/s"},
                           {"latency_p99_us", "", "p99 µs"},
                           {"wakeups_per_s", "poll", "poll wakeups/s"}};
QString withCi(double v, double ci)
{
    return ci > 0 ? QStringLiteral("%1 ±%2").arg(v, 0, 'f', 1).arg(ci, 0, 'f', 1)
                  : QString::number(v, 'f', 1);
}
} // namespace

void SegmentModel::setSession(const SampleTable &tab, const std::vector<ParamChangeRow> &changes,
                              double warmupS)
{
    beginResetModel();
    rows_.clear();
    for (const auto &seg : segmentsOf(tab, changes, warmupS)) {
        Row r;
        r.seg = seg;
        for (int k = 0; k < kMetrics; ++k)
            r.est[k] = estimateOf(tab, seg.rows, kCols[k].name, kCols[k].thread);
        if (!rows_.empty()) {
            r.hasPrev = true;
            for (int k = 0; k < kMetrics; ++k)
                r.diff[k] = compareEstimates(rows_.back().est[k], r.est[k]);
        }
        rows_.push_back(std::move(r));
    }
    endResetModel();
}

QVariant SegmentModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    if (section == 0) return tr("#");
    if (section == 1) return tr("from s");
    if (section == 2) return tr("to s");
    if (section == 3) return tr("setting");
    const int k = (section - 4) / 2;
    return (section - 4) % 2 == 0 ? tr(kCols[k].title) : tr("Δ %1").arg(tr(kCols[k].title));
}

QVariant SegmentModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
    const Row &r = rows_[static_cast<std::size_t>(index.row())];
    const int c = index.column();
    if (c >= 4) {
        const int k = (c - 4) / 2;
        const bool diff = (c - 4) % 2 == 1;
        if (role == Qt::DisplayRole) {
            if (!diff)
                return r.est[k].n ? withCi(r.est[k].mean, r.est[k].ciHalf) : QStringLiteral("-");
            if (!r.hasPrev || !r.est[k].n) return QStringLiteral("");
            const Difference &d = r.diff[k];
            return QStringLiteral("%1%2 %  %3")
                .arg(d.pct >= 0 ? "+" : "")
                .arg(d.pct, 0, 'f', 1)
                .arg(d.significant ? tr("significant") : tr("noise"));
        }
        if (role == Qt::ForegroundRole && diff && r.hasPrev && r.diff[k].significant) {
            const int better = betterDirection(kCols[k].name);
            const bool good = better != 0 && ((r.diff[k].diff > 0) == (better > 0));
            return QBrush(good ? QColor(0x2e7d32) : QColor(0xc62828));
        }
        if (role == Qt::ToolTipRole && diff && r.hasPrev)
            return tr("B - A = %1 ± %2 (95 %)")
                .arg(r.diff[k].diff, 0, 'f', 2)
                .arg(r.diff[k].ciHalf, 0, 'f', 2);
        if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
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
