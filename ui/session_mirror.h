// SPDX-License-Identifier: GPL-2.0-or-later
// An attached engine's sessions, seen as local ones. The list comes from /v1/sessions. A
// session is copied whole (/v1/sessions/ID/export?format=sqlite) into a database of this
// desktop's, under the engine's id, the first time it is opened, compared or exported.
// Charts, segments, compare and export then read it exactly as they read a local session.
// A finished session never changes, so a copy is fetched once; one still being recorded is
// not copied.
#pragma once

#include "ui/status_text.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QUrl>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/store/session_store.h"

namespace ringlab::ui {

class RemoteLink;

class SessionMirror : public QObject {
    Q_OBJECT
  public:
    // A QObject so that detaching can delete it later (deleteLater): a fetch may be waiting
    // for the engine inside a nested event loop when the window detaches.
    SessionMirror(RemoteLink &link, SessionStore &copies, QObject *parent = nullptr)
        : QObject(parent), link_(link), copies_(copies)
    {
    }

    // Where the copies of an engine's sessions are kept: one database per engine address,
    // under the user's cache folder.
    static QString databaseFor(const QUrl &engine);

    // The engine's sessions, numbered as the engine numbers them.
    Result<std::vector<SessionInfo>> list();
    // The same without waiting: `done` is called with the list or an error, never after this
    // mirror is gone.
    void listLater(std::function<void(const std::vector<SessionInfo> &, const QString &)> done);
    // Makes sure each session is here; refuses one that is still being recorded.
    Status fetch(const QList<qint64> &ids);

  private:
    Status fetchOne(const SessionInfo &remote);
    Status fetchOneOrThrow(const SessionInfo &remote);
    bool takeList(const nlohmann::json &body, std::vector<SessionInfo> &out);

    RemoteLink &link_;
    SessionStore &copies_;
    std::map<qint64, SessionInfo> known_; // the last list, by id
};

} // namespace ringlab::ui
