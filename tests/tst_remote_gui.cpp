// SPDX-License-Identifier: GPL-2.0-or-later
// The desktop attached to a real `ringlab-engine serve` over loopback TCP: Start, a live
// change, a marker and Stop as in the local GUI tests, the session complete on the engine;
// a run started by another client is watched, refused changes say why, control is taken;
// kill -9 of the engine shows "contact lost" at once, whole, with Reconnect, and a new engine
// on the same address is found again, with the lost run's session interrupted and the new
// engine's run read back.
#include <httplib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <cstring>
#include <nlohmann/json.hpp>

#include "drivers/registry.h"
#include "engine/store/session_store.h"
#include "serve_process.h"
#include "ui/connect_dialog.h"
#include "ui/connection_notice.h"
#include "ui/engine_controller.h"
#include "ui/main_window.h"
#include "ui/segment_model.h"
#include "ui/session_list_model.h"
#include "ui/session_mirror.h"
#include "ui/sessions_panel.h"
#include "ui/sweep_tab.h"
#include "ui/unix_http.h"

using namespace ringlab;
using namespace ringlab::ui;
using nlohmann::json;

namespace {
constexpr const char *kToken = "fedcba9876543210fedcba9876543210";

struct ServedEngine {
    QTemporaryDir dir;
    Serve serve;
    QString tokenFile;
    bool start(int port = 0)
    {
        tokenFile = writeTokenFile(dir.path(), kToken);
        if (tokenFile.isEmpty()) return false;
        QString why;
        const bool ok = serve.start({"--listen", QStringLiteral("tcp:127.0.0.1:%1").arg(port),
                                     "--token-file", tokenFile, "--db", dir.filePath("s.db")},
                                    &why);
        if (!ok) qWarning("%s", qPrintable(why));
        return ok;
    }
    json get(const std::string &path) const
    {
        httplib::Client c("127.0.0.1", serve.port);
        c.set_bearer_token_auth(kToken);
        const auto r = c.Get(path.c_str());
        if (!r) qFatal("GET %s: no reply", path.c_str());
        return json::parse(r->body);
    }
    json post(const std::string &path, const json &body, const std::string &control = {}) const
    {
        httplib::Client c("127.0.0.1", serve.port);
        c.set_bearer_token_auth(kToken);
        httplib::Headers h;
        if (!control.empty()) h.emplace("X-Ringlab-Control", control);
        const auto r = c.Post(path.c_str(), h, body.dump(), "application/json");
        if (!r) qFatal("POST %s: no reply", path.c_str());
        return json::parse(r->body);
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(serve.port)); }
};

QAction *action(MainWindow &w, const QString &text)
{
    for (auto *a : w.findChildren<QAction *>())
        if (a->text() == text) return a;
    qFatal("no action %s", qPrintable(text));
}
} // namespace

class TstRemoteGui : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void startSetMarkStopOnTheEngine();
    void watchesARunItDidNotStartUntilItTakesControl();
    void engineSessionsAreListedOpenedComparedAndExported();
    void attachesToAnEngineOnThisMachineThroughItsSocket();
    void anEnginesJobHoldsStartAndItsSessionsAreListed();
    void killedEngineIsShownAndFoundAgain();
    void lostEngineOffersReconnectAndReadsItsStateBack();
    void wrongTokenOrAddressIsRefused();

  private:
    QTemporaryDir home_;
};

void TstRemoteGui::initTestCase()
{
    Q_INIT_RESOURCE(ringlab);
    qputenv("HOME", home_.path().toLocal8Bit());
    qputenv("XDG_CONFIG_HOME", home_.filePath("config").toLocal8Bit());
    qputenv("XDG_DATA_HOME", home_.filePath("data").toLocal8Bit());
}

