// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/remote_link.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QThread>

#include "ui/unix_http.h"

namespace ringlab::ui {

RemoteLink::RemoteLink(const QUrl &url, const QByteArray &token, QObject *parent)
    : EngineLink(parent), url_(url), token_(token)
{
    retry_.setSingleShot(true);
    retry_.setInterval(kRetryMs);
    connect(&retry_, &QTimer::timeout, this, &RemoteLink::retry);
}

RemoteLink::~RemoteLink()
{
    if (stream_) {
        stream_->disconnect(this);
        stream_->abort();
    }
    if (unixStream_) unixStream_->stop(); // its thread ends; what it posts finds no receiver
}

QNetworkReply *RemoteLink::send(const QByteArray &method, const QString &path,
                                const nlohmann::json &body)
{
    QUrl u = url_;
    const int q = path.indexOf('?');
    u.setPath(q < 0 ? path : path.left(q));
    if (q >= 0) u.setQuery(path.mid(q + 1));
    QNetworkRequest req(u);
    req.setRawHeader("Authorization", "Bearer " + token_);
    if (!control_.isEmpty()) req.setRawHeader("X-Ringlab-Control", control_);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    req.setTransferTimeout(path.endsWith(QLatin1String("/stream")) ? 0 : kRequestTimeoutMs);
    if (method == "GET") return nam_.get(req);
    return nam_.sendCustomRequest(req, method, QByteArray::fromStdString(body.dump()));
}

RemoteLink::Reply RemoteLink::replyOf(int status, QByteArray data, QByteArray contentType,
                                      const QString &transportError)
{
    Reply out;
    out.status = status;
    out.data = std::move(data);
    out.contentType = std::move(contentType);
    if (out.contentType.startsWith("application/json")) {
        out.body = nlohmann::json::parse(out.data.toStdString(), nullptr, false);
        if (out.body.is_discarded()) out.body = nullptr;
    }
    if (out.status == 401)
        out.error = tr("the engine refused the token (401)");
    else if (out.body.is_object() && out.body.contains("error") && out.body["error"].is_string())
        out.error = QString::fromStdString(out.body["error"].get<std::string>());
    else if (out.status == 0)
        out.error = transportError;
    else if (!out.ok())
        out.error = tr("HTTP %1").arg(out.status);
    return out;
}

RemoteLink::Reply RemoteLink::replyOf(QNetworkReply *r)
{
    return replyOf(r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), r->readAll(),
                   r->header(QNetworkRequest::ContentTypeHeader).toByteArray(), r->errorString());
}

RemoteLink::Reply RemoteLink::call(const QByteArray &method, const QString &path,
                                   const nlohmann::json &body)
{
    if (isLocalSocket(url_)) {
        // The reply may come after this returns (the application quit the loop): it then
        // lands in `state`, never in this frame.
        struct State {
            Reply reply;
            bool done = false;
        };
        auto state = std::make_shared<State>();
        QEventLoop loop;
        QPointer<QEventLoop> waiting(&loop);
        unixCall(method, path, body, [state, waiting](const Reply &r) {
            state->reply = r;
            state->done = true;
            if (waiting) waiting->quit();
        });
        if (!state->done) loop.exec(QEventLoop::ExcludeUserInputEvents);
        if (!state->done) state->reply.error = tr("the application is quitting");
        return state->reply;
    }
    QNetworkReply *r = send(method, path, body);
    QEventLoop loop;
    connect(r, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!r->isFinished()) loop.exec(QEventLoop::ExcludeUserInputEvents);
    if (!r->isFinished()) r->abort(); // the application is quitting: no reply is coming
    const Reply out = replyOf(r);
    r->deleteLater();
    return out;
}

void RemoteLink::callLater(const QByteArray &method, const QString &path,
                           const nlohmann::json &body, std::function<void(const Reply &)> done)
{
    if (isLocalSocket(url_)) {
        unixCall(method, path, body, std::move(done));
        return;
    }
    QNetworkReply *r = send(method, path, body);
    connect(r, &QNetworkReply::finished, this, [r, done = std::move(done)] {
        if (done) done(replyOf(r));
        r->deleteLater();
    });
}

void RemoteLink::unixCall(const QByteArray &method, const QString &path, const nlohmann::json &body,
                          std::function<void(const Reply &)> done)
{
    // The thread holds copies only: this link may be gone when the reply comes, and then
    // the reply is dropped (the context object of the queued call is this).
    struct Call {
        std::string socket, method, path, body;
        UnixHttp::Headers headers;
        UnixHttp::Result result;
    };
    auto call = std::make_shared<Call>();
    call->socket = url_.path().toStdString();
    call->method = method.toStdString();
    call->path = path.toStdString();
    if (method != "GET") call->body = body.dump();
    if (!control_.isEmpty())
        call->headers.emplace_back("X-Ringlab-Control", control_.toStdString());
    QThread *t = QThread::create([call] {
        call->result =
            UnixHttp(call->socket)
                .request(call->method, call->path, call->headers, call->body, kRequestTimeoutMs);
    });
    connect(t, &QThread::finished, this, [call, done = std::move(done)] {
        const auto &r = call->result;
        if (done)
            done(replyOf(r.status, QByteArray::fromStdString(r.body),
                         QByteArray::fromStdString(r.contentType),
                         QString::fromStdString(r.error)));
    });
    connect(t, &QThread::finished, t, &QObject::deleteLater);
    t->start();
}

