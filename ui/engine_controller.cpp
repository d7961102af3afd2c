// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/engine_controller.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QPointer>

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

EngineController::EngineController(QObject *parent) : QObject(parent)
{
    dbPath_ = QString::fromStdString(SessionStore::defaultPath().string());
    deliverTimer_.setSingleShot(true);
    deliverTimer_.setInterval(50);
    connect(&deliverTimer_, &QTimer::timeout, this, &EngineController::deliver);
}

EngineController::~EngineController()
{
    stop();
}

ParamSet EngineController::params() const
{
    return engine_ ? engine_->params() : params_;
}

Status EngineController::apply(const Assignments &a, const QString &source)
{
    Status st;
    if (engine_) {
        st = engine_->apply(a, source.toStdString());
        if (st.ok()) params_ = engine_->params();
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

bool EngineController::start(QString *error)
{
    if (engine_) return true;
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
        if (db->readOnly()) {
            if (error)
                *error = QStringLiteral("cannot record: database %1 is read-only here; its "
                                        "sessions can be viewed, but recording needs write access "
                                        "(turn Record off, or use --db FILE elsewhere)")
                             .arg(dbPath_);
            return false;
        }
    }
    if (auto st = checkDeviceOptions(device_); !st.ok()) {
        if (error) *error = QString::fromStdString(st.error);
        return false;
    }
    try {
        // The device and its check first: a device that cannot be had records nothing.
        engine_ = std::make_unique<Engine>(params_, deviceFactory(device_), EngineOptions{});
        if (auto st = engine_->checkDevice(); !st.ok()) throw std::runtime_error(st.error);
        deviceName_ = QString::fromStdString(engine_->deviceInfo().name);
        deviceSupport_ = engine_->deviceSupport();
        bridge_ = std::make_shared<Bridge>(this);
        engine_->subscribe(bridge_);
        if (db) {
            SessionInfo info;
            info.name = profile_.toStdString();
            info.device = engine_->deviceInfo().name;
            info.profile = profile_.toStdString();
            info.intervalS = 0.1;
            sessionId_ = db->createSession(info, params_);
            QPointer<EngineController> self = this;
            recorder_ = std::make_shared<Recorder>(
                db->file(), sessionId_, 500'000'000, [self](const std::string &m) {
                    const QString msg = QString::fromStdString(m);
                    QMetaObject::invokeMethod(
                        self,
                        [self, msg] {
                            if (self) emit self->errorOccurred(msg);
                        },
                        Qt::QueuedConnection);
                });
            engine_->subscribe(recorder_);
        }
        engine_->start();
    } catch (const std::exception &e) {
        engine_.reset();
        if (recorder_) recorder_->finish("failed");
        recorder_.reset();
        QString why = QString::fromStdString(e.what());
        if (db && sessionId_) {
            // Nothing ran: keep nothing, not even an empty session.
            try {
                db->deleteSession(sessionId_);
            } catch (const std::exception &again) {
                why += QStringLiteral(" (and the empty session %1 could not be removed: %2)")
                           .arg(sessionId_)
                           .arg(QString::fromStdString(again.what()));
            }
        }
        sessionId_ = 0;
        if (error) *error = why;
        return false;
    }
    emit runStarted();
    return true;
}

void EngineController::stop()
{
    if (!engine_) return;
    engine_->stop();
    params_ = engine_->params();
    if (recorder_) recorder_->finish("completed");
    recorder_.reset();
    engine_.reset();
    deliver(); // the last samples and the stop event
    bridge_.reset();
    emit runStopped(sessionId_);
}

QString EngineController::deviceName() const
{
    return engine_ ? deviceName_ : QString::fromStdString(device_.spec);
}

void EngineController::mark(const QString &label)
{
    if (engine_) engine_->mark(label.toStdString());
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

} // namespace ringlab::ui
