// SPDX-License-Identifier: GPL-2.0-or-later
// A session's charts, the same live, reopened and rendered to a file: the samples, and a
// marker for each parameter change, mark and restart, labelled in one way.
#pragma once

#include <QString>
#include <string>

#include "engine/datapath/sample.h"
#include "engine/store/session_store.h"
#include "ui/session_reader.h"

namespace ringlab::ui {

class ChartsView;

QString changeLabel(const std::string &tunable, const std::string &before,
                    const std::string &after);
// A "param", "mark" or "restart" event as a marker; other kinds draw nothing.
void addEventMarker(ChartsView &view, const Event &e);
// A session read whole (session_reader.h) into the charts, seen whole. Its prepared charts
// are taken (moved out of `session`).
void showSessionCharts(ChartsView &view, SessionData &session);
// The same, read on this thread. False if there is no such session.
bool loadSessionCharts(ChartsView &view, SessionStore &store, std::int64_t id);
// "Session 12 · name · kni-tick · sim0 · 2026-12-01 08:10": a title for exported charts.
QString sessionTitle(const SessionInfo &info);

} // namespace ringlab::ui
