// SPDX-License-Identifier: GPL-2.0-or-later
// The desktop's connection to an engine served by `ringlab-engine serve` over TCP (HTTP or
// HTTPS with a bearer token; docs/api.md): requests, and the live stream as JSON lines. A
// stream that breaks is reported at once and reopened every kRetryMs until the engine
// answers again. Qt 6.4's network module has no Unix-socket transport, so the desktop
// reaches a local engine through tcp:127.0.0.1.
#pragma once

#include <QByteArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>
#include <functional>
#include <nlohmann/json.hpp>

namespace ringlab::ui {

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

    // `url`: http(s)://HOST:PORT. The token is sent with every request.
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
    bool streaming() const { return stream_ != nullptr; }

  signals:
    void lineReceived(const nlohmann::json &line);
    // The stream broke (up = false, with why) or is open again after a break.
    void connectionChanged(bool up, const QString &why);

  private:
    QNetworkReply *send(const QByteArray &method, const QString &path, const nlohmann::json &body);
    static Reply replyOf(QNetworkReply *r);
    void onStreamData();
    void onStreamEnded();
    void retry();

    QUrl url_;
    QByteArray token_, control_;
    QNetworkAccessManager nam_;
    QPointer<QNetworkReply> stream_;
    QByteArray buffer_;
    QTimer retry_;
    bool up_ = true;
};

} // namespace ringlab::ui
