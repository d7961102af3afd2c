// SPDX-License-Identifier: GPL-2.0-or-later
// Checks the engine's replies and stream lines against the JSON schema docs/api.md carries
// (tests/api_schema_check.py): tst_api for the API's resources, tst_jobs for its jobs.
#pragma once

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtGlobal>
#include <nlohmann/json.hpp>

namespace ringlab::test {

// Empty when every reply validates; else what the check printed. `marker`: the schema block
// of docs/api.md to use (the default one when empty). `partial`: the replies are one case's,
// not meant to reach every documented reply.
inline QString checkSchema(const nlohmann::json &replies, const QString &marker = {},
                           bool partial = false)
{
    QTemporaryDir dir;
    QFile f(dir.filePath("replies.json"));
    if (!f.open(QIODevice::WriteOnly)) return "cannot write replies.json";
    f.write(QByteArray::fromStdString(replies.dump()));
    f.close();
    QStringList args{RINGLAB_SOURCE_DIR "/tests/api_schema_check.py",
                     RINGLAB_SOURCE_DIR "/docs/api.md", f.fileName()};
    if (!marker.isEmpty() || partial) args << (marker.isEmpty() ? "api-schema" : marker);
    if (partial) args << "--partial";
    QProcess check;
    check.setProcessChannelMode(QProcess::MergedChannels);
    check.start("python3", args);
    if (!check.waitForFinished(60'000)) return "the schema check did not finish";
    const QString out = QString::fromUtf8(check.readAll());
    qInfo("%s", qPrintable(out.trimmed()));
    return check.exitCode() == 0 ? QString() : out;
}

} // namespace ringlab::test
