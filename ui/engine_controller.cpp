// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/engine_controller.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QPointer>
#include <QSysInfo>
#include <pwd.h>
#include <unistd.h>

#include "engine/metrics/sample_json.h"
#include "engine/run/run_api.h"
#include "engine/version.h"
#include "ui/json_fields.h"
#include "ui/session_mirror.h"

namespace ringlab::ui {

// Receives from the engine's threads; only queues, then asks the GUI thread to deliver.
class EngineController::Bridge final : public Subscriber {
  public:
    explicit Bridge(EngineController *owner) : owner_(owner) {}
    void onSample(const std::shared_ptr<const Sample> &s) override
    {
        std::lock_guard lock(mutex_);
        samples_.push_back(s);
        poke();
    }
    void onEvent(const Event &e) override
    {
        std::lock_guard lock(mutex_);
        events_.push_back(e);
        poke();
    }
    void take(std::vector<SamplePtr> &s, std::vector<Event> &e)
    {
        std::lock_guard lock(mutex_);
        s.swap(samples_);
        e.swap(events_);
        posted_ = false;
    }

  private:
    void poke() // mutex_ held
    {
        if (posted_) return;
        posted_ = true;
        QPointer<EngineController> owner = owner_;
        QMetaObject::invokeMethod(
            owner_,
            [owner] {
                // Coalesce: deliver at most every 50 ms, in one batch.
                if (owner && !owner->deliverTimer_.isActive()) owner->deliverTimer_.start();
            },
            Qt::QueuedConnection);
    }
    EngineController *owner_;
    std::mutex mutex_;
    std::vector<SamplePtr> samples_;
    std::vector<Event> events_;
    bool posted_ = false;
};

EngineController::EngineController(QObject *parent)
    : QObject(parent), service_(std::make_unique<RunService>(
                           [self = QPointer<EngineController>(this)](const std::string &m) {
                               // From the recorder's thread: to the GUI thread.
                               const QString msg = QString::fromStdString(m);
                               QMetaObject::invokeMethod(
                                   self,
                                   [self, msg] {
                                       if (self) emit self->errorOccurred(msg);
                                   },
                                   Qt::QueuedConnection);
                           }))
{
    dbPath_ = QString::fromStdString(SessionStore::defaultPath().string());
    deliverTimer_.setSingleShot(true);
    deliverTimer_.setInterval(50);
    connect(&deliverTimer_, &QTimer::timeout, this, &EngineController::deliver);
}

EngineController::~EngineController()
{
    if (link_)
        detach(); // a run on an engine goes on there
    else
        stop();
}

ParamSet EngineController::params() const
{
    return service_->running() ? service_->params() : params_;
}

Status EngineController::apply(const Assignments &a, const QString &source)
{
    Status st;
    if (link_ && remoteRunning_) {
        // Checked here first (the same registry), then by the engine, which has the last word.
        ParamSet next = params_;
        if (st = next.set(a); !st.ok()) return st;
        nlohmann::json set = nlohmann::json::object();
        for (const auto &[k, v] : a)
            set[k] = v;
        const auto r = link_->call("POST", QStringLiteral("/v1/run/set"), {{"set", set}});
        if (!r.ok()) return Status{r.error.toStdString()};
        if (r.body.is_object())
            adoptValues(r.body.contains("params") ? r.body.at("params") : nullptr);
        return {};
    }
    if (service_->running()) {
        st = service_->apply(a, source.toStdString());
        if (st.ok()) params_ = service_->params();
    } else {
        st = params_.set(a);
    }
    if (st.ok()) emit paramsChanged();
    return st;
}

SessionStore *EngineController::store(QString *error)
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
            if (error) *error = QString::fromStdString(e.what());
            return nullptr;
        }
    }
    return store_.get();
}

SessionStore *EngineController::sessionStore(QString *error)
{
    if (!link_) return store(error);
    const QString file = SessionMirror::databaseFor(link_->url());
    auto &copies = copies_[file];
    if (!copies) {
        QDir().mkpath(QFileInfo(file).absolutePath());
        try {
            copies = std::make_unique<SessionStore>(file.toStdString());
        } catch (const DbError &e) {
            copies_.erase(file);
            if (error)
                *error = tr("copies of the engine's sessions: %1").arg(QString::fromUtf8(e.what()));
            return nullptr;
        }
    }
    return copies.get();
}

SessionMirror *EngineController::mirror(QString *error)
{
    if (!link_) return nullptr;
    if (!mirror_) {
        SessionStore *copies = sessionStore(error);
        if (!copies) return nullptr;
        mirror_ = new SessionMirror(*link_, *copies);
    }
    return mirror_;
}

