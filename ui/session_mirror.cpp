// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/session_mirror.h"

#include <QDir>
#include <QPointer>
#include <QStandardPaths>
#include <QTemporaryFile>

#include "ui/json_fields.h"
#include "ui/remote_link.h"

namespace ringlab::ui {

using json_fields::number;
using json_fields::real;
using json_fields::text;

namespace {
SessionInfo sessionOf(const nlohmann::json &j)
{
    SessionInfo s;
    s.id = number(j, "id");
    s.uuid = text(j, "uuid");
    s.name = text(j, "name");
    s.status = text(j, "status");
    s.createdAt = text(j, "created_at");
    s.endedAt = text(j, "ended_at");
    s.device = text(j, "device");
    s.profile = text(j, "profile");
    s.host.hostname = text(j, "host");
    s.engineVersion = text(j, "engine_version");
    s.intervalS = real(j, "interval_s");
    s.runGroup = text(j, "run_group");
    s.repeatIndex = static_cast<int>(number(j, "repeat_index"));
    s.durationS = real(j, "duration_s");
    s.sampleCount = number(j, "samples");
    s.meanRxPps = real(j, "mean_rx_pps");
    return s;
}
} // namespace

QString SessionMirror::databaseFor(const QUrl &engine)
{
    QString name = RemoteLink::isLocalSocket(engine)
                       ? QStringLiteral("unix") + engine.path()
                       : engine.host() + QLatin1Char('_') + QString::number(engine.port());
    for (QChar &c : name)
        if (!c.isLetterOrNumber() && c != QLatin1Char('.') && c != QLatin1Char('-')) c = '_';
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
           QStringLiteral("/ringlab/engines/") + name + QStringLiteral(".db");
}

bool SessionMirror::takeList(const nlohmann::json &body, std::vector<SessionInfo> &out)
{
    if (!body.is_array()) return false;
    out.clear();
    known_.clear();
    for (const auto &j : body) {
        SessionInfo s = sessionOf(j);
        if (s.id <= 0 || s.uuid.empty()) continue; // not a session this desktop can copy
        known_[s.id] = s;
        out.push_back(std::move(s));
    }
    return true;
}

Result<std::vector<SessionInfo>> SessionMirror::list()
{
    const auto r = link_.call("GET", QStringLiteral("/v1/sessions"));
    if (std::vector<SessionInfo> out; r.ok() && takeList(r.body, out)) return out;
    return failedBecause(
        tr("sessions on the engine: %1").arg(r.ok() ? tr("the reply is not a list") : r.error));
}

void SessionMirror::listLater(
    std::function<void(const std::vector<SessionInfo> &, const QString &)> done)
{
    QPointer<SessionMirror> self(this);
    link_.callLater("GET", QStringLiteral("/v1/sessions"), {},
                    [self, done = std::move(done)](const RemoteLink::Reply &r) {
                        if (!self) return;
                        std::vector<SessionInfo> out;
                        if (r.ok() && self->takeList(r.body, out))
                            done(out, {});
                        else
                            done({}, tr("sessions on the engine: %1")
                                         .arg(r.ok() ? tr("the reply is not a list") : r.error));
                    });
}

Status SessionMirror::fetch(const QList<qint64> &ids)
{
    for (qint64 id : ids) {
        // The last list, read again when it lacks the session or had it running (it may
        // have ended since).
        auto it = known_.find(id);
        if (it == known_.end() || it->second.status == "running") {
            if (const auto fresh = list(); !fresh.ok()) return fresh.status();
            it = known_.find(id);
        }
        if (it == known_.end()) return refusedBecause(tr("the engine has no session %1").arg(id));
        // A copy: the list may be read again (listLater's reply) while the export is fetched.
        const SessionInfo remote = it->second;
        if (Status st = fetchOne(remote); !st.ok()) return st;
    }
    return Status::success();
}

Status SessionMirror::fetchOne(const SessionInfo &remote)
{
    // The copies are a database: busy (another desktop shares the cache) or damaged, it
    // throws; a fetch says so instead.
    try {
        return fetchOneOrThrow(remote);
    } catch (const DbError &e) {
        return failedBecause(
            tr("session %1 from the engine: %2").arg(remote.id).arg(QString::fromUtf8(e.what())));
    }
}

Status SessionMirror::fetchOneOrThrow(const SessionInfo &remote)
{
    SessionInfo here;
    if (copies_.get(remote.id, here) && here.uuid == remote.uuid)
        return Status::success(); // fetched before
    if (remote.status == "running")
        return refusedBecause(tr("session %1 is still being recorded on the engine; it opens "
                                 "here when its run ends")
                                  .arg(remote.id));
    const auto r =
        link_.call("GET", QStringLiteral("/v1/sessions/%1/export?format=sqlite").arg(remote.id));
    if (!r.ok() || r.data.isEmpty())
        return failedBecause(tr("session %1 from the engine: %2")
                                 .arg(remote.id)
                                 .arg(r.ok() ? tr("the export is empty") : r.error));
    // The copy goes through the same checks as any imported database: it came over a network.
    QTemporaryFile file(QDir::tempPath() + QStringLiteral("/ringlab-session-XXXXXX.db"));
    if (!file.open() || file.write(r.data) != r.data.size() || !file.flush())
        return failedBecause(tr("session %1: cannot write %2").arg(remote.id).arg(file.fileName()));
    file.close();
    copies_.importKeepingIds(file.fileName().toStdString(), remote.id);
    if (!copies_.get(remote.id, here) || here.uuid != remote.uuid)
        return failedBecause(
            tr("session %1 from the engine: the export held another session").arg(remote.id));
    return Status::success();
}

} // namespace ringlab::ui
