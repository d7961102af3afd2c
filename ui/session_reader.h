// SPDX-License-Identifier: GPL-2.0-or-later
// A recorded session read whole, off the GUI thread: its samples (as a table, and as the
// charts' series with their pyramids), changes and events. Reading an hour of samples takes
// the database longer than a frame, so the desktop reads and prepares on a worker thread
// with a connection of its own and only hands the result to its widgets on the GUI thread.
#pragma once

#include <QFuture>
#include <QString>
#include <memory>
#include <vector>

#include "engine/datapath/sample.h"
#include "engine/store/session_store.h"
#include "ui/charts_view.h"

namespace ringlab::ui {

struct SessionData {
    std::int64_t id = 0;
    SessionInfo info;
    SampleTable table;
    PreparedCharts charts; // ChartsView::prepare of the samples
    std::vector<ParamChangeRow> changes;
    std::vector<EventRow> events;
    QString error; // not empty: nothing else is valid
    int stalls() const;
};

// Reads session `id` through `store` (on the calling thread).
SessionData readSession(SessionStore &store, std::int64_t id);
// The same, a long session's later half read at once through a connection of its own to
// `file` (the store's file) on another thread.
SessionData readSession(SessionStore &store, std::int64_t id, const std::filesystem::path &file);
// Reads it on a worker thread through a read-only connection to the same file. A store
// that is not a file (":memory:") is read here, at once.
QFuture<SessionData> readSessionAsync(SessionStore &store, std::int64_t id);

} // namespace ringlab::ui