bool EngineController::fetchSessions(const QList<qint64> &ids, QString *error)
{
    if (!link_) return true;
    SessionMirror *m = mirror(error);
    return m && m->fetch(ids, error);
}

bool EngineController::start(QString *error)
{
    if (link_) return remoteStart(error);
    if (service_->running()) return true;
    samples_.clear();
    events_.clear();
    sessionId_ = 0;
    SessionStore *db = nullptr;
    if (recording_) {
        QString why;
        db = store(&why);
        if (!db) {
            if (error) *error = QStringLiteral("cannot record: ") + why;
            return false;
        }
    }
    RunSetup setup;
    setup.params = params_;
    setup.profile = profile_.toStdString();
    setup.device = device_;
    bridge_ = std::make_shared<Bridge>(this);
    if (const StartStatus st = service_->start(setup, db, {bridge_}); !st.ok()) {
        bridge_.reset();
        if (error) *error = QString::fromStdString(st.error);
        return false;
    }
    sessionId_ = service_->sessionId();
    deviceName_ = QString::fromStdString(service_->deviceInfo().name);
    deviceSupport_ = service_->deviceSupport();
    emit runStarted();
    return true;
}

void EngineController::stop()
{
    if (link_) {
        if (!remoteRunning_ || !controlling()) return; // a watched run is not this window's
        busy_ = true; // this window's own stop: the stream's lines about it are not news
        const auto r = link_->call("POST", QStringLiteral("/v1/run/stop"));
        busy_ = false;
        if (!r.ok()) {
            emit errorOccurred(tr("Stop: %1").arg(r.error));
            return;
        }
        remoteStopped();
        return;
    }
    if (!service_->running()) return;
    params_ = service_->params();
    service_->stop("completed");
    deliver(); // the last samples and the stop event
    bridge_.reset();
    emit runStopped(sessionId_);
}

bool EngineController::isRunning() const
{
    return link_ ? remoteRunning_ : service_->running();
}

QString EngineController::deviceName() const
{
    return isRunning() ? deviceName_ : QString::fromStdString(device_.spec);
}

void EngineController::mark(const QString &label)
{
    if (!link_) {
        service_->mark(label.toStdString());
        return;
    }
    link_->callLater("POST", QStringLiteral("/v1/run/mark"), {{"label", label.toStdString()}},
                     [self = QPointer<EngineController>(this)](const RemoteLink::Reply &r) {
                         if (self && !r.ok()) emit self->errorOccurred(tr("Mark: %1").arg(r.error));
                     });
}

void EngineController::deliver()
{
    if (!bridge_) return;
    std::vector<SamplePtr> s;
    std::vector<Event> e;
    bridge_->take(s, e);
    for (const auto &ev : e) {
        events_.push_back(ev);
        emit eventArrived(ev);
    }
    if (!s.empty()) {
        samples_.insert(samples_.end(), s.begin(), s.end());
        emit samplesArrived(s);
    }
}

