// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's compare table (one row per metric) as a Qt model.
#pragma once

#include <QAbstractTableModel>

#include "engine/store/session_compare.h"

namespace ringlab::ui {

class CompareModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<CompareRow> rows);
    const std::vector<CompareRow> &rows() const { return rows_; }
    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : static_cast<int>(rows_.size());
    }
    int columnCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : 6;
    }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    std::vector<CompareRow> rows_;
};

} // namespace ringlab::ui
