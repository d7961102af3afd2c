// SPDX-License-Identifier: GPL-2.0-or-later
// How the desktop reaches an engine: the API's requests (docs/api.md) and its live stream of
// JSON lines. The engine in this process (LocalLink) and one that `ringlab-engine serve`
// offers (RemoteLink) are reached the same way, so the window has one path for both.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <functional>
#include <nlohmann/json.hpp>

namespace ringlab::ui {

class EngineLink : public QObject {
    Q_OBJECT
  public:
    struct Reply {
        int status = 0;      // HTTP status; 0: no reply (the engine is not reached)
        nlohmann::json body; // the reply's JSON (null when it is not JSON)
        QByteArray data;     // the reply as it came (an export)
        QByteArray contentType;
        QString error; // what went wrong: the API's message, or the network's
        bool ok() const { return status >= 200 && status < 300; }
    };

    using QObject::QObject;

    // The reply to one request. A remote engine's is waited for in a local event loop (the
    // window keeps drawing); the engine in this process answers at once.
    virtual Reply call(const QByteArray &method, const QString &path,
                       const nlohmann::json &body = nlohmann::json::object()) = 0;
    // `done` is called later, from the event loop, with the reply.
    virtual void callLater(const QByteArray &method, const QString &path,
                           const nlohmann::json &body, std::function<void(const Reply &)> done) = 0;

    // The run's control key, sent with every request (X-Ringlab-Control).
    void setControl(const QByteArray &key) { control_ = key; }
    QByteArray control() const { return control_; }

    // Opens the stream (again); lines arrive as lineReceived.
    virtual void openStream() = 0;
    // Ends the stream now (the link itself may be deleted later).
    virtual void close() = 0;

  signals:
    void lineReceived(const nlohmann::json &line);
    // The stream broke (up = false, with why) or is open again after a break.
    void connectionChanged(bool up, const QString &why);

  protected:
    QByteArray control_;
};

} // namespace ringlab::ui