void RemoteLink::close()
{
    retry_.stop();
    closed_ = true;
    if (stream_) {
        QNetworkReply *r = stream_;
        stream_ = nullptr;
        r->disconnect(this);
        r->abort();
        r->deleteLater();
    }
    if (unixStream_) {
        unixStream_->stop();
        unixStream_.reset();
    }
    nam_.clearConnectionCache(); // idle keep-alive connections too: the engine may be stopping
}

void RemoteLink::openStream()
{
    if (closed_) return;
    if (stream_) {
        stream_->disconnect(this);
        stream_->abort();
        stream_->deleteLater();
    }
    if (unixStream_) {
        unixStream_->stop();
        unixStream_.reset();
    }
    buffer_.clear();
    if (isLocalSocket(url_)) {
        openUnixStream();
        return;
    }
    stream_ = send("GET", QStringLiteral("/v1/run/stream"), {});
    connect(stream_, &QNetworkReply::readyRead, this, [this] {
        if (!stream_) return;
        const int status = stream_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 200) takeStreamBytes(stream_->readAll()); // else read whole when it ends
    });
    connect(stream_, &QNetworkReply::finished, this, [this] {
        if (!stream_) return;
        QNetworkReply *r = stream_;
        stream_ = nullptr;
        r->deleteLater();
        streamEnded(replyOf(r), r->error() != QNetworkReply::NoError, r->errorString());
    });
}

void RemoteLink::openUnixStream()
{
    auto http = std::make_shared<UnixHttp>(url_.path().toStdString());
    unixStream_ = http;
    QPointer<RemoteLink> self(this);
    QThread *t = QThread::create([http, self] {
        // Posted to the application's thread, where `self` is checked: the link may be gone.
        auto post = [](auto f) { QMetaObject::invokeMethod(qApp, f, Qt::QueuedConnection); };
        const auto result = http->stream("/v1/run/stream", {}, [&](const char *b, std::size_t n) {
            QByteArray bytes(b, static_cast<qsizetype>(n));
            post([self, http, bytes] {
                if (self && self->unixStream_ == http) self->takeStreamBytes(bytes);
            });
        });
        post([self, http, result] {
            if (!self || self->unixStream_ != http) return; // closed or reopened meanwhile
            self->unixStream_.reset();
            self->streamEnded(replyOf(result.status, QByteArray::fromStdString(result.body),
                                      QByteArray::fromStdString(result.contentType),
                                      QString::fromStdString(result.error)),
                              !result.error.empty(), QString::fromStdString(result.error));
        });
    });
    connect(t, &QThread::finished, t, &QObject::deleteLater);
    t->start();
}

void RemoteLink::takeStreamBytes(const QByteArray &bytes)
{
    if (!up_) {
        up_ = true;
        emit connectionChanged(true, {});
    }
    buffer_ += bytes;
    if (buffer_.size() > kMaxLineBytes && buffer_.indexOf('\n') < 0) {
        // Not a stream of lines: end it; streamEnded reports it and retries.
        buffer_.clear();
        if (stream_) stream_->abort();
        if (unixStream_) unixStream_->stop();
        return;
    }
    for (int nl = buffer_.indexOf('\n'); nl >= 0; nl = buffer_.indexOf('\n')) {
        const QByteArray line = buffer_.left(nl);
        buffer_.remove(0, nl + 1);
        auto j = nlohmann::json::parse(line.toStdString(), nullptr, false);
        if (!j.is_discarded() && j.is_object()) emit lineReceived(j);
    }
}

void RemoteLink::streamEnded(const Reply &reply, bool lost, const QString &lostWhy)
{
    QString why = reply.error.isEmpty() ? lostWhy : reply.error;
    if (reply.status == 200)
        why = lost ? tr("the connection was lost (%1)").arg(lostWhy)
                   : tr("the engine ended the stream");
    if (up_) {
        up_ = false;
        emit connectionChanged(false, why);
    }
    retry_.start();
}

void RemoteLink::reconnect()
{
    if (closed_ || up_) return;
    retry_.stop();
    retry();
}

void RemoteLink::retry()
{
    if (closed_) return;
    callLater("GET", QStringLiteral("/v1/version"), {}, [this](const Reply &r) {
        if (r.ok())
            openStream();
        else
            retry_.start();
    });
}

} // namespace ringlab::ui
