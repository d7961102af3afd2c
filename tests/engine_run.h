// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine ARGS` run to its end as a user runs it, its JSON lines output split by type
// (tests that drive real devices: the lab, the kernel device).
#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace test {

struct EngineRun {
    int exitCode = -1; // -1: crashed or timed out
    QString err;
    QList<QJsonObject> samples, events;
    QJsonObject summary;
};

inline EngineRun runEngine(const QString &program, const QStringList &args, int timeoutMs = 60000)
{
    QProcess p;
    p.start(program, args);
    p.closeWriteChannel();
    EngineRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.err = QString::fromUtf8(p.readAllStandardError());
    for (const QByteArray &line : p.readAllStandardOutput().split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        const QString type = o.value("type").toString();
        if (type == "sample") r.samples << o;
        if (type == "event") r.events << o;
        if (type == "summary") r.summary = o;
    }
    return r;
}

} // namespace test
