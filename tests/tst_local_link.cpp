// SPDX-License-Identifier: GPL-2.0-or-later
// The desktop's engine in its own process, reached through the API (ui/local_link): requests
// are answered at once, the stream's lines a stop caused come before its reply, and what
// only this process may give (a profile's path, device options) is taken.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "drivers/registry_devices.h"
#include "engine/store/session_store.h"
#include "ui/local_link.h"

using namespace ringlab;
using nlohmann::json;
using ringlab::ui::LocalLink;

class TstLocalLink : public QObject {
    Q_OBJECT
  private slots:
    void requestsAndTheirLinesComeInOrder();
    void aJobHoldsTheMeasurementHereToo();
    void takesWhatOnlyThisProcessMayGive();
    void closingStopsTheRunAndCompletesItsSession();
};

namespace {

RunApiOptions optionsIn(const QTemporaryDir &dir)
{
    RunApiOptions o;
    o.db = dir.filePath("s.db").toStdString();
    o.endpoint = "in-process";
    o.inProcess = true;
    return o;
}

std::vector<json> ofType(const QSignalSpy &spy, const std::string &type, int from = 0)
{
    std::vector<json> out;
    for (int k = from; k < spy.size(); ++k) {
        const json j = spy.at(k).at(0).value<json>();
        if (j.value("type", "") == type) out.push_back(j);
    }
    return out;
}

} // namespace

void TstLocalLink::requestsAndTheirLinesComeInOrder()
{
    QTemporaryDir dir;
    LocalLink link(optionsIn(dir), registryDevices());
    QSignalSpy lines(&link, &LocalLink::lineReceived);
    link.openStream();
    QCOMPARE(lines.size(), 1); // the state, at once
    QCOMPARE(ofType(lines, "state").front()["running"].get<bool>(), false);

    auto r = link.call("POST", "/v1/run/start",
                       {{"set", {{"load.rate_pps", "20000"}}}, {"client", "tst_local_link"}});
    QVERIFY2(r.ok(), qPrintable(r.error));
    const std::int64_t session = r.body["session"].get<std::int64_t>();
    QVERIFY(session > 0);
    link.setControl(QByteArray::fromStdString(r.body["control"].get<std::string>()));
    // Samples arrive from the engine's threads through the event loop, never waited for.
    QTRY_VERIFY_WITH_TIMEOUT(ofType(lines, "sample").size() >= 3, 10'000);

    // A change: its event line follows on the stream, with who made it. (Not necessarily
    // before the reply: the stream's thread delivers it, and the reply does not wait for it,
    // which would add that thread's wake-up to every change's latency.)
    int before = static_cast<int>(lines.size());
    r = link.call("POST", "/v1/run/set", {{"set", {{"poll.budget", "32"}}}, {"source", "gui"}});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.body["params"]["poll.budget"].get<std::string>(), "32");
    QTRY_VERIFY_WITH_TIMEOUT(!ofType(lines, "event", before).empty(), 10'000);
    const auto changes = ofType(lines, "event", before);
    QCOMPARE(changes.size(), std::size_t{1});
    QCOMPARE(changes[0]["tunable"].get<std::string>(), "poll.budget");
    QCOMPARE(changes[0]["source"].get<std::string>(), "gui");
    // Refusals are the registry's words, with the API's status.
    r = link.call("POST", "/v1/run/set", {{"set", {{"poll.budget", "0"}}}});
    QCOMPARE(r.status, 422);
    QVERIFY2(r.error.contains("poll.budget"), qPrintable(r.error));

    // The stop: every sample the session holds reached the stream before the reply did.
    r = link.call("POST", "/v1/run/stop");
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.body["session"].get<std::int64_t>(), session);
    const auto samples = ofType(lines, "sample");
    QCOMPARE(static_cast<std::size_t>(r.body["samples_written"].get<std::uint64_t>()),
             samples.size());
    QCOMPARE(ofType(lines, "state").back()["running"].get<bool>(), false);
    const auto events = ofType(lines, "event");
    QCOMPARE(events.back()["kind"].get<std::string>(), "stop");

    // A CSV export comes as text, with its content type.
    r = link.call("GET", QStringLiteral("/v1/sessions/%1/export?format=csv").arg(session));
    QVERIFY2(r.ok(), qPrintable(r.error));
    QVERIFY(r.contentType.startsWith("text/csv"));
    QCOMPARE(r.data.count('\n'), static_cast<qsizetype>(samples.size() + 1));
}

