// SPDX-License-Identifier: GPL-2.0-or-later
// One row per parameter setting (segment) of a session: throughput, CPU, p99 latency and
// poll wakeups with their confidence intervals, and the difference to the previous row,
// all from the engine's statistics.
#pragma once

#include <QAbstractTableModel>

#include "engine/session_report.h"

namespace ringlab::ui {

class SegmentModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    using QAbstractTableModel::QAbstractTableModel;
    void setSession(const SampleTable &tab, const std::vector<ParamChangeRow> &changes,
                    double warmupS = 1.0);

    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : static_cast<int>(rows_.size());
    }
    int columnCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : kColumns;
    }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    static constexpr int kMetrics = 4;
    static constexpr int kColumns = 4 + kMetrics * 2;
    struct Row {
        Segment seg;
        Estimate est[kMetrics];
        Difference diff[kMetrics];
        bool hasPrev = false;
    };
    std::vector<Row> rows_;
};

} // namespace ringlab::ui