void TstRemoteGui::startSetMarkStopOnTheEngine()
{
    ServedEngine e;
    QVERIFY(e.start());
    MainWindow w(home_.filePath("local.db"));
    w.setHeadless(true); // a failure is a message on stderr, never a dialog that waits
    w.resize(1280, 800);
    w.show();
    QString error;
    QVERIFY2(succeeded(w.connectToEngine(e.url(), kToken), error), qPrintable(error));
    EngineController *ctl = w.controller();
    QVERIFY(ctl->remote());
    QVERIFY2(w.engineLabel()->text().contains("ringlab-engine") &&
                 w.engineLabel()->text().contains(e.url().toString()),
             qPrintable(w.engineLabel()->text()));
    QCOMPARE(w.segments()->rowCount(), 0); // no run on the engine: no segment either
    // The Device box offers the engine's devices, as its host lists them (its DPDK ports
    // attached and described: their link in the tooltip), asked for without blocking.
    QTRY_VERIFY(w.deviceBox()->isEnabled());
    QVERIFY2(w.deviceBox()->toolTip().startsWith("The devices of"),
             qPrintable(w.deviceBox()->toolTip()));
    const json engineDevices = e.get("/v1/devices");
    QCOMPARE(w.deviceBox()->count(), int(engineDevices.size()));
    for (int i = 0; i < w.deviceBox()->count(); ++i) {
        const json &d = engineDevices[std::size_t(i)];
        QCOMPARE(w.deviceBox()->itemData(i).toString().toStdString(), d["spec"].get<std::string>());
        const QString tip = w.deviceBox()->itemData(i, Qt::ToolTipRole).toString();
        if (!d["link"].get<std::string>().empty())
            QVERIFY2(tip.contains(QString::fromStdString(d["link"].get<std::string>())),
                     qPrintable(tip));
    }
    // Sweeps and tuning are the engine's jobs: no notice that they run elsewhere.
    for (const QLabel *label : w.sweepTab()->findChildren<QLabel *>())
        QVERIFY2(!label->text().contains("on this machine"), qPrintable(label->text()));

    QAction *start = action(w, QStringLiteral("Start"));
    QVERIFY(start->isEnabled()); // no run on the engine: this window may start one
    start->trigger();
    QVERIFY(ctl->isRunning());
    QVERIFY(!start->isEnabled());
    QVERIFY(action(w, QStringLiteral("Stop"))->isEnabled());
    const qint64 session = ctl->sessionId();
    QVERIFY(session > 0);
    QTRY_VERIFY_WITH_TIMEOUT(ctl->samples().size() >= 5, 20'000);
    QCOMPARE(ctl->samples().back()->rateOf(CounterId::Offered) > 0, true);

    // A live change: applied on the engine, and its event comes back on the stream.
    const Status applied =
        ctl->apply({{"poll.sleep_min_us", "50"}, {"poll.sleep_max_us", "100"}}, "user");
    QVERIFY2(applied.ok(), applied.error.c_str());
    QCOMPARE(ctl->params().text(TunableId::PollSleepMinUs), std::string("50"));
    const Status refused = ctl->apply({{"poll.sleep_min_us", "5000"}}, "user");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error.find("poll.sleep_max_us") != std::string::npos, refused.error.c_str());
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(ctl->events().begin(), ctl->events().end(),
                                         [](const Event &ev) {
                                             return ev.kind == "param" &&
                                                    ev.tunable == "poll.sleep_min_us";
                                         }),
                             20'000);
    ctl->mark(QStringLiteral("remote mark"));
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(ctl->events().begin(), ctl->events().end(),
                                         [](const Event &ev) {
                                             return ev.kind == "mark" &&
                                                    ev.message == "remote mark";
                                         }),
                             20'000);
    QSignalSpy stopped(ctl, &EngineController::runStopped);
    w.stopRun();
    QVERIFY(!ctl->isRunning());
    QTest::qWait(0);
    QCOMPARE(stopped.count(), 1); // the reply and the stream's state line end it once
    QCOMPARE(stopped.at(0).at(0).toLongLong(), session);

    // The session is the engine's, complete.
    const json s = e.get("/v1/sessions/" + std::to_string(session));
    QCOMPARE(s["status"].get<std::string>(), "completed");
    QVERIFY(s["samples"].get<int>() >= 5);
    QCOMPARE(s["changes"].size(), std::size_t(2));
    bool marked = false;
    for (const auto &ev : s["events"])
        marked = marked || ev["message"] == "remote mark";
    QVERIFY(marked);
    // Nothing was recorded in the local database.
    if (QFile::exists(home_.filePath("local.db")))
        QVERIFY(SessionStore(home_.filePath("local.db").toStdString()).list().empty());
}

