// SPDX-License-Identifier: GPL-2.0-or-later
// An attached engine's sessions, seen as local ones. The list comes from /v1/sessions. A
// session is copied whole (/v1/sessions/ID/export?format=sqlite) into a database of this
// desktop's, under the engine's id, the first time it is opened, compared or exported.
// Charts, segments, compare and export then read it exactly as they read a local session.
// A finished session never changes, so a copy is fetched once; one still being recorded is
// not copied.
#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <QUrl>
#include <map>
#include <vector>

#include "engine/store/session_store.h"

namespace ringlab::ui {

class RemoteLink;

class SessionMirror {
    Q_DECLARE_TR_FUNCTIONS(SessionMirror)
  public:
    SessionMirror(RemoteLink &link, SessionStore &copies) : link_(link), copies_(copies) {}

    // Where the copies of an engine's sessions are kept: one database per engine address,
    // under the user's cache folder.
    static QString databaseFor(const QUrl &engine);

    // The engine's sessions, numbered as the engine numbers them.
    bool list(std::vector<SessionInfo> &out, QString *error);
    // Makes sure each session is here; refuses one that is still being recorded.
    bool fetch(const QList<qint64> &ids, QString *error);

  private:
    bool fetchOne(const SessionInfo &remote, QString *error);

    RemoteLink &link_;
    SessionStore &copies_;
    std::map<qint64, SessionInfo> known_; // the last list, by id
};

} // namespace ringlab::ui
