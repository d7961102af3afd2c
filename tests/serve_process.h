// SPDX-License-Identifier: GPL-2.0-or-later
// A `ringlab-engine serve` started by a test, for the tests of the API and of the desktop
// attached to it.
#pragma once

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QString>

namespace {

// A self-signed certificate for 127.0.0.1 and its key, cert.pem and key.pem in `dir` (for
// serve --tls-cert/--tls-key); false when openssl could not make them.
inline bool makeTestCertificate(const QString &dir)
{
    QProcess openssl;
    openssl.start("openssl",
                  {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                   "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout", dir + "/key.pem",
                   "-out", dir + "/cert.pem"});
    return openssl.waitForFinished(60'000) && openssl.exitStatus() == QProcess::NormalExit &&
           openssl.exitCode() == 0;
}

// A token file for serve --token-file, as serve wants it (its owner's only, 0600): `dir`/token
// holding `token`; empty when it could not be written.
inline QString writeTokenFile(const QString &dir, const QByteArray &token)
{
    QFile f(dir + "/token");
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    const bool written = f.write(token + "\n") == token.size() + 1;
    f.close();
    if (!written || !f.setPermissions(QFile::ReadOwner | QFile::WriteOwner)) return {};
    return f.fileName();
}

// A `ringlab-engine serve` of the test's own, stopped with SIGTERM when the test ends.
class Serve {
  public:
    ~Serve()
    {
        if (p.state() == QProcess::NotRunning) return;
        p.terminate();
        if (!p.waitForFinished(20'000)) p.kill();
        p.waitForFinished(5'000);
    }
    // Starts `serve ARGS` and waits for "serving API v1 at URL"; false with the reason.
    bool start(const QStringList &args, QString *why = nullptr)
    {
        p.start(RINGLAB_ENGINE_BIN, QStringList{"serve"} + args);
        static const QRegularExpression serving("serving API v1 at (\\S+)");
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 30'000) {
            p.waitForReadyRead(200);
            err += QString::fromUtf8(p.readAllStandardError());
            if (const auto m = serving.match(err); m.hasMatch()) {
                url = m.captured(1);
                static const QRegularExpression portRe(":(\\d+)$");
                if (const auto pm = portRe.match(url); pm.hasMatch()) port = pm.captured(1).toInt();
                return true;
            }
            if (p.state() == QProcess::NotRunning) break;
        }
        if (why) *why = "serve did not start: " + err;
        return false;
    }
    QString drainErrors()
    {
        err += QString::fromUtf8(p.readAllStandardError());
        return err;
    }
    QProcess p;
    QString url, err;
    int port = 0;
};

} // namespace
