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
    stop();
}

ParamSet EngineController::params() const
{
    return service_->running() ? service_->params() : params_;
}

Status EngineController::apply(const Assignments &a, const QString &source)
{
    Status st;
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

bool EngineController::start(QString *error)
{
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
    if (!service_->running()) return;
    params_ = service_->params();
    service_->stop("completed");
    deliver(); // the last samples and the stop event
    bridge_.reset();
    emit runStopped(sessionId_);
}

bool EngineController::isRunning() const
{
    return service_->running();
}

QString EngineController::deviceName() const
{
    return service_->running() ? deviceName_ : QString::fromStdString(device_.spec);
}

void EngineController::mark(const QString &label)
{
    service_->mark(label.toStdString());
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
