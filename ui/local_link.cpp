// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/local_link.h"

#include <QMetaObject>
#include <QTimer>
#include <QUrl>
#include <QUrlQuery>

#include "engine/experiments/job_queue.h"

namespace ringlab::ui {

LocalLink::LocalLink(RunApiOptions options, const DeviceProvider &devices, QObject *parent)
    : EngineLink(parent), api_(std::make_unique<RunApi>(std::move(options), devices))
{
    // The engine's jobs, as a served engine has them (/v1/jobs): one measurement at a time.
    api_->attachJobs(std::make_shared<JobQueue>(
        JobQueueOptions{api_->measurementLock(),
                        api_->database(),
                        api_->recording(),
                        [api = api_.get()](const std::string &line) { api->publish(line); },
                        {},
                        kKeptEndedJobs,
                        {}},
        devices)); // in-process: the user's own rights, no grants
}

LocalLink::~LocalLink()
{
    close(); // no line is announced to this object from here on
    api_.reset();
}

LocalLink::Reply LocalLink::handle(const QByteArray &method, const QString &path,
                                   const nlohmann::json &body)
{
    ApiRequest r;
    r.method = method.toStdString();
    const QUrl url(path);
    r.path = url.path().toStdString();
    for (const auto &[k, v] : QUrlQuery(url).queryItems(QUrl::FullyDecoded))
        r.query.emplace(k.toStdString(), v.toStdString());
    if (method != "GET")
        r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    r.control = control_.toStdString();
    const ApiReply a = api_->handle(r);
    Reply out;
    out.status = a.status;
    if (a.text.empty()) {
        out.body = a.body;
        out.data = QByteArray::fromStdString(
            a.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        out.contentType = "application/json";
    } else {
        out.data = QByteArray::fromStdString(a.text);
        out.contentType = QByteArray::fromStdString(a.contentType);
    }
    if (!out.ok())
        out.error =
            out.body.is_object() && out.body.contains("error") && out.body.at("error").is_string()
                ? QString::fromStdString(out.body.at("error").get<std::string>())
                : tr("the engine answered %1").arg(out.status);
    return out;
}

LocalLink::Reply LocalLink::call(const QByteArray &method, const QString &path,
                                 const nlohmann::json &body)
{
    Reply r = handle(method, path, body);
    // What the stream has delivered comes before the reply: all that a stop caused (the stop
    // waits for its subscribers); a change's event line may follow it, as over a socket.
    drain();
    return r;
}

void LocalLink::callLater(const QByteArray &method, const QString &path, const nlohmann::json &body,
                          std::function<void(const Reply &)> done)
{
    QTimer::singleShot(0, this, [this, r = handle(method, path, body), done = std::move(done)] {
        drain();
        if (done) done(r);
    });
}

void LocalLink::openStream()
{
    close();
    watcher_ = api_->watch();
    if (!watcher_) return; // kMaxWatchers: only a served engine has other watchers
    // From the engine's threads when a line reaches an empty queue: drained on this thread.
    // close() clears it (under the watcher's lock) before this object can go away.
    watcher_->setNotify(
        [this] { QMetaObject::invokeMethod(this, &LocalLink::drain, Qt::QueuedConnection); });
    drain(); // the state line
}

void LocalLink::close()
{
    if (!watcher_) return;
    watcher_->setNotify({});
    watcher_.reset();
}

void LocalLink::drain()
{
    if (!watcher_) return;
    std::vector<Watcher::Line> lines;
    const bool open = watcher_->take(lines, 0);
    for (const auto &l : lines) {
        nlohmann::json j = nlohmann::json::parse(*l, nullptr, false);
        if (!j.is_discarded()) emit lineReceived(j);
        if (!watcher_) return; // a receiver closed the stream
    }
    if (!open) {
        // Cut off (the window did not drain for a minute of lines): watch again; the state
        // line that opens the new watch says what is going.
        emit connectionChanged(true, {});
        openStream();
    }
}

} // namespace ringlab::ui
