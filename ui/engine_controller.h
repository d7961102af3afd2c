// SPDX-License-Identifier: GPL-2.0-or-later
// The GUI's handle on the engine: starts and stops runs (recording them as sessions),
// applies parameter changes, and turns the engine's samples and events into Qt signals,
// delivered on the GUI thread in batches of at most ~20 per second. The engine is reached
// through its API (docs/api.md) whether it runs in this process (LocalLink) or is served by
// `ringlab-engine serve` (RemoteLink): one path for both. The engine never waits for the
// window: its stream's lines queue in a bounded watcher.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "engine/run/run_service.h"
#include "ui/measurement_hold.h"
#include "ui/remote_link.h"
#include "ui/status_text.h"

namespace ringlab::ui {

class SessionMirror;

using SamplePtr = std::shared_ptr<const Sample>;

class EngineController : public QObject {
    Q_OBJECT
  public:
    explicit EngineController(QObject *parent = nullptr);
    ~EngineController() override;

    // Parameters used by the next start (and changed live while running).
    ParamSet params() const;
    // Validates through the registry. Running: applied to the engine (restart tunables
    // rebuild the datapath); stopped: kept for the next start.
    Status apply(const Assignments &a, const QString &source);

    // The profile the next start names; `path`: its file, which the engine in this process
    // reads (a served engine is given the name only, and every value).
    void setProfileName(const QString &name, const QString &path = {})
    {
        profile_ = name;
        profilePath_ = path;
    }
    QString profileName() const { return profile_; }
    QString profilePath() const { return profilePath_; }
    void setRecording(bool on) { recording_ = on; }
    bool recording() const { return recording_; }
    void setDatabasePath(const QString &path) { dbPath_ = path; }
    QString databasePath() const { return dbPath_; }
    // The store the sessions are recorded in (opened on demand, read-only when it cannot be
    // written); failed, with SQLite's reason, when it cannot be opened.
    Result<SessionStore *> store();
    // The store the window's Sessions are read from: store(), or when attached the copies of
    // the engine's sessions (SessionMirror), numbered as the engine numbers them.
    Result<SessionStore *> sessionStore();
    // The attached engine's sessions; refused when not attached.
    Result<SessionMirror *> mirror();
    // Makes sure the sessions can be read from sessionStore(): always so for this process's;
    // an engine's are copied the first time.
    Status fetchSessions(const QList<qint64> &ids);

    Status start();
    void stop();
    bool isRunning() const;
    std::int64_t sessionId() const { return sessionId_; }
    // When the engine started the run going (or the last one); invalid when not known.
    QDateTime runStartedAt() const
    {
        return QDateTime::fromString(QString::fromStdString(runStartedAt_), Qt::ISODate);
    }
    void mark(const QString &label);
    // The device the next start uses (a registry spec: sim, lab, dpdk:...).
    void setDevice(const DeviceOptions &dev) { device_ = dev; }
    const DeviceOptions &device() const { return device_; }
    // The running device's name, or the spec when stopped.
    QString deviceName() const;
    // What the device of the current (or last) run does with each tunable.
    const std::vector<TunableSupport> &deviceSupport() const { return deviceSupport_; }

    // Everything the current (or last) run reported, for views that open late.
    const std::vector<SamplePtr> &samples() const { return samples_; }
    const std::vector<Event> &events() const { return events_; }

    // Attached to an engine that `ringlab-engine serve` offers (docs/api.md) instead of the
    // one in this process: runs start, change and stop there, and its stream feeds the same
    // signals. A run going there when attaching is watched until control is taken.
    Status attach(const QUrl &url, const QByteArray &token);
    void detach(); // back to the engine in this process (a run there goes on)
    // The attached engine's devices (GET /v1/devices, listed there with that host's ports and
    // privileges); `done` gets them, or why not, from the event loop. Attached only: this
    // process's devices are the registry's.
    void engineDevices(std::function<void(Result<std::vector<DeviceListing>>)> done);
    bool remote() const { return remote_; }
    bool connected() const { return remote_ && linkUp_; }
    // Attached and the engine not reached: tries again now. When its stream is back, its first
    // line is the engine's state, read back as after any break (the run, its session, values).
    void reconnect();
    // "this process", or "ringlab-engine 0.1.0 on HOST (URL)".
    QString engineText() const;
    // Whether this window may drive: always locally; remotely when no run is going (it may
    // start one) or with the running run's control key.
    bool controlling() const { return !remote_ || !running_ || !link_->control().isEmpty(); }
    Status takeControl();
    // A job of the engine's (a sweep, tune or reproduction: /v1/jobs) holding the
    // measurement, from the stream's job lines: whoever started it, Start waits for it.
    const MeasurementHold &jobHold() const { return jobHold_; }
    // Starts a job (POST /v1/jobs, docs/api.md "Jobs": a sweep, tune or reproduction) on the
    // engine: the one in this process, recording to the window's database, or the attached
    // one. Its runs and sessions are that engine's. The job as the engine answered (its id,
    // state and progress; jobUpdated follows it), or why it was refused.
    Result<nlohmann::json> submitJob(const nlohmann::json &spec);
    // Asks the engine to cancel job `id`: its end comes as jobUpdated, or the refusal as
    // errorOccurred. A remote engine's reply is waited for in the event loop; this process's
    // engine answers once the run going has stopped (within a poll slice and its session's
    // end, 200 ms at most in tst_jobs).
    void cancelJob(int id);
    // Asks the engine for job `id` now (after a broken stream): the answer comes as jobUpdated,
    // or as jobLost when the engine no longer knows the job.
    void refreshJob(int id);

