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
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

namespace ringlab::ui {

class UnixHttp;

class RemoteLink : public QObject {
    Q_OBJECT
  public:
    static constexpr int kRetryMs = 2000;
    static constexpr int kRequestTimeoutMs = 15000;
    static constexpr qsizetype kMaxLineBytes = 4 << 20; // a sample line is a few KiB

    struct Reply {
        int status = 0;      // HTTP status; 0: no reply (the engine is not reached)
        nlohmann::json body; // the reply's JSON (null when it is not JSON)
        QByteArray data;     // the reply as it came (an export)
        QByteArray contentType;
        QString error; // what went wrong: the API's message, or the network's
        bool ok() const { return status >= 200 && status < 300; }
    };

    // `url`: http(s)://HOST:PORT, or unix:PATH. The token is sent with every request.
    RemoteLink(const QUrl &url, const QByteArray &token, QObject *parent = nullptr);
    ~RemoteLink() override;

    // Waits for the reply in a local event loop (the window keeps drawing), at most
    // kRequestTimeoutMs.
    Reply call(const QByteArray &method, const QString &path,
               const nlohmann::json &body = nlohmann::json::object());
    void callLater(const QByteArray &method, const QString &path, const nlohmann::json &body,
                   std::function<void(const Reply &)> done);

    void setControl(const QByteArray &key) { control_ = key; }
    QByteArray control() const { return control_; }
    QUrl url() const { return url_; }

    // Opens the stream (again); lines arrive as lineReceived.
    void openStream();
    // Ends the stream and its retries now (the link itself may be deleted later).
    void close();
    bool streaming() const { return stream_ != nullptr || unixStream_ != nullptr; }

    // unix:PATH: an engine on this machine, through its socket.
    static bool isLocalSocket(const QUrl &url) { return url.scheme() == QLatin1String("unix"); }

  signals:
    void lineReceived(const nlohmann::json &line);
    // The stream broke (up = false, with why) or is open again after a break.
    void connectionChanged(bool up, const QString &why);

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
    QByteArray token_, control_;
    QNetworkAccessManager nam_;
    QPointer<QNetworkReply> stream_;
    std::shared_ptr<UnixHttp> unixStream_; // the stream over the Unix socket, while open
    QByteArray buffer_;
    QTimer retry_;
    bool up_ = true;
    bool closed_ = false;
};

} // namespace ringlab::ui
