// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/engine_controller.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QPointer>
#include <QSysInfo>
#include <pwd.h>
#include <unistd.h>

#include "drivers/registry_devices.h"
#include "engine/metrics/sample_json.h"
#include "engine/run/catalog_json.h"
#include "engine/run/run_api.h"
#include "engine/version.h"
#include "ui/json_fields.h"
#include "ui/local_link.h"
#include "ui/session_mirror.h"

namespace ringlab::ui {

namespace {
// Why the engine did not do what it was asked: a 4xx is a refusal (the request is the
// user's to change), anything else (no reply, a 5xx) a failure.
Status statusOf(const EngineLink::Reply &r)
{
    const QString why =
        r.error.isEmpty() ? EngineController::tr("the engine answered %1").arg(r.status) : r.error;
    return r.status >= 400 && r.status < 500 ? refusedBecause(why) : failedBecause(why);
}
using json_fields::number;
using json_fields::text;

// How this window is named to the engine and to other clients: "ringlab desktop, USER@HOST".
std::string clientName()
{
    const passwd *pw = getpwuid(geteuid());
    return QStringLiteral("ringlab desktop, %1@%2")
        .arg(pw ? QString::fromLocal8Bit(pw->pw_name) : QString::number(geteuid()),
             QSysInfo::machineHostName())
        .toStdString();
}
} // namespace

EngineController::EngineController(QObject *parent) : QObject(parent)
{
    dbPath_ = QString::fromStdString(SessionStore::defaultPath().string());
    deliverTimer_.setSingleShot(true);
    deliverTimer_.setInterval(50);
    connect(&deliverTimer_, &QTimer::timeout, this, &EngineController::deliver);
}

EngineController::~EngineController()
{
    if (remote_)
        detach(); // a run on an engine goes on there
    else
        stop();
}

ParamSet EngineController::params() const
{
    return params_;
}

Status EngineController::apply(const Assignments &a, const QString &source)
{
    // Checked here first (the same registry), then by the engine, which has the last word.
    ParamSet next = params_;
    if (Status st = next.set(a); !st.ok()) return st;
    if (!running_) {
        params_ = next;
        emit paramsChanged();
        return {};
    }
    nlohmann::json set = nlohmann::json::object();
    for (const auto &[k, v] : a)
        set[k] = v;
    const auto r = link_->call("POST", QStringLiteral("/v1/run/set"),
                               {{"set", set}, {"source", source.toStdString()}});
    if (!r.ok()) return Status{r.error.toStdString()};
    if (r.body.is_object()) adoptValues(r.body.contains("params") ? r.body.at("params") : nullptr);
    return {};
}

Result<SessionStore *> EngineController::store()
{
    const std::filesystem::path want = dbPath_.toStdString();
    if (store_ && store_->file() == want) return store_.get();
    store_.reset();
    QDir().mkpath(QFileInfo(dbPath_).absolutePath());
    try {
        store_ = std::make_unique<SessionStore>(want);
    } catch (const DbError &e) {
        // A colleague's file or a read-only share: its sessions can still be shown.
        try {
            store_ = std::make_unique<SessionStore>(want, Db::Mode::ReadOnly);
        } catch (const DbError &) {
            return Status::failed(e.what());
        }
    }
    return store_.get();
}

RemoteLink *EngineController::remoteLink() const
{
    return remote_ ? static_cast<RemoteLink *>(link_.get()) : nullptr;
}

Result<SessionStore *> EngineController::sessionStore()
{
    if (!remote_) return store();
    const QString file = SessionMirror::databaseFor(remoteLink()->url());
    auto &copies = copies_[file];
    if (!copies) {
        QDir().mkpath(QFileInfo(file).absolutePath());
        try {
            copies = std::make_unique<SessionStore>(file.toStdString());
        } catch (const DbError &e) {
            copies_.erase(file);
            return failedBecause(
                tr("copies of the engine's sessions: %1").arg(QString::fromUtf8(e.what())));
        }
    }
    return copies.get();
}

Result<SessionMirror *> EngineController::mirror()
{
    if (!remote_) return Status::refused("this window is not attached to an engine");
    if (!mirror_) {
        const auto copies = sessionStore();
        if (!copies.ok()) return copies.status();
        mirror_ = new SessionMirror(*remoteLink(), *copies.value());
    }
    return mirror_.data();
}

Status EngineController::fetchSessions(const QList<qint64> &ids)
{
    if (!remote_) return Status::success();
    const auto m = mirror();
    if (!m.ok()) return m.status();
    if (Status st = m.value()->fetch(ids); !st.ok()) return st;
    emit sessionsCopied();
    return Status::success();
}

Status EngineController::useLocalEngine()
{
    if (remote_) return Status::success();
    // Kept while it records where the window records (a scratch one while nothing is).
    if (link_ && (localScratch_ ? !recording_ : localDb_ == dbPath_)) return Status::success();
    if (running_ || jobHold_.held()) return Status::success(); // the database changes next run
    RunApiOptions o;
    o.db = dbPath_.toStdString();
    o.endpoint = "in-process";
    o.inProcess = true;
    QDir().mkpath(QFileInfo(dbPath_).absolutePath());
    std::unique_ptr<EngineLink> local;
    bool scratch = false;
    try {
        local = std::make_unique<LocalLink>(o, registryDevices());
    } catch (const DbError &e) {
        if (recording_) {
            return Status::failed(std::string("cannot record: ") + e.what());
        }
        // Not recording: a colleague's read-only file need not stop a run.
        o.db = ":memory:";
        o.record = false;
        try {
            local = std::make_unique<LocalLink>(o, registryDevices());
        } catch (const DbError &e2) {
            return Status::failed(e2.what());
        }
        scratch = true;
    }
    setLink(std::move(local), false);
    localDb_ = dbPath_;
    localScratch_ = scratch;
    return Status::success();
}

void EngineController::setLink(std::unique_ptr<EngineLink> link, bool remote)
{
    if (link_) {
        // A request of this window's may be waiting for the engine in a nested event loop (a
        // fetch, a start): the link goes when control is back in the outer loop.
        EngineLink *old = link_.release();
        old->disconnect(this);
        old->close(); // the stream ends now, so the engine need not wait for it
        if (qobject_cast<LocalLink *>(old))
            delete old; // answers at once: nothing of it is waiting
        else
            old->deleteLater();
    }
    link_ = std::move(link);
    remote_ = remote && link_;
    linkUp_ = link_ != nullptr;
    endedJobs_.clear();    // another engine numbers its own jobs
    if (jobHold_.held()) { // the last engine's job is no longer this window's concern
        jobHold_ = {};
        heldByJob_ = 0;
        emit jobChanged();
    }
    emit engineChanged();
    if (!link_) return;
    connect(link_.get(), &EngineLink::lineReceived, this, &EngineController::onLine);
    connect(link_.get(), &EngineLink::connectionChanged, this, [this](bool up, const QString &why) {
        linkUp_ = up;
        reopened_ = up; // the next state line is the engine's word on the run
        if (remote_) emit connectionChanged(up, why);
    });
    link_->openStream(); // its first line is the engine's state: a run going is watched
}

Status EngineController::start()
{
    if (running_) return Status::success();
    if (Status st = useLocalEngine(); !st.ok()) return st;
    nlohmann::json set = nlohmann::json::object();
    for (const auto &t : tunables())
        set[std::string(t.name)] = params_.text(t.id);
    nlohmann::json body = {{"profile", profile_.toStdString()},
                           {"name", profile_.toStdString()},
                           {"device", device_.spec},
                           {"set", set},
                           {"client", clientName()}};
    if (!recording_ || (!remote_ && localScratch_)) body["record"] = false;
    if (!remote_) {
        // This process's own engine takes what a socket's clients may not give.
        if (!profilePath_.isEmpty()) body["profile"] = profilePath_.toStdString();
        std::string eal;
        for (const auto &w : device_.eal)
            eal += (eal.empty() ? "" : " ") + w;
        if (!eal.empty()) body["eal"] = eal;
        if (!device_.traffic.empty()) body["traffic"] = device_.traffic;
    }
    samples_.clear();
    events_.clear();
    pendingSamples_.clear();
    pendingEvents_.clear();
    // This window's own start: the stream's state lines about it are not news, but its
    // events are the run's first (the start, the device's warnings), before the reply.
    busy_ = starting_ = true;
    const auto r = link_->call("POST", QStringLiteral("/v1/run/start"), body);
    busy_ = starting_ = false;
    if (!r.ok()) {
        pendingSamples_.clear();
        pendingEvents_.clear();
        return statusOf(r);
    }
    link_->setControl(QByteArray::fromStdString(text(r.body, "control")));
    controlId_ = text(r.body, "control_id");
    sessionId_ = number(r.body, "session");
    runStartedAt_ = text(r.body, "started_at");
    deviceName_ = QString::fromStdString(text(r.body, "device"));
    running_ = true;
    deviceSupport_.clear();
    const auto t = link_->call("GET", QStringLiteral("/v1/tunables"));
    if (t.ok() && t.body.is_array())
        for (const auto &e : t.body)
            if (e.is_object() && e.contains("device") && e.at("device").is_object()) {
                const TunableInfo *info = findTunable(text(e, "name"));
                if (!info) continue;
                const std::string sup = text(e.at("device"), "support");
                deviceSupport_.push_back({info->id,
                                          sup == "ignored"       ? Support::Ignored
                                          : sup == "fixed"       ? Support::Fixed
                                          : sup == "unavailable" ? Support::Unavailable
                                                                 : Support::Applies,
                                          text(e.at("device"), "reason")});
            }
    emit runStarted();
    return Status::success();
}

void EngineController::stop()
{
    if (!running_ || !controlling()) return; // a watched run is not this window's
    busy_ = true; // this window's own stop: the stream's lines about it are not news
    const auto r = link_->call("POST", QStringLiteral("/v1/run/stop"));
    busy_ = false;
    if (!r.ok()) {
        emit errorOccurred(tr("Stop: %1").arg(r.error));
        return;
    }
    stopped(); // a recording error was told by the stream's warning lines as it happened
}

bool EngineController::isRunning() const
{
    return running_;
}

QString EngineController::deviceName() const
{
    return isRunning() ? deviceName_ : QString::fromStdString(device_.spec);
}

void EngineController::mark(const QString &label)
{
    if (!running_) return;
    link_->callLater("POST", QStringLiteral("/v1/run/mark"), {{"label", label.toStdString()}},
                     [self = QPointer<EngineController>(this)](const EngineLink::Reply &r) {
                         if (self && !r.ok()) emit self->errorOccurred(tr("Mark: %1").arg(r.error));
                     });
}

void EngineController::queue(SamplePtr s)
{
    pendingSamples_.push_back(std::move(s));
    if (!deliverTimer_.isActive()) deliverTimer_.start();
}

void EngineController::queue(const Event &e)
{
    pendingEvents_.push_back(e);
    if (!deliverTimer_.isActive()) deliverTimer_.start();
}

void EngineController::deliver()
{
    deliverTimer_.stop();
    std::vector<SamplePtr> s;
    std::vector<Event> e;
    s.swap(pendingSamples_);
    e.swap(pendingEvents_);
    for (const auto &ev : e) {
        events_.push_back(ev);
        emit eventArrived(ev);
    }
    if (!s.empty()) {
        samples_.insert(samples_.end(), s.begin(), s.end());
        emit samplesArrived(s);
    }
}

void EngineController::engineDevices(std::function<void(Result<std::vector<DeviceListing>>)> done)
{
    if (!remote_) {
        done(Status::refused("the engine in this process lists the registry's devices"));
        return;
    }
    link_->callLater(
        "GET", QStringLiteral("/v1/devices"), nlohmann::json::object(),
        [done = std::move(done)](const EngineLink::Reply &r) {
            if (!r.ok())
                done(Status::failed(r.error.isEmpty() ? "no reply" : r.error.toStdString()));
            else
                done(devicesFromJson(r.body));
        });
}

Status EngineController::attach(const QUrl &url, const QByteArray &token)
{
    if (running_ && !remote_) return refusedBecause(tr("stop the run in this process first"));
    if (jobHold_.held() && !remote_) // its engine would go with the link
        return refusedBecause(tr("%1 in this process first").arg(jobHold_.blockedReason()));
    auto link = std::make_unique<RemoteLink>(url, token);
    const auto v = link->call("GET", QStringLiteral("/v1/version"));
    const bool ours = v.ok() && v.body.is_object() && v.body.contains("api") &&
                      v.body.at("api").is_number_integer() && v.body.at("api") == kApiVersion;
    if (!ours)
        return failedBecause(
            v.ok() ? tr("%1 does not offer Ringlab's API v%2").arg(url.toString()).arg(kApiVersion)
                   : tr("%1: %2").arg(url.toString(), v.error));
    detach();
    engineInfo_ = tr("ringlab-engine %1 on %2 (%3)")
                      .arg(QString::fromStdString(text(v.body, "version")),
                           QString::fromStdString(text(v.body, "host")), url.toString());
    setLink(std::move(link), true); // the engine in this process (no run going) goes
    localDb_.clear();
    sessionId_ = 0; // the engine numbers its own sessions
    return Status::success();
}

void EngineController::detach()
{
    if (!remote_) return;
    // remote() is false from here: what the stop below sets off (the Sessions list) reads
    // this process's state, and asks the engine nothing.
    remote_ = false;
    if (running_) stopped();             // it goes on there; this window stops following it
    if (mirror_) mirror_->deleteLater(); // a fetch may be waiting in a nested event loop
    mirror_ = nullptr;
    setLink(nullptr, false); // the engine in this process opens again with the next start
    engineInfo_.clear();
    sessionId_ = 0; // the engine's numbering; this process has its own
}

void EngineController::reconnect()
{
    if (remote_ && !linkUp_) remoteLink()->reconnect();
}

QString EngineController::engineText() const
{
    return remote_ ? engineInfo_ : tr("the engine in this process (%1)").arg(RINGLAB_VERSION);
}

Status EngineController::takeControl()
{
    if (!remote_ || !link_) return Status::success();
    busy_ = true;
    const auto r =
        link_->call("POST", QStringLiteral("/v1/run/control"), {{"client", clientName()}});
    busy_ = false;
    if (!r.ok()) return statusOf(r);
    link_->setControl(QByteArray::fromStdString(text(r.body, "control")));
    controlId_ = text(r.body, "control_id");
    emit runStarted(); // the window's state: this window now drives the run
    return Status::success();
}

void EngineController::sayHowItEnded(std::int64_t session)
{
    // The stream broke and the run followed is gone (the engine restarted, or another client
    // stopped it meanwhile): the engine's record says how its session ended, "interrupted"
    // when a killed engine's session was found running at the next start.
    const QString path = QStringLiteral("/v1/sessions/%1").arg(session);
    link_->callLater(
        "GET", path, nlohmann::json::object(),
        [self = QPointer<EngineController>(this), session](const EngineLink::Reply &r) {
            if (!self) return;
            const std::string status = r.ok() ? text(r.body, "status") : std::string();
            emit self->runLost(
                status.empty()
                    ? tr("The run followed ended while the engine was out of reach; session %1 "
                         "could not be read: %2")
                          .arg(session)
                          .arg(r.error)
                    : tr("The run followed ended while the engine was out of reach: session %1 is "
                         "%2 (its samples up to the engine's last write are kept)")
                          .arg(session)
                          .arg(QString::fromStdString(status)));
        });
}

void EngineController::stopped()
{
    if (!running_) return; // once per run
    running_ = false;
    if (link_) link_->setControl({});
    controlId_.clear();
    deliver(); // what the stream brought so far
    emit runStopped(sessionId_);
}

void EngineController::adoptValues(const nlohmann::json &values)
{
    if (!values.is_object()) return;
    Assignments a;
    for (const auto &[k, v] : values.items())
        if (v.is_string()) a.emplace_back(k, v.get<std::string>());
    // Together, as the engine holds them: one at a time an ordered pair could be refused.
    if (params_.set(a).ok()) emit paramsChanged();
}

void EngineController::onLine(const nlohmann::json &line)
{
    // A line is the network's: nothing in it may take the window down.
    try {
        handleLine(line);
    } catch (const nlohmann::json::exception &e) {
        emit errorOccurred(tr("A line from the engine was not understood: %1").arg(e.what()));
    }
}

void EngineController::handleLine(const nlohmann::json &line)
{
    const std::string type = text(line, "type");
    if (type == "sample" && (running_ || starting_)) {
        auto sample = sampleFromJson(line);
        if (sample.ok())
            queue(std::make_shared<Sample>(std::move(sample).value()));
        else
            emit errorOccurred(QString::fromStdString(sample.error()));
    } else if (type == "event" && (running_ || starting_)) {
        const auto event = eventFromJson(line);
        if (!event.ok()) return;
        const Event &e = event.value();
        if (e.kind == "param") adoptValues(nlohmann::json{{e.tunable, e.after}});
        queue(e);
    } else if (type == "job") {
        takeJob(line);
    } else if (type == "warning") { // the recorder could not write (a full disk)
        emit errorOccurred(QString::fromStdString(text(line, "message")));
    } else if (type == "state" && !busy_) {
        const bool running = line.contains("running") && line.at("running").is_boolean() &&
                             line.at("running").get<bool>();
        const std::int64_t session = number(line, "session");
        const std::string startedAt = text(line, "started_at");
        // A state line older than this window's start (the stream's first, sent before it)
        // must not end the run: only the end of this session or a later one does. After a
        // broken stream the engine (perhaps another process) says what is going: the same run
        // is the same session started at the same time.
        const bool ended = reopened_
                               ? !running || session != sessionId_ || startedAt != runStartedAt_
                           : running ? session > sessionId_ || startedAt != runStartedAt_
                                     : number(line, "last_session") >= sessionId_;
        const bool lostRun = reopened_ && running_ && ended;
        reopened_ = false;
        if (running_ && ended) stopped();
        if (lostRun) sayHowItEnded(sessionId_);
        // The run followed: its values as the engine holds them (after a cut-off stream,
        // changes whose lines were lost).
        if (running && running_ && line.contains("params")) adoptValues(line.at("params"));
        if (running && !running_) { // a run this window did not start: watch it
            samples_.clear();
            events_.clear();
            sessionId_ = session;
            runStartedAt_ = startedAt;
            deviceName_ = QString::fromStdString(text(line, "device"));
            profile_ = QString::fromStdString(text(line, "profile"));
            profilePath_.clear(); // the engine's profile, by name
            if (line.contains("params")) adoptValues(line.at("params"));
            running_ = true;
            emit watchStarted();
            emit runStarted();
        }
    } else if (type == "control" && !busy_ && text(line, "control_id") != controlId_) {
        // Someone else holds the key now: this window watches.
        link_->setControl({});
        controlId_.clear();
        emit errorOccurred(
            tr("%1 took control of the run").arg(QString::fromStdString(text(line, "controller"))));
        emit runStarted(); // the window's state: it no longer drives the run
    }
}

void EngineController::takeJob(const nlohmann::json &job)
{
    // Everything read first: a line that does not parse changes nothing (onLine says why).
    const int id = static_cast<int>(number(job, "id"));
    const std::string kind = text(job, "kind");
    const bool running = text(job, "state") == "running";
    const nlohmann::json &p = job.at("progress");
    const int run = p.at("run").get<int>(), runs = p.at("runs").get<int>();
    if (id <= 0) return;
    if (running && endedJobs_.count(id)) return; // a reply older than the job's end line
    if (running) {
        jobHold_.kind = kind == "tune"        ? MeasurementHold::Kind::Tune
                        : kind == "reproduce" ? MeasurementHold::Kind::Reproduction
                                              : MeasurementHold::Kind::Sweep;
        jobHold_.since =
            QDateTime::fromString(QString::fromStdString(text(job, "started_at")), Qt::ISODate)
                .toLocalTime();
        jobHold_.step = run;
        jobHold_.steps = runs;
        jobHold_.where = remote_ ? tr("on %1").arg(engineText()) : tr("in this window's engine");
        heldByJob_ = id;
    } else {
        endedJobs_.insert(id);
        if (id == heldByJob_ || !jobHold_.held()) {
            jobHold_ = {};
            heldByJob_ = 0;
        }
    }
    emit jobChanged();
    emit jobUpdated(job);
}

Result<nlohmann::json> EngineController::submitJob(const nlohmann::json &spec)
{
    if (running_)
        return refusedBecause(tr("a run is measuring: stop it first (one measurement at a time)"));
    if (Status st = useLocalEngine(); !st.ok()) return st;
    if (!remote_ && localScratch_)
        return refusedBecause(tr("the session database %1 cannot be written, and a job's runs "
                                 "are recorded: choose another under File")
                                  .arg(dbPath_));
    const auto r = link_->call("POST", QStringLiteral("/v1/jobs"), spec);
    if (!r.ok()) return statusOf(r);
    if (!r.body.is_object()) return failedBecause(tr("the engine answered %1").arg(r.status));
    try {
        takeJob(r.body); // the stream's line may come later than the reply
    } catch (const nlohmann::json::exception &e) {
        return failedBecause(tr("the engine's job was not understood: %1").arg(e.what()));
    }
    return r.body;
}

void EngineController::cancelJob(int id)
{
    if (!link_) return;
    link_->callLater("POST", QStringLiteral("/v1/jobs/%1/cancel").arg(id), nlohmann::json::object(),
                     [this, id, link = link_.get()](const EngineLink::Reply &r) {
                         if (link != link_.get()) return; // another engine's job by now
                         if (r.ok())
                             onJobReply(r.body);
                         else if (r.status == 409) // it had ended: its end line may be lost
                             refreshJob(id);
                         else
                             emit errorOccurred(tr("cancel: %1").arg(r.error));
                     });
}

void EngineController::onJobReply(const nlohmann::json &job)
{
    // A reply is the network's, as a line is.
    try {
        if (job.is_object()) takeJob(job);
    } catch (const nlohmann::json::exception &e) {
        emit errorOccurred(tr("The engine's job was not understood: %1").arg(e.what()));
    }
}

void EngineController::refreshJob(int id)
{
    if (!link_) return;
    link_->callLater("GET", QStringLiteral("/v1/jobs/%1").arg(id), nlohmann::json::object(),
                     [this, id, link = link_.get()](const EngineLink::Reply &r) {
                         if (link != link_.get()) return;
                         if (r.ok())
                             onJobReply(r.body);
                         else if (r.status == 404) // the engine restarted: its jobs are gone
                             forgetJob(id, tr("the engine no longer knows job %1 (it was "
                                              "restarted): the job ended there")
                                               .arg(id));
                     });
}

void EngineController::forgetJob(int id, const QString &why)
{
    endedJobs_.insert(id);
    if (id == heldByJob_) {
        jobHold_ = {};
        heldByJob_ = 0;
        emit jobChanged();
    }
    emit jobLost(id, why);
}

} // namespace ringlab::ui