void TstRemoteGui::watchesARunItDidNotStartUntilItTakesControl()
{
    ServedEngine e;
    QVERIFY(e.start());
    const json started = e.post("/v1/run/start", {{"client", "script on lab1"}});
    QVERIFY2(started.contains("control"), started.dump().c_str());
    MainWindow w(home_.filePath("local2.db"));
    w.setHeadless(true);
    w.show();
    QString error;
    QVERIFY2(succeeded(w.connectToEngine(e.url(), kToken), error), qPrintable(error));
    EngineController *ctl = w.controller();
    QTRY_VERIFY_WITH_TIMEOUT(ctl->isRunning(), 20'000);
    QCOMPARE(ctl->sessionId(), started["session"].get<qint64>());
    QVERIFY(!ctl->controlling());
    QTRY_VERIFY_WITH_TIMEOUT(ctl->samples().size() >= 3, 20'000);
    QVERIFY(w.engineLabel()->text().contains("watching"));
    QVERIFY(!action(w, QStringLiteral("Stop"))->isEnabled());
    QAction *take = action(w, QStringLiteral("&Take control of the run"));
    QVERIFY(take->isEnabled());

    const Status refused = ctl->apply({{"poll.budget", "32"}}, "user");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error.find("controlled by \"script on lab1\"") != std::string::npos,
             refused.error.c_str());

    take->trigger();
    QVERIFY(ctl->controlling());
    QVERIFY(action(w, QStringLiteral("Stop"))->isEnabled());
    QVERIFY(ctl->apply({{"poll.budget", "32"}}, "user").ok());
    // The script's key no longer works.
    const json late = e.post("/v1/run/set", {{"set", {{"poll.budget", 16}}}},
                             started["control"].get<std::string>());
    QVERIFY(late["error"].get<std::string>().find("controlled by \"ringlab desktop") !=
            std::string::npos);
    // The script takes control back: the window knows at once that it watches again.
    const json back = e.post("/v1/run/control", {{"client", "script on lab1"}});
    QVERIFY2(back.contains("control"), back.dump().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(!ctl->controlling(), 10'000);
    QVERIFY(!action(w, QStringLiteral("Stop"))->isEnabled());
    QVERIFY(take->isEnabled());
    QVERIFY(w.engineLabel()->text().contains("watching"));
    // Closing the window leaves the run to its controller.
    w.close();
    QCOMPARE(e.get("/v1/run")["running"].get<bool>(), true);
    e.post("/v1/run/stop", json::object(), back["control"].get<std::string>());
    QCOMPARE(e.get("/v1/run")["running"].get<bool>(), false);
}

void TstRemoteGui::engineSessionsAreListedOpenedComparedAndExported()
{
    ServedEngine e;
    QVERIFY(e.start());
    MainWindow w(home_.filePath("local4.db"));
    w.setHeadless(true);
    w.show();
    QString error;
    QVERIFY2(succeeded(w.connectToEngine(e.url(), kToken), error), qPrintable(error));
    EngineController *ctl = w.controller();
    QList<qint64> ids;
    for (int run = 0; run < 2; ++run) {
        w.startRun();
        QVERIFY(ctl->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(ctl->samples().size() >= 4, 20'000);
        ids << ctl->sessionId();
        w.stopRun();
    }
    // The Sessions dock lists the engine's sessions, numbered as the engine numbers them.
    SessionListModel *model = w.sessions()->model();
    const auto bothCompleted = [&] {
        if (model->rowCount() != 2) return false;
        for (qint64 id : ids) {
            const SessionInfo *s = model->session(model->rowOf(id));
            if (!s || s->status != "completed") return false;
        }
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(bothCompleted(), 10'000); // listed without waiting: it follows
    for (qint64 id : ids) {
        const SessionInfo *s = model->session(model->rowOf(id));
        QVERIFY(s);
        QCOMPARE(s->status, std::string("completed"));
        QVERIFY(s->sampleCount >= 4);
    }
    // Their information says where their environment is until they are copied here.
    const auto tip = [&](qint64 id) {
        return model->data(model->index(model->rowOf(id), 0), Qt::ToolTipRole).toString();
    };
    QVERIFY2(tip(ids[0]).contains("environment: kept on the engine"), qPrintable(tip(ids[0])));
    // They are changed on the engine's host, not from here.
    w.sessions()->view()->selectRow(model->rowOf(ids[0]));
    for (const auto *b : w.sessions()->findChildren<QPushButton *>())
        if (b->text() == "Delete" || b->text().startsWith("Rename"))
            QVERIFY2(!b->isEnabled(), qPrintable(b->text()));
        else if (b->text() == "Open" || b->text().startsWith("Export"))
            QVERIFY2(b->isEnabled(), qPrintable(b->text()));

    // Opened: copied whole under the engine's id, then charted as a local session.
    w.openSession(ids[0]);
    QTRY_COMPARE(w.shownSession(), ids[0]);
    const json remote = e.get("/v1/sessions/" + std::to_string(ids[0]));
    SessionStore copies(SessionMirror::databaseFor(e.url()).toStdString());
    SessionInfo copy;
    QVERIFY(copies.get(ids[0], copy));
    QCOMPARE(copy.uuid, remote["uuid"].get<std::string>());
    QCOMPARE(copy.sampleCount, remote["samples"].get<std::int64_t>());
    QCOMPARE(copy.status, std::string("completed"));
    // The copy's environment is the session's information now; the other is still there.
    QVERIFY2(tip(ids[0]).contains("kernel release: "), qPrintable(tip(ids[0])));
    QVERIFY(tip(ids[1]).contains("environment: kept on the engine"));
    // Exported from the copy, as a local one is.
    const QString csv = home_.filePath("remote.csv");
    QVERIFY2(succeeded(w.exportSession(ids[1], csv), error), qPrintable(error));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QVERIFY(lines.value(0).startsWith("seq,t,interval,"));
    const json second = e.get("/v1/sessions/" + std::to_string(ids[1]));
    QCOMPARE(lines.size() - 1, second["samples"].get<int>()); // one row per sample
    // Compared: both copies are there, and the dialog opens on them.
    emit w.sessions()->compareRequested(ids[0], ids[1]);
    QTRY_VERIFY_WITH_TIMEOUT(!w.findChildren<QDialog *>().isEmpty(), 5'000);

    // A script starts a run: the window leaves the recorded session for it, charts it from
    // its start and follows its segments, as for a run of its own.
    w.openSession(ids[0]);
    QTRY_COMPARE(w.shownSession(), ids[0]);
    const json started = e.post("/v1/run/start", {{"client", "script on lab1"}});
    QVERIFY2(started.contains("control"), started.dump().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(ctl->isRunning(), 20'000);
    QCOMPARE(w.shownSession(), qint64(0));
    QTRY_VERIFY_WITH_TIMEOUT(w.segments()->rowCount() >= 1, 20'000);
    // A session still being recorded is not copied: it opens when its run ends.
    const Status fetched = ctl->fetchSessions({ctl->sessionId()});
    error = QString::fromStdString(fetched.error);
    QVERIFY(!fetched.ok());
    QVERIFY2(error.contains("still being recorded"), qPrintable(error));
    e.post("/v1/run/stop", json::object(), started["control"].get<std::string>());
    QTRY_VERIFY_WITH_TIMEOUT(!ctl->isRunning(), 20'000);

    // Back to this process: its own (empty) database again.
    action(w, QStringLiteral("Use the engine in this &process"))->trigger();
    QCOMPARE(model->rowCount(), 0);
    // And this host's devices, from the registry.
    QVERIFY(w.deviceBox()->isEnabled());
    QCOMPARE(w.deviceBox()->toolTip(), QString("The devices of this machine"));
    QCOMPARE(w.deviceBox()->count(), int(listDevices({}, DeviceProbe::Later).size()));
}

void TstRemoteGui::attachesToAnEngineOnThisMachineThroughItsSocket()
{
    // `ringlab-engine serve` with its default kind of address: a Unix socket, no token.
    QTemporaryDir dir;
    const QString socket = dir.filePath("engine.sock");
    Serve serve;
    QString error;
    QVERIFY2(serve.start({"--listen", "unix:" + socket, "--db", dir.filePath("s.db")}, &error),
             qPrintable(error));
    const QUrl url = ConnectDialog::parseAddress("unix:" + socket);
    QVERIFY(url.isValid());
    QCOMPARE(ConnectDialog::parseAddress(socket), url); // a bare path is a socket too

    MainWindow w(home_.filePath("local5.db"));
    w.setHeadless(true);
    w.show();
    QVERIFY2(succeeded(w.connectToEngine(url, {}), error), qPrintable(error));
    EngineController *ctl = w.controller();
    QVERIFY2(w.engineLabel()->text().contains("unix:" + socket),
             qPrintable(w.engineLabel()->text()));
    w.startRun();
    QVERIFY(ctl->isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(ctl->samples().size() >= 4, 20'000);
    const Status applied = ctl->apply({{"poll.budget", "32"}}, "user");
    QVERIFY2(applied.ok(), applied.error.c_str());
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(ctl->events().begin(), ctl->events().end(),
                                         [](const Event &ev) {
                                             return ev.kind == "param" &&
                                                    ev.tunable == "poll.budget";
                                         }),
                             20'000);
    const qint64 session = ctl->sessionId();
    w.stopRun();
    QVERIFY(!ctl->isRunning());
    // The engine's session, listed and opened through the socket.
    QTRY_COMPARE_WITH_TIMEOUT(w.sessions()->model()->rowCount(), 1, 10'000);
    w.openSession(session);
    QTRY_COMPARE(w.shownSession(), session);

    // The engine goes away: said at once, Stop and Start wait for it.
    QSignalSpy changed(ctl, &EngineController::connectionChanged);
    serve.p.kill();
    serve.p.waitForFinished(10'000);
    QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty(), 10'000);
    QCOMPARE(changed.first().at(0).toBool(), false);

    // No engine at a socket: refused with the path and a hint.
    QVERIFY(!succeeded(
        w.connectToEngine(ConnectDialog::parseAddress(dir.filePath("none.sock")), {}), error));
    QVERIFY2(error.contains("none.sock") && error.contains("is ringlab-engine serve running?"),
             qPrintable(error));

    // An engine that accepts nothing (its listen backlog full): the request gives up in its
    // time with why, instead of a connect that waits for ever.
    const std::string full = dir.filePath("full.sock").toStdString();
    const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, full.c_str(), full.size() + 1);
    QVERIFY(::bind(listener, reinterpret_cast<const sockaddr *>(&a), sizeof a) == 0);
    QVERIFY(::listen(listener, 0) == 0);
    std::vector<int> queued;
    for (int k = 0; k < 8; ++k) { // fill the backlog: the next connect would wait
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        const bool in = ::connect(fd, reinterpret_cast<const sockaddr *>(&a), sizeof a) == 0;
        queued.push_back(fd);
        if (!in) break;
    }
    QElapsedTimer clock;
    clock.start();
    const auto r = UnixHttp(full).request("GET", "/v1/version", {}, {}, 300);
    QCOMPARE(r.status, 0);
    QVERIFY2(QString::fromStdString(r.error).contains("backlog is full"), r.error.c_str());
    QVERIFY2(clock.elapsed() < UnixHttp::kConnectTimeoutMs,
             qPrintable(QString::number(clock.elapsed())));
    for (int fd : queued)
        ::close(fd);
    ::close(listener);
}

// A sweep the served engine runs as its job (POST /v1/jobs, from any client): attached over
// the Unix socket, the window shows it, Start waits for it with the reason, a start is
// refused by the engine (409 naming the job), and the job's sessions are listed.
void TstRemoteGui::anEnginesJobHoldsStartAndItsSessionsAreListed()
{
    QTemporaryDir dir;
    const QString socket = dir.filePath("engine.sock");
    Serve serve;
    QString error;
    QVERIFY2(serve.start({"--listen", "unix:" + socket, "--db", dir.filePath("s.db")}, &error),
             qPrintable(error));
    MainWindow w(home_.filePath("local7.db"));
    w.setHeadless(true);
    w.show();
    QVERIFY2(succeeded(w.connectToEngine(QUrl("unix:" + socket), {}), error), qPrintable(error));
    EngineController *ctl = w.controller();
    QVERIFY(w.startAction()->isEnabled());

    const json sweep = {{"kind", "sweep"},
                        {"profile", "default"},
                        {"set", {"load.rate_pps=0", "probe.rate_hz=0", "poll.mode=sleep"}},
                        {"vary", "poll.sleep_min_us=20,200"},
                        {"tie", "poll.sleep_max_us=poll.sleep_min_us"},
                        {"duration", "1s"}};
    const UnixHttp http(socket.toStdString());
    const auto posted = http.request("POST", "/v1/jobs", {}, sweep.dump(), 10'000);
    QVERIFY2(posted.status == 201, posted.body.c_str());
    const int id = json::parse(posted.body)["id"].get<int>();

    QTRY_VERIFY_WITH_TIMEOUT(ctl->jobHold().held(), 10'000);
    QCOMPARE(ctl->jobHold().kind, MeasurementHold::Kind::Sweep);
    QVERIFY(!w.startAction()->isEnabled());
    QVERIFY2(w.startAction()->toolTip().contains("sweep", Qt::CaseInsensitive),
             qPrintable(w.startAction()->toolTip()));
    // The engine refuses a start anyway (another client, or a window that has not heard yet).
    const auto start = http.request("POST", "/v1/run/start", {}, "{}", 10'000);
    QCOMPARE(start.status, 409);
    QVERIFY2(QString::fromStdString(start.body).contains(QStringLiteral("held by job %1").arg(id)),
             start.body.c_str());

    // The job ends: Start is back, and its two sessions are the engine's, listed here.
    QTRY_VERIFY_WITH_TIMEOUT(!ctl->jobHold().held(), 30'000);
    QVERIFY(w.startAction()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(w.sessions()->model()->rowCount(), 2, 10'000);

    // The window's own Sweep tab submits its sweep to the engine it is attached to: the runs
    // are the engine's (its database, its numbering), listed here, and the tab shows the
    // sweep read from the engine's sessions; nothing is recorded in this process.
    SweepTab *tab = w.sweepTab();
    w.tabs()->setCurrentWidget(tab);
    tab->modeBox()->setCurrentIndex(0);
    tab->profileBox()->setCurrentText("default");
    tab->varyEdit()->setText("poll.sleep_min_us=50,500");
    tab->tieEdit()->setText("poll.sleep_max_us=poll.sleep_min_us");
    tab->repeatBox()->setValue(1);
    tab->secondsBox()->setValue(1);
    QSignalSpy done(tab, &SweepTab::finished);
    QTest::mouseClick(tab->runButton(), Qt::LeftButton);
    QVERIFY2(tab->running(), qPrintable(tab->status()->text()));
    QCOMPARE(ctl->jobHold().kind, MeasurementHold::Kind::Sweep);
    QVERIFY2(ctl->jobHold().where.contains("unix:" + socket), qPrintable(ctl->jobHold().where));
    QVERIFY(!w.startAction()->isEnabled());
    const auto jobs = json::parse(http.request("GET", "/v1/jobs", {}, {}, 10'000).body);
    QCOMPARE(jobs["jobs"].size(), std::size_t{2}); // the API's and the tab's
    QCOMPARE(jobs["jobs"][0]["state"].get<std::string>(), std::string("running")); // newest first
    QTRY_VERIFY_WITH_TIMEOUT(tab->status()->text().startsWith("Run 2 of 2"), 20'000);
    QVERIFY(done.wait(30'000));
    QCOMPARE(done.takeFirst().at(0).toBool(), true);
    const auto job = json::parse(http.request("GET", "/v1/jobs/2", {}, {}, 10'000).body);
    QCOMPARE(job["state"].get<std::string>(), std::string("completed"));
    const QString sweepId = QString::fromStdString(job["result"]["sweep"].get<std::string>());
    QCOMPARE(tab->shownSweep(), sweepId);
    QCOMPARE(tab->table()->rowCount(), 2);
    QCOMPARE(tab->shownTable().points.at(1).sessions.size(), std::size_t{1});
    const auto engineSessions =
        json::parse(http.request("GET", "/v1/sessions", {}, {}, 10'000).body);
    QCOMPARE(engineSessions.size(), std::size_t{4});
    std::int64_t last = 0; // the sweep's second point ran last (one repeat: forward)
    for (const auto &session : engineSessions)
        last = std::max(last, session["id"].get<std::int64_t>());
    QCOMPARE(tab->shownTable().points.at(1).sessions.at(0), last);
    QTRY_COMPARE_WITH_TIMEOUT(w.sessions()->model()->rowCount(), 4, 10'000);
    QVERIFY(w.startAction()->isEnabled());
    QVERIFY(!QFile::exists(home_.filePath("local7.db")) ||
            SessionStore(home_.filePath("local7.db").toStdString()).list().empty());
}

void TstRemoteGui::killedEngineIsShownAndFoundAgain()
{
    auto e = std::make_unique<ServedEngine>();
    QVERIFY(e->start());
    const int port = e->serve.port;
    const QUrl url = e->url();
    MainWindow w(home_.filePath("local3.db"));
    w.setHeadless(true);
    w.show();
    QString error;
    QVERIFY2(succeeded(w.connectToEngine(url, kToken), error), qPrintable(error));
    EngineController *ctl = w.controller();
    QVERIFY(w.startRun());
    const qint64 session = ctl->sessionId();
    QTRY_VERIFY_WITH_TIMEOUT(ctl->samples().size() >= 8, 20'000); // some of it recorded

    e->serve.p.kill(); // SIGKILL mid-run
    QVERIFY(e->serve.p.waitForFinished(10'000));
    QTRY_VERIFY_WITH_TIMEOUT(w.engineLabel()->text().contains("contact lost"), 10'000);
    QVERIFY(!ctl->connected());
    QVERIFY(!action(w, QStringLiteral("Stop"))->isEnabled());

    // A new engine on the same address and database: found again, the run is gone and its
    // session was marked interrupted.
    Serve again;
    QString why;
    QVERIFY2(again.start({"--listen", QStringLiteral("tcp:127.0.0.1:%1").arg(port), "--token-file",
                          e->tokenFile, "--db", e->dir.filePath("s.db")},
                         &why),
             qPrintable(why));
    QTRY_VERIFY_WITH_TIMEOUT(ctl->connected(), 20'000);
    QTRY_VERIFY_WITH_TIMEOUT(!ctl->isRunning(), 10'000);
    QVERIFY(!w.engineLabel()->text().contains("contact lost"));
    httplib::Client c("127.0.0.1", port);
    c.set_bearer_token_auth(kToken);
    const auto r = c.Get(("/v1/sessions/" + std::to_string(session)).c_str());
    QVERIFY(r && r->status == 200);
    QCOMPARE(json::parse(r->body)["status"].get<std::string>(), "interrupted");
}

void TstRemoteGui::lostEngineOffersReconnectAndReadsItsStateBack()
{
    QTemporaryDir dir;
    const QString socket = dir.filePath("engine.sock");
    const QStringList args{"--listen", "unix:" + socket, "--db", dir.filePath("s.db")};
    auto serve = std::make_unique<Serve>();
    QString error;
    QVERIFY2(serve->start(args, &error), qPrintable(error));
    MainWindow w(home_.filePath("local6.db"));
    w.setHeadless(true);
    w.resize(1280, 800);
    w.show();
    QVERIFY2(succeeded(w.connectToEngine(QUrl("unix:" + socket), {}), error), qPrintable(error));
    EngineController *ctl = w.controller();
    QVERIFY(!w.reconnectAction()->isEnabled()); // nothing to reconnect
    QVERIFY(w.startRun());
    const qint64 lostSession = ctl->sessionId();
    QTRY_VERIFY_WITH_TIMEOUT(ctl->samples().size() >= 4, 20'000);

    serve->p.kill(); // SIGKILL mid-run
    QVERIFY(serve->p.waitForFinished(10'000));
    QTRY_VERIFY_WITH_TIMEOUT(w.stateLabel()->text().contains("contact lost"), 10'000);
    QVERIFY2(w.stateLabel()->text().contains(QString("session %1").arg(lostSession)),
             qPrintable(w.stateLabel()->text()));
    // Start and Stop both wait for the engine, and say so; Reconnect is offered.
    QVERIFY(!w.startAction()->isEnabled());
    QVERIFY(!w.stopAction()->isEnabled());
    QCOMPARE(w.startAction()->toolTip(), QString("No contact with the engine: Reconnect first"));
    QCOMPARE(w.stopAction()->toolTip(), w.startAction()->toolTip());
    QVERIFY(w.reconnectAction()->isEnabled());
    // The message, whole: in the notice (wrapped, every line of it shown) and the status
    // bar's tooltip; the notice's button is Reconnect.
    ConnectionNotice *notice = w.connectionNotice();
    QVERIFY(notice->isVisible());
    const QString message = notice->text();
    QVERIFY2(message.startsWith("Contact lost with " + ctl->engineText() + ": ") &&
                 message.contains(QString("session %1").arg(lostSession)) &&
                 message.endsWith("reads back the engine's state."),
             qPrintable(message));
    QCOMPARE(w.engineLabel()->toolTip(), message);
    QTRY_VERIFY(notice->label()->height() >=
                notice->label()->heightForWidth(notice->label()->width()));
    QVERIFY(notice->label()->width() <= w.width());
    QCOMPARE(notice->button()->defaultAction(), w.reconnectAction());

    // Reconnect while the engine is still down: refused, contact still lost, nothing moved.
    // Where things are meanwhile: nothing moves under the pointer when the notice changes
    // (issue 46 item 7).
    auto at = [&w](const QWidget *x) { return QRect(x->mapTo(&w, QPoint(0, 0)), x->size()); };
    const QRect chartsWhileLost = at(w.charts());
    const QRect reconnectWhileLost = at(notice->button());
    w.reconnectAction()->trigger();
    QVERIFY(!ctl->connected());
    QVERIFY(notice->lost());
    QCOMPARE(at(w.charts()), chartsWhileLost);

    // A new engine on the same socket, with a run another client started: the window's
    // retry reaches it by itself and reads it back, its session and its values.
    serve = std::make_unique<Serve>();
    QVERIFY2(serve->start(args, &error), qPrintable(error));
    const auto started = UnixHttp(socket.toStdString())
                             .request("POST", "/v1/run/start", {},
                                      json{{"profile", "default"},
                                           {"set", {{"poll.budget", "48"}}},
                                           {"client", "another client"}}
                                          .dump(),
                                      10'000);
    QVERIFY2(started.status == 201, started.body.c_str());
    const qint64 session = json::parse(started.body).at("session").get<qint64>();
    QVERIFY(session > 0);
    // The window tries again by itself (every RemoteLink::kRetryMs): no click needed.
    QTRY_VERIFY_WITH_TIMEOUT(ctl->connected(), 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(ctl->sessionId(), session, 10'000);
    QVERIFY(ctl->isRunning());
    QVERIFY(!ctl->controlling()); // another client's run: watched
    QCOMPARE(ctl->params().text(findTunable("poll.budget")->id), std::string("48"));
    QVERIFY2(w.stateLabel()->text().contains(
                 QString("running default · recording session %1").arg(session)),
             qPrintable(w.stateLabel()->text()));
    QVERIFY(!w.reconnectAction()->isEnabled());
    QVERIFY(w.engineLabel()->text().contains("watching"));
    // Issue 46: the notice does not vanish under the pointer; it says the engine is back and
    // what became of the run this window followed (the new engine marked it interrupted)
    // until dismissed, and keeps its place meanwhile.
    QVERIFY(notice->isVisible());
    QVERIFY(!notice->lost());
    QTRY_VERIFY2_WITH_TIMEOUT(
        notice->text().contains(QString("session %1 is interrupted").arg(lostSession)),
        qPrintable(notice->text()), 10'000);
    QVERIFY(notice->dismissButton()->isVisible());
    QVERIFY(!notice->button()->isVisible());
    QCOMPARE(at(w.charts()), chartsWhileLost);
    // A click meant for Reconnect lands on Dismiss, not on whatever was under the notice.
    QVERIFY2(at(notice->dismissButton()).contains(reconnectWhileLost.center()),
             qPrintable(QStringLiteral("Reconnect was at %1,%2; Dismiss is at %3,%4 %5x%6")
                            .arg(reconnectWhileLost.center().x())
                            .arg(reconnectWhileLost.center().y())
                            .arg(at(notice->dismissButton()).x())
                            .arg(at(notice->dismissButton()).y())
                            .arg(at(notice->dismissButton()).width())
                            .arg(at(notice->dismissButton()).height())));
    QTest::mouseClick(notice->dismissButton(), Qt::LeftButton);
    QVERIFY(!notice->isVisible());
}

void TstRemoteGui::wrongTokenOrAddressIsRefused()
{
    ServedEngine e;
    QVERIFY(e.start());
    MainWindow w(home_.filePath("local4.db"));
    w.setHeadless(true);
    QString error;
    QVERIFY(!succeeded(w.connectToEngine(e.url(), "not-the-token-not-the-token"), error));
    QVERIFY2(error.contains("refused the token"), qPrintable(error));
    QVERIFY(!w.controller()->remote());
    QVERIFY(!succeeded(w.connectToEngine(QUrl("http://127.0.0.1:1"), kToken), error));
    QVERIFY2(error.contains("127.0.0.1:1"), qPrintable(error));
    QVERIFY(w.engineLabel()->text().contains("this process"));
}

QTEST_MAIN(TstRemoteGui)
#include "tst_remote_gui.moc"