  signals:
    // jobHold() changed: a job began, moved on a run, or ended.
    void jobChanged();
    // A job's state, progress, sessions or result as the engine reported it (a stream line,
    // or a reply): {"id", "kind", "state", "progress", "sessions", "result", "error", ...}.
    void jobUpdated(const nlohmann::json &job);
    // The window talks to another engine now (attached, detached): jobs it followed are
    // that engine's, no longer reported here.
    void engineChanged();
    // The engine no longer knows job `id` (it was restarted): nothing more will be heard of it.
    void jobLost(int id, const QString &why);
    // fetchSessions() copied an engine's sessions to sessionStore().
    void sessionsCopied();
    void runStarted();
    // An engine's run that another client started, now watched here (runStarted follows).
    void watchStarted();
    void runStopped(qint64 sessionId);
    void samplesArrived(const std::vector<ringlab::ui::SamplePtr> &batch);
    void eventArrived(const ringlab::Event &e);
    void paramsChanged();
    void errorOccurred(const QString &message);
    // After a broken stream, the run this window followed had ended: how its session ended,
    // as the engine recorded it ("session 12 is interrupted").
    void runLost(const QString &message);
    // The remote engine's stream broke (up = false, why) or is back.
    void connectionChanged(bool up, const QString &why);

  private:
    void queue(SamplePtr s);
    void queue(const Event &e);
    void deliver();
    // The engine in this process, for a start: opened on the database the window records to.
    Status useLocalEngine();
    void setLink(std::unique_ptr<EngineLink> link, bool remote);
    RemoteLink *remoteLink() const;
    void onLine(const nlohmann::json &line);
    void handleLine(const nlohmann::json &line);
    void adoptValues(const nlohmann::json &values); // name -> text, from the engine
    void takeJob(const nlohmann::json &job);        // jobHold() and jobUpdated
    void onJobReply(const nlohmann::json &job);     // takeJob, for a reply from the network
    void forgetJob(int id, const QString &why);     // jobLost, the hold released
    void stopped();
    void sayHowItEnded(std::int64_t session);

    ParamSet params_;
    DeviceOptions device_;
    QString deviceName_;
    std::vector<TunableSupport> deviceSupport_;
    QString profile_ = QStringLiteral("default"), profilePath_;
    bool recording_ = true;
    QString dbPath_;
    std::unique_ptr<SessionStore> store_;
    // Each engine's sessions, copied here, by database file; kept open while the window
    // lives (a compare dialog may still read one after a detach).
    std::map<QString, std::unique_ptr<SessionStore>> copies_;
    QPointer<SessionMirror> mirror_; // deleted later: a fetch may be waiting on the engine
    std::int64_t sessionId_ = 0;
    std::vector<SamplePtr> samples_;
    std::vector<Event> events_;
    // What the stream brought since the last delivery (at most every 50 ms, in one batch).
    std::vector<SamplePtr> pendingSamples_;
    std::vector<Event> pendingEvents_;
    QTimer deliverTimer_;
    // The engine: in this process (opened by the first start, on localDb_), or attached.
    std::unique_ptr<EngineLink> link_;
    QString localDb_;
    bool localScratch_ = false; // the database could not be opened: runs are not recorded
    bool remote_ = false;
    bool linkUp_ = false, running_ = false, reopened_ = false;
    bool busy_ = false;        // this window's own start, stop or takeover is in flight
    bool starting_ = false;    // its start: the run's first lines come before the reply
    std::string controlId_;    // names this window's control key (the stream's control lines)
    std::string runStartedAt_; // with the session, what makes a run the same run
    QString engineInfo_;
    MeasurementHold jobHold_;
    int heldByJob_ = 0;       // the job jobHold_ is about
    std::set<int> endedJobs_; // of this engine: a later "running" report of one is stale
};

} // namespace ringlab::ui
