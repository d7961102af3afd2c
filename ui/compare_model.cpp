// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/compare_model.h"
#include "ui/value_text.h"

#include <QBrush>
#include <QColor>

namespace ringlab::ui {

void CompareModel::setRows(std::vector<CompareRow> rows)
{
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

QVariant CompareModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char *titles[] = {"metric", "A", "B", "B - A", "95 % CI", "verdict"};
    return section >= 0 && section < 6 ? tr(titles[section]) : QVariant();
}

QVariant CompareModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
    const CompareRow &r = rows_[static_cast<std::size_t>(index.row())];
    if (role == Qt::ForegroundRole && index.column() == 5 && r.diff.significant && r.better != 0) {
        const bool good = (r.diff.diff > 0) == (r.better > 0);
        return QBrush(good ? QColor(0x2e7d32) : QColor(0xc62828));
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case 0:
        return QString::fromStdString(r.metric + (r.unit.empty() ? "" : " (" + r.unit + ")"));
    case 1:
        return QString::number(r.a.mean, 'f', 2);
    case 2:
        return QString::number(r.b.mean, 'f', 2);
    case 3:
        return QStringLiteral("%1 (%2)")
            .arg(r.diff.diff, 0, 'f', 2)
            .arg(percentChangeText(r.diff.pct));
    case 4:
        return r.diff.ciHalf > 0 ? QStringLiteral("±%1").arg(r.diff.ciHalf, 0, 'f', 2)
                                 : QStringLiteral("-");
    case 5:
        return QString::fromStdString(r.verdict);
    }
    return {};
}

} // namespace ringlab::ui
