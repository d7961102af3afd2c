// SPDX-License-Identifier: GPL-2.0-or-later
// Two sessions side by side: charts overlaid on a common relative time axis (B dashed)
// and the engine's compare table.
#pragma once

#include <QDialog>

#include "engine/session_store.h"

class QTableView;

namespace ringlab::ui {

class ChartsView;
class CompareModel;

class CompareDialog : public QDialog {
    Q_OBJECT
  public:
    CompareDialog(SessionStore &store, std::int64_t a, std::int64_t b, QWidget *parent = nullptr);
    CompareModel *model() const { return model_; }
    ChartsView *charts() const { return charts_; }
    bool ok() const { return ok_; }
    QString error() const { return error_; }

  private:
    ChartsView *charts_;
    CompareModel *model_;
    QTableView *table_;
    bool ok_ = false;
    QString error_;
};

} // namespace ringlab::ui
