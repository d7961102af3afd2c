// SPDX-License-Identifier: GPL-2.0-or-later
// Files from a session: CSV and JSON through the engine, the charts as PNG or SVG.
#pragma once

#include <QString>
#include <QWidget>

#include "engine/store/session_store.h"
#include "ui/session_reader.h"
#include "ui/status_text.h"

namespace ringlab::ui {

// Draws `widget` into FILE.png or FILE.svg at its current size.
Status saveWidgetImage(QWidget *widget, const QString &file);
// A recorded session's charts (its markers, the series chosen on screen) under a title
// (empty: the session's own, see sessionTitle), drawn off screen at `size`, as PNG or SVG.
Status renderSessionCharts(SessionStore &store, std::int64_t id, const QString &file, QSize size,
                           const QString &title);
// The same for a session already read (session_reader.h): drawing only, on the GUI thread.
Status renderSessionCharts(SessionData &session, const QString &file, QSize size,
                           const QString &title);
// By the file's suffix: .csv, .json, .png or .svg.
Status exportSessionFile(SessionStore &store, std::int64_t id, const QString &file);

} // namespace ringlab::ui
