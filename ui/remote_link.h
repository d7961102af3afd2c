// SPDX-License-Identifier: GPL-2.0-or-later
// The desktop's connection to an engine served by `ringlab-engine serve` (docs/api.md):
// requests, and the live stream as JSON lines. Over TCP (HTTP or HTTPS with a bearer
// token) Qt's network module carries them; to an engine on this machine through its Unix
// socket (unix:PATH; access is the socket's group, no token), UnixHttp does, on worker
// threads. A stream that breaks is reported at once and reopened every kRetryMs until the
// engine answers again.
#pragma once

#include <QByteArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QTimer>
#include <QUrl>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "ui/engine_link.h"

namespace ringlab::ui {

class UnixHttp;

class RemoteLink final : public EngineLink {
    Q_OBJECT
  public:
    static constexpr int kRetryMs = 2000;
    static constexpr int kRequestTimeoutMs = 15000;
    static constexpr qsizetype kMaxLineBytes = 4 << 20; // a sample line is a few KiB

    // `url`: http(s)://HOST:PORT, or unix:PATH. The token is sent with every request.
    RemoteLink(const QUrl &url, const QByteArray &token, QObject *parent = nullptr);
    ~RemoteLink() override;

    // Waits for the reply in a local event loop (the window keeps drawing), at most
    // kRequestTimeoutMs.
    Reply call(const QByteArray &method, const QString &path,
               const nlohmann::json &body = nlohmann::json::object()) override;
    void callLater(const QByteArray &method, const QString &path, const nlohmann::json &body,
                   std::function<void(const Reply &)> done) override;

    QUrl url() const { return url_; }

    // A stream that breaks is reopened every kRetryMs until the engine answers again.
    void openStream() override;
    // Ends the stream and its retries now (the link itself may be deleted later).
    void close() override;
    bool streaming() const { return stream_ != nullptr || unixStream_ != nullptr; }
    // A broken stream: tries again now instead of at the next retry.
    void reconnect();

    // unix:PATH: an engine on this machine, through its socket.
    static bool isLocalSocket(const QUrl &url) { return url.scheme() == QLatin1String("unix"); }

  private:
    // The Unix-socket transport: a request on a worker thread, `done` back on this thread.
    void unixCall(const QByteArray &method, const QString &path, const nlohmann::json &body,
                  std::function<void(const Reply &)> done);
    void openUnixStream();
    static Reply replyOf(int status, QByteArray data, QByteArray contentType,
                         const QString &transportError);
    void takeStreamBytes(const QByteArray &bytes);
    void streamEnded(const Reply &reply, bool lost, const QString &lostWhy);
    QNetworkReply *send(const QByteArray &method, const QString &path, const nlohmann::json &body);
    static Reply replyOf(QNetworkReply *r);
    void retry();

    QUrl url_;
    QByteArray token_;
    QNetworkAccessManager nam_;
    QPointer<QNetworkReply> stream_;
    std::shared_ptr<UnixHttp> unixStream_; // the stream over the Unix socket, while open
    QByteArray buffer_;
    QTimer retry_;
    bool up_ = true;
    bool closed_ = false;
};

} // namespace ringlab::ui
