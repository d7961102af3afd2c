// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_service.h"

#include <exception>

#include "engine/common/environment_capture.h"

namespace ringlab {

Status parseAssignments(const std::vector<std::string> &words, Assignments &out)
{
    out.clear();
    for (const auto &w : words) {
        const auto eq = w.find('=');
        if (eq == std::string::npos || eq == 0)
            return Status{"--set \"" + w + "\": expected NAME=VALUE, e.g. --set poll.mode=busy"};
        out.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
    return {};
}

RunService::RunService(const DeviceProvider &devices, ErrorFn onRecordError)
    : devices_(devices), onRecordError_(std::move(onRecordError))
{
}

RunService::~RunService()
{
    // Gone with an exception on its way: the session did not end as it should have.
    if (running()) stop(std::uncaught_exceptions() > uncaughtAtStart_ ? "failed" : "completed");
}

void RunService::discardSession(SessionStore &store, std::string &why)
{
    // Nothing ran: keep nothing, not even an empty session.
    try {
        store.deleteSession(session_);
    } catch (const std::exception &e) {
        why += " (and the empty session " + std::to_string(session_) +
               " could not be removed: " + e.what() + ")";
    }
    session_ = 0;
}

Status RunService::start(const RunSetup &setup, SessionStore *store,
                         const std::vector<std::shared_ptr<Subscriber>> &subscribers,
                         const std::function<void()> &ready)
{
    if (running()) return Status::refused("a run is already going: stop it first");
    session_ = 0;
    ended_ = {};
    endStatus_.clear();
    store_ = store;
    if (store && store->readOnly())
        return Status::refused(
            "cannot record: database " + store->file().string() +
            " is read-only here; its sessions can be viewed, but recording needs write "
            "access (turn recording off, or record to another database)");
    if (auto st = devices_.check(setup.device); !st.ok()) return Status::refused(st.error);

    // The device and its check first: a device that cannot be had records nothing.
    if (auto st = Engine::create(setup.params, devices_.factory(setup.device),
                                 EngineOptions{setup.intervalNs}, engine_);
        !st.ok())
        return Status::failed("device " + setup.device.spec + ": " + st.error);
    if (auto st = engine_->checkDevice(); !st.ok()) {
        engine_.reset();
        return Status::refused(st.error);
    }
    deviceInfo_ = engine_->deviceInfo();
    deviceSupport_ = engine_->deviceSupport();

    if (store) {
        SessionInfo info;
        info.name = setup.sessionName.empty() ? setup.profile : setup.sessionName;
        info.device = deviceInfo_.name;
        info.profile = setup.profile;
        info.intervalS = static_cast<double>(setup.intervalNs) / 1e9;
        info.runGroup = setup.runGroup;
        info.repeatIndex = setup.repeatIndex;
        try {
            session_ = store->createSession(info, setup.params);
            // The machine as the run begins; the threads' placement follows at the stop.
            store->setEnvironment(session_, captureMachine());
            if (!setup.atStart.empty()) store->append(session_, {}, setup.atStart);
            recorder_ = std::make_shared<Recorder>(store->file(), session_, kRecorderFlushNs,
                                                   onRecordError_);
        } catch (const std::exception &e) {
            std::string why = std::string("cannot record: ") + e.what();
            if (session_) discardSession(*store, why);
            engine_.reset();
            return Status::failed(why);
        }
    }
    for (const auto &s : subscribers)
        engine_->subscribe(s);
    if (recorder_) engine_->subscribe(recorder_);
    Status started;
    try {
        if (ready) ready();
        started = engine_->start();
    } catch (const std::exception &e) { // from `ready`, the caller's
        started = Status::failure(e.what());
    }
    if (!started.ok()) {
        std::string why = "cannot start on " + deviceInfo_.name + ": " + started.error;
        engine_.reset();
        if (recorder_) recorder_->finish("failed");
        recorder_.reset();
        if (store && session_) discardSession(*store, why);
        return Status::failed(why);
    }
    // The real ports as they attached and were configured for this run.
    recordFacts(engine_->portFacts(), "the ports' facts were not recorded");
    // The start event has reached every subscriber before the caller's own lines (the API's
    // state line) follow it.
    engine_->flush();
    return {};
}

Status RunService::apply(const Assignments &a, const std::string &source)
{
    if (!running()) return Status{"no run is going: start one first"};
    Status st = engine_->apply(a, source);
    // A restart whose new and previous settings both failed to build ended the engine's
    // run: its session ends failed, with what it recorded.
    if (!st.ok() && !engine_->running()) stop("failed");
    return st;
}

void RunService::mark(const std::string &label)
{
    if (running()) engine_->mark(label);
}

void RunService::recordFacts(const Environment &facts, const char *failure)
{
    if (!store_ || !session_) return;
    try {
        store_->setEnvironment(session_, facts);
    } catch (const std::exception &e) {
        if (onRecordError_) onRecordError_(std::string(failure) + ": " + e.what());
    }
}

RunOutcome RunService::stop(const std::string &status)
{
    if (!running()) return ended_;
    RunOutcome out;
    out.session = session_;
    engine_->halt();
    // The engine's threads as they were placed, read as the run stopped (or as the caller
    // halted it earlier).
    recordFacts(engine_->threadPlacement(), "the threads' placement was not recorded");
    // The recorder is handed everything first; the other subscribers (a stdout whose reader
    // has stopped reading) are waited for only once the session is finished.
    if (recorder_) engine_->unsubscribe(recorder_);
    auto others = engine_->detachSubscribers();
    engine_.reset(); // the device goes before the session is finished
    if (recorder_) {
        recorder_->finish(status);
        out.samplesWritten = recorder_->samplesWritten();
        out.samplesLost = recorder_->samplesLost();
        out.recordError = recorder_->lastError();
        recorder_.reset();
    }
    ended_ = out;
    endStatus_ = status;
    for (auto &q : others)
        q->close();
    return out;
}

} // namespace ringlab
