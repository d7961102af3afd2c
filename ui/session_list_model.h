// SPDX-License-Identifier: GPL-2.0-or-later
// The sessions in the database: name, start, duration, status, profile.
#pragma once

#include <QAbstractTableModel>
#include <map>

#include "engine/store/session_store.h"

namespace ringlab::ui {

class SessionListModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    using QAbstractTableModel::QAbstractTableModel;
    void setSessions(std::vector<SessionInfo> sessions);
    // The environment each ran on (by id), for the sessions' information; a session without
    // one shows "not recorded". `missing` is shown for a session not in the map (an engine's
    // that is not copied here yet); empty shows nothing.
    void setEnvironments(std::map<std::int64_t, Environment> environments, QString missing = {});
    const SessionInfo *session(int row) const;
    int rowOf(std::int64_t id) const;
    // The running session's duration so far (the store has it only when it ends).
    void setLiveDuration(std::int64_t id, double seconds);

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
    std::vector<SessionInfo> rows_;
    std::map<std::int64_t, Environment> environments_;
    QString missingEnvironment_;
};

// The environment in a few lines for a tooltip: the facts that move results most, and how
// many are absent.
QString environmentSummary(const Environment &env);

} // namespace ringlab::ui