// The desktop's own engine has the engine's jobs too: a run start during one is refused with
// the job's name, its lines come through the link, and its end frees the measurement.
void TstLocalLink::aJobHoldsTheMeasurementHereToo()
{
    QTemporaryDir dir;
    LocalLink link(optionsIn(dir), registryDevices());
    QSignalSpy lines(&link, &LocalLink::lineReceived);
    link.openStream();
    auto r = link.call("POST", "/v1/jobs",
                       {{"kind", "sweep"},
                        {"set", {"load.rate_pps=0", "probe.rate_hz=0", "poll.mode=sleep"}},
                        {"vary", "poll.sleep_min_us=20"},
                        {"duration", "0.5s"}});
    QCOMPARE(r.status, 201);
    const int id = r.body["id"].get<int>();
    r = link.call("POST", "/v1/run/start", {{"client", "tst_local_link"}});
    QCOMPARE(r.status, 409);
    QVERIFY2(r.error.contains(QStringLiteral("held by job %1 (sweep)").arg(id)),
             qPrintable(r.error));
    QTRY_VERIFY_WITH_TIMEOUT(!ofType(lines, "job").empty() &&
                                 ofType(lines, "job").back()["state"] == "completed",
                             20'000);
    QCOMPARE(ofType(lines, "job").back()["sessions"].size(), std::size_t{1});
    r = link.call("POST", "/v1/run/start", {{"client", "tst_local_link"}});
    QVERIFY2(r.ok(), qPrintable(r.error));
}

void TstLocalLink::takesWhatOnlyThisProcessMayGive()
{
    QTemporaryDir dir;
    LocalLink link(optionsIn(dir), registryDevices());
    // A profile's file (a socket's client may only name one).
    const QString path = QStringLiteral(RINGLAB_PROFILE_DIR "/kni-sleep-100-200.json");
    auto r =
        link.call("POST", "/v1/run/start", {{"profile", path.toStdString()}, {"record", false}});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.body["profile"].get<std::string>(), "kni-sleep-100-200");
    QCOMPARE(r.body["session"].get<std::int64_t>(), std::int64_t{0}); // not recorded
    link.setControl(QByteArray::fromStdString(r.body["control"].get<std::string>()));
    QVERIFY(link.call("POST", "/v1/run/stop").ok());
    // Device options are taken, and checked as the command line's are.
    r = link.call("POST", "/v1/run/start", {{"device", "sim"}, {"traffic", "ping -c 3"}});
    QCOMPARE(r.status, 422);
    QVERIFY2(r.error.contains("traffic"), qPrintable(r.error));
    QVERIFY(!link.call("GET", "/v1/run").body["running"].get<bool>());
}

void TstLocalLink::closingStopsTheRunAndCompletesItsSession()
{
    QTemporaryDir dir;
    std::int64_t session = 0;
    {
        LocalLink link(optionsIn(dir), registryDevices());
        QSignalSpy lines(&link, &LocalLink::lineReceived);
        link.openStream();
        const auto r = link.call("POST", "/v1/run/start", {{"set", {{"load.rate_pps", "20000"}}}});
        QVERIFY2(r.ok(), qPrintable(r.error));
        session = r.body["session"].get<std::int64_t>();
        QTRY_VERIFY_WITH_TIMEOUT(ofType(lines, "sample").size() >= 2, 10'000);
    } // the window went away with its run going
    SessionStore store(dir.filePath("s.db").toStdString(), Db::Mode::ReadOnly);
    SessionInfo info;
    QVERIFY(store.get(session, info));
    QCOMPARE(info.status, std::string("completed"));
    QVERIFY(info.sampleCount >= 2);
}

QTEST_GUILESS_MAIN(TstLocalLink)
#include "tst_local_link.moc"
