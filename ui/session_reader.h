// SPDX-License-Identifier: GPL-2.0-or-later
// A recorded session read whole, off the GUI thread: its samples (as a table and as Sample
// rows for the charts), changes and events. Reading an hour of samples takes the database
// longer than a frame, so the desktop reads on a worker thread with a connection of its own
// and only puts the result into its widgets on the GUI thread.
#pragma once

#include <QFuture>
#include <QString>
#include <memory>
#include <vector>

#include "engine/datapath/sample.h"
#include "engine/store/session_store.h"

namespace ringlab::ui {

struct SessionData {
    std::int64_t id = 0;
    SessionInfo info;
    SampleTable table;
    std::vector<std::shared_ptr<const Sample>> samples;
    std::vector<ParamChangeRow> changes;
    std::vector<EventRow> events;
    QString error; // not empty: nothing else is valid
    int stalls() const;
};

// Reads session `id` through `store` (on the calling thread).
SessionData readSession(SessionStore &store, std::int64_t id);
// Reads it on a worker thread through a read-only connection to the same file. A store
// that is not a file (":memory:") is read here, at once.
QFuture<SessionData> readSessionAsync(SessionStore &store, std::int64_t id);

} // namespace ringlab::ui
