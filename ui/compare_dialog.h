// SPDX-License-Identifier: GPL-2.0-or-later
// Two sessions compared per segment: A and B are each a segment (the longest by default) or
// a whole session, with the caveats the command line prints; A and B as distributions (the
// latency tail, a box per key rate); and the engine's compare table, the key metrics first.
#pragma once

#include <QDialog>

#include "engine/store/session_store.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QTableView;

namespace ringlab::ui {

class CompareModel;

class CompareDialog : public QDialog {
    Q_OBJECT
  public:
    CompareDialog(SessionStore &store, std::int64_t a, std::int64_t b, QWidget *parent = nullptr);
    CompareModel *model() const { return model_; }
    QComboBox *sideBox(int side) const { return side == 0 ? boxA_ : boxB_; }
    QLabel *notes() const { return notes_; }
    QTableView *table() const { return table_; }
    // The distribution plots drawn: the latency tail first, then a box per key metric.
    QList<QWidget *> plots() const { return plots_; }
    bool ok() const { return ok_; }
    QString error() const { return error_; }

  private:
    void fillSide(QComboBox *box, std::int64_t id);
    void recompute();
    SessionStore &store_;
    std::int64_t a_, b_;
    QComboBox *boxA_, *boxB_;
    QLabel *notes_;
    QGridLayout *plotGrid_;
    QList<QWidget *> plots_;
    CompareModel *model_;
    QTableView *table_;
    bool ok_ = false;
    QString error_;
};

} // namespace ringlab::ui