namespace {
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

bool EngineController::attach(const QUrl &url, const QByteArray &token, QString *error)
{
    if (service_->running()) {
        if (error) *error = tr("stop the run in this process first");
        return false;
    }
    auto link = std::make_unique<RemoteLink>(url, token);
    const auto v = link->call("GET", QStringLiteral("/v1/version"));
    const bool ours = v.ok() && v.body.is_object() && v.body.contains("api") &&
                      v.body.at("api").is_number_integer() && v.body.at("api") == kApiVersion;
    if (!ours) {
        if (error)
            *error =
                v.ok()
                    ? tr("%1 does not offer Ringlab's API v%2").arg(url.toString()).arg(kApiVersion)
                    : tr("%1: %2").arg(url.toString(), v.error);
        return false;
    }
    detach();
    sessionId_ = 0; // the engine numbers its own sessions
    engineInfo_ = tr("ringlab-engine %1 on %2 (%3)")
                      .arg(QString::fromStdString(text(v.body, "version")),
                           QString::fromStdString(text(v.body, "host")), url.toString());
    link_ = std::move(link);
    linkUp_ = true;
    connect(link_.get(), &RemoteLink::lineReceived, this, &EngineController::onRemoteLine);
    connect(link_.get(), &RemoteLink::connectionChanged, this, [this](bool up, const QString &why) {
        linkUp_ = up;
        reopened_ = up; // the next state line is the engine's word on the run
        emit connectionChanged(up, why);
    });
    bridge_ = std::make_shared<Bridge>(this);
    link_->openStream(); // its first line is the engine's state: a run going is watched
    return true;
}

void EngineController::detach()
{
    if (!link_) return;
    // remote() is false from here: what the stop below sets off (the Sessions list) reads
    // this process's state, and asks the engine nothing.
    RemoteLink *link = link_.release();
    link->disconnect(this);
    link->close();                       // the stream ends now, so the engine need not wait for it
    if (remoteRunning_) remoteStopped(); // it goes on there; this window stops following it
    // A request of this window's may be waiting for the engine in a nested event loop (a
    // fetch, a start): the link and the mirror go when control is back in the outer loop.
    if (mirror_) mirror_->deleteLater();
    mirror_ = nullptr;
    link->deleteLater();
    bridge_.reset();
    linkUp_ = false;
    engineInfo_.clear();
    sessionId_ = 0; // the engine's numbering; this process has its own
}

QString EngineController::engineText() const
{
    return link_ ? engineInfo_ : tr("the engine in this process (%1)").arg(RINGLAB_VERSION);
}

bool EngineController::takeControl(QString *error)
{
    if (!link_) return true;
    busy_ = true;
    const auto r =
        link_->call("POST", QStringLiteral("/v1/run/control"), {{"client", clientName()}});
    busy_ = false;
    if (!r.ok()) {
        if (error) *error = r.error;
        return false;
    }
    link_->setControl(QByteArray::fromStdString(text(r.body, "control")));
    controlId_ = text(r.body, "control_id");
    emit runStarted(); // the window's state: this window now drives the run
    return true;
}

bool EngineController::remoteStart(QString *error)
{
    if (remoteRunning_) return true;
    nlohmann::json set = nlohmann::json::object();
    for (const auto &t : tunables())
        set[std::string(t.name)] = params_.text(t.id);
    busy_ = true; // this window's own start: the stream's lines about it are not news
    const auto r = link_->call("POST", QStringLiteral("/v1/run/start"),
                               {{"profile", profile_.toStdString()},
                                {"name", profile_.toStdString()},
                                {"device", device_.spec},
                                {"set", set},
                                {"client", clientName()}});
    busy_ = false;
    if (!r.ok()) {
        if (error) *error = r.error;
        return false;
    }
    samples_.clear();
    events_.clear();
    link_->setControl(QByteArray::fromStdString(text(r.body, "control")));
    controlId_ = text(r.body, "control_id");
    sessionId_ = number(r.body, "session");
    runStartedAt_ = text(r.body, "started_at");
    deviceName_ = QString::fromStdString(text(r.body, "device"));
    remoteRunning_ = true;
    deviceSupport_.clear();
    const auto t = link_->call("GET", QStringLiteral("/v1/tunables"));
    if (t.ok() && t.body.is_array())
        for (const auto &e : t.body)
            if (e.is_object() && e.contains("device") && e.at("device").is_object()) {
                const TunableInfo *info = findTunable(text(e, "name"));
                if (!info) continue;
                const std::string sup = text(e.at("device"), "support");
                deviceSupport_.push_back({info->id,
                                          sup == "ignored" ? Support::Ignored
                                          : sup == "fixed" ? Support::Fixed
                                                           : Support::Applies,
                                          text(e.at("device"), "reason")});
            }
    emit runStarted();
    return true;
}

void EngineController::remoteStopped()
{
    if (!remoteRunning_) return; // once per run
    remoteRunning_ = false;
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

void EngineController::onRemoteLine(const nlohmann::json &line)
{
    // A line is the network's: nothing in it may take the window down.
    try {
        handleRemoteLine(line);
    } catch (const nlohmann::json::exception &e) {
        emit errorOccurred(tr("A line from the engine was not understood: %1").arg(e.what()));
    }
}

void EngineController::handleRemoteLine(const nlohmann::json &line)
{
    const std::string type = text(line, "type");
    std::string error;
    if (type == "sample" && remoteRunning_) {
        auto s = std::make_shared<Sample>();
        if (sampleFromJson(line, *s, error))
            bridge_->onSample(s);
        else
            emit errorOccurred(QString::fromStdString(error));
    } else if (type == "event" && remoteRunning_) {
        Event e;
        if (!eventFromJson(line, e, error)) return;
        if (e.kind == "param") adoptValues(nlohmann::json{{e.tunable, e.after}});
        bridge_->onEvent(e);
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
        reopened_ = false;
        if (remoteRunning_ && ended) remoteStopped();
        if (running && !remoteRunning_) { // a run this window did not start: watch it
            samples_.clear();
            events_.clear();
            sessionId_ = session;
            runStartedAt_ = startedAt;
            deviceName_ = QString::fromStdString(text(line, "device"));
            profile_ = QString::fromStdString(text(line, "profile"));
            if (line.contains("params")) adoptValues(line.at("params"));
            remoteRunning_ = true;
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

} // namespace ringlab::ui
