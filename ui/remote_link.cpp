// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/remote_link.h"

#include <QEventLoop>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace ringlab::ui {

RemoteLink::RemoteLink(const QUrl &url, const QByteArray &token, QObject *parent)
    : QObject(parent), url_(url), token_(token)
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

RemoteLink::Reply RemoteLink::replyOf(QNetworkReply *r)
{
    Reply out;
    out.status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.data = r->readAll();
    out.contentType = r->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    if (out.contentType.startsWith("application/json")) {
        out.body = nlohmann::json::parse(out.data.toStdString(), nullptr, false);
        if (out.body.is_discarded()) out.body = nullptr;
    }
    if (out.status == 401)
        out.error = tr("the engine refused the token (401)");
    else if (out.body.is_object() && out.body.contains("error") && out.body["error"].is_string())
        out.error = QString::fromStdString(out.body["error"].get<std::string>());
    else if (out.status == 0)
        out.error = r->errorString();
    else if (!out.ok())
        out.error = tr("HTTP %1").arg(out.status);
    return out;
}

RemoteLink::Reply RemoteLink::call(const QByteArray &method, const QString &path,
                                   const nlohmann::json &body)
{
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
    QNetworkReply *r = send(method, path, body);
    connect(r, &QNetworkReply::finished, this, [r, done = std::move(done)] {
        if (done) done(replyOf(r));
        r->deleteLater();
    });
}

void RemoteLink::openStream()
{
    if (stream_) {
        stream_->disconnect(this);
        stream_->abort();
        stream_->deleteLater();
    }
    buffer_.clear();
    stream_ = send("GET", QStringLiteral("/v1/run/stream"), {});
    connect(stream_, &QNetworkReply::readyRead, this, &RemoteLink::onStreamData);
    connect(stream_, &QNetworkReply::finished, this, &RemoteLink::onStreamEnded);
}

void RemoteLink::onStreamData()
{
    if (!stream_) return;
    const int status = stream_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200) return; // an error reply: read whole when it ends
    if (!up_) {
        up_ = true;
        emit connectionChanged(true, {});
    }
    buffer_ += stream_->readAll();
    if (buffer_.size() > kMaxLineBytes && buffer_.indexOf('\n') < 0) {
        stream_->abort(); // not a stream of lines: onStreamEnded reports it and retries
        return;
    }
    for (int nl = buffer_.indexOf('\n'); nl >= 0; nl = buffer_.indexOf('\n')) {
        const QByteArray line = buffer_.left(nl);
        buffer_.remove(0, nl + 1);
        auto j = nlohmann::json::parse(line.toStdString(), nullptr, false);
        if (!j.is_discarded() && j.is_object()) emit lineReceived(j);
    }
}

void RemoteLink::onStreamEnded()
{
    if (!stream_) return;
    QNetworkReply *r = stream_;
    stream_ = nullptr;
    const Reply reply = replyOf(r);
    r->deleteLater();
    QString why = reply.error.isEmpty() ? r->errorString() : reply.error;
    if (reply.status == 200)
        why = r->error() == QNetworkReply::NoError
                  ? tr("the engine ended the stream")
                  : tr("the connection was lost (%1)").arg(r->errorString());
    if (up_) {
        up_ = false;
        emit connectionChanged(false, why);
    }
    retry_.start();
}

void RemoteLink::retry()
{
    callLater("GET", QStringLiteral("/v1/version"), {}, [this](const Reply &r) {
        if (r.ok())
            openStream();
        else
            retry_.start();
    });
}

} // namespace ringlab::ui
