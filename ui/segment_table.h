// SPDX-License-Identifier: GPL-2.0-or-later
// The segment table under the charts: the baseline the Δ columns compare with (the previous
// segment, any segment of this session, or SESSION:SEGMENT of another), the columns shown
// (kept in the settings), and a view that follows the newest segment of a live run.
#pragma once

#include <QWidget>
#include <functional>

#include "ui/status_text.h"

class QComboBox;
class QMenu;
class QTableView;
class QToolButton;

namespace ringlab {
class SessionStore;
}

namespace ringlab::ui {

class SegmentModel;

class SegmentTable : public QWidget {
    Q_OBJECT
  public:
    // `store`: where another session's segment is read from (null when none is open).
    SegmentTable(SegmentModel *model, std::function<SessionStore *()> store,
                 QWidget *parent = nullptr);
    QTableView *view() const { return view_; }
    QComboBox *baselineBox() const { return baseline_; }
    QMenu *columnsMenu(); // filled with the catalogue, the columns shown checked
    // SESSION:SEGMENT of another session as the baseline; false with the reason.
    Status useOtherSegment(const QString &spec);

  signals:
    void message(const QString &text, int timeoutMs);

  private:
    void fillBaselines();
    void chooseColumns();
    QTableView *view_;
    QComboBox *baseline_;
    QToolButton *columns_;
    SegmentModel *model_;
    std::function<SessionStore *()> store_;
    bool atBottom_ = true;
};

} // namespace ringlab::ui
