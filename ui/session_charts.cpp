// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/session_charts.h"

#include <QCoreApplication>
#include <QDateTime>

#include "engine/store/session_report.h"
#include "ui/charts_view.h"

namespace ringlab::ui {

QString changeLabel(const std::string &tunable, const std::string &before, const std::string &after)
{
    return QString::fromStdString(tunable + " " + before + "→" + after);
}

void addEventMarker(ChartsView &view, const Event &e)
{
    if (e.kind == "param")
        view.addMarker(e.t, changeLabel(e.tunable, e.before, e.after), MarkerKind::Change);
    else if (e.kind == "mark")
        view.addMarker(e.t, QStringLiteral("● ") + QString::fromStdString(e.message),
                       MarkerKind::Mark);
    else if (e.kind == "restart")
        view.addMarker(e.t,
                       QCoreApplication::translate("ringlab", "restart: %1")
                           .arg(QString::fromStdString(e.message)),
                       MarkerKind::Restart);
}

void showSessionCharts(ChartsView &view, SessionData &session)
{
    view.clear();
    view.adopt(std::move(session.charts));
    for (const auto &c : session.changes)
        addEventMarker(view, Event{c.t, "param", c.tunable, c.oldValue, c.newValue, c.source, {}});
    for (const auto &e : session.events)
        if (e.kind == "mark" || e.kind == "restart")
            addEventMarker(view, Event{e.t, e.kind, {}, {}, {}, e.source, e.message});
    view.showWhole();
}

bool loadSessionCharts(ChartsView &view, SessionStore &store, std::int64_t id)
{
    SessionData session = readSession(store, id);
    if (!session.error.isEmpty()) return false;
    showSessionCharts(view, session);
    return true;
}

QString sessionTitle(const SessionInfo &info)
{
    QStringList parts{QCoreApplication::translate("ringlab", "Session %1").arg(info.id)};
    // A session named after its profile ("default", "default") says it once.
    for (const std::string &p : {info.name, info.profile, info.device})
        if (!p.empty() && !parts.contains(QString::fromStdString(p)))
            parts << QString::fromStdString(p);
    const QDateTime when =
        QDateTime::fromString(QString::fromStdString(info.createdAt), Qt::ISODateWithMs);
    if (when.isValid())
        parts << when.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    else if (!info.createdAt.empty())
        parts << QString::fromStdString(info.createdAt);
    return parts.join(QStringLiteral(" · "));
}

} // namespace ringlab::ui
