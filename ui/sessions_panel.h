// SPDX-License-Identifier: GPL-2.0-or-later
// The sessions in the database: open one, rename, delete, export, or pick two to compare.
#pragma once

#include <QWidget>

class QTableView;
class QPushButton;

namespace ringlab::ui {

class EngineController;
class SessionListModel;

class SessionsPanel : public QWidget {
    Q_OBJECT
  public:
    SessionsPanel(EngineController *ctl, QWidget *parent = nullptr);
    SessionListModel *model() const { return model_; }
    QTableView *view() const { return view_; }
    QList<qint64> selectedIds() const;

  public slots:
    void reload();
    // An engine's sessions: the environments of those copied here (after an open, a compare
    // or an export), read from the copies without asking the engine again.
    void readCopiedEnvironments();
    void renameSelected(const QString &name);
    void deleteSelected();

  signals:
    void openRequested(qint64 id);
    void compareRequested(qint64 a, qint64 b);
    void exportRequested(qint64 id);
    void message(const QString &text, int timeoutMs);

  private:
    void updateButtons();
    // Columns fitted to their contents, a name at most about 28 characters wide (a sweep's
    // runs are named with their settings; the whole name is in the row's tooltip).
    void fitColumns();
    EngineController *ctl_;
    quint64 listsAsked_ = 0; // an engine's lists may come back out of order
    SessionListModel *model_;
    QTableView *view_;
    QPushButton *open_, *rename_, *delete_, *export_, *compare_;
};

} // namespace ringlab::ui
