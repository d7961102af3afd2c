// SPDX-License-Identifier: GPL-2.0-or-later
// The run service: the one place a run is set up and taken down, whichever program asks.
// From a profile and overrides to validated values; the device through the program's
// DeviceProvider; the engine; the session and its recorder; live changes, marks; stop and the
// session's final status. The command line, the sweeps and the desktop app all use it, and nothing
// else creates an engine for a run.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/datapath/engine.h"
#include "engine/profile/resolve_profile.h"
#include "engine/profile/run_defaults.h"
#include "engine/run/device_provider.h"
#include "engine/store/recorder.h"
#include "engine/store/session_store.h"

namespace ringlab {

// "NAME=VALUE" words (--set) as assignments; the error quotes the word that is not one.
[[nodiscard]] Status parseAssignments(const std::vector<std::string> &words, Assignments &out);

// Everything a run is started from.
struct RunSetup {
    ParamSet params;            // validated values (resolveProfile, or a panel's)
    std::string profile;        // the profile's name, recorded with the session
    DeviceOptions device;       // a device spec and its options
    std::string sessionName;    // empty: the profile's name
    std::string runGroup;       // repeats of one run share it
    int repeatIndex = 0;        // 1.. within the group; 0: not a repeat
    std::vector<Event> atStart; // recorded with the session before the run starts
    std::int64_t intervalNs = kSampleIntervalNs;
};

// What a stopped run left behind.
struct RunOutcome {
    std::int64_t session = 0; // 0: not recorded
    std::uint64_t samplesWritten = 0;
    std::uint64_t samplesLost = 0; // could not be written (a full disk, a lost file)
    std::string recordError;       // why, when samplesLost > 0
};

class RunService {
  public:
    using ErrorFn = std::function<void(const std::string &)>;
    // `devices` checks and makes a setup's device (the program's: the registry's, or a
    // test's); it outlives the service. onRecordError hears of write failures while
    // recording, from the recorder's thread.
    explicit RunService(const DeviceProvider &devices, ErrorFn onRecordError = {});
    // A run still going is stopped: its session completed, or failed when an exception is
    // unwinding the caller.
    ~RunService();
    RunService(const RunService &) = delete;
    RunService &operator=(const RunService &) = delete;

    // Creates the device (its check first: a device that cannot be had, or refuses the values,
    // records nothing), then the session in `store` (null: not recorded) and its recorder,
    // subscribes `subscribers`, calls `ready` (what must come before the first event: a
    // header), and starts. On failure nothing is left: no engine, no session.
    // Refused: the setup is the user's to change (a device spec, values the device does not
    // take); failed: the device or the database failed.
    Status start(const RunSetup &setup, SessionStore *store,
                 const std::vector<std::shared_ptr<Subscriber>> &subscribers = {},
                 const std::function<void()> &ready = {});
    bool running() const { return engine_ != nullptr; }

    // Validated together through the registry; a refusal leaves every value as it was and
    // says why. Only while running.
    [[nodiscard]] Status apply(const Assignments &a, const std::string &source);
    void mark(const std::string &label);

    // Stops the run; its session ends `status` (completed, interrupted, failed). The device
    // goes (ports detached, a lab removed) before the session is finished. A run that has
    // already ended (a failed restart in apply ended it `failed`) is not stopped again: its
    // outcome is returned as it was.
    RunOutcome stop(const std::string &status = "completed");
    // How the last run ended: the status its session was given ("" while running, or before
    // the first run).
    const std::string &endStatus() const { return endStatus_; }

    // While running:
    Engine &engine() { return *engine_; }
    const Engine &engine() const { return *engine_; }
    ParamSet params() const { return engine_->params(); }
    DeviceInfo deviceInfo() const { return deviceInfo_; } // also after stop
    std::vector<TunableSupport> deviceSupport() const { return deviceSupport_; }
    std::int64_t sessionId() const { return session_; }

  private:
    void discardSession(SessionStore &store, std::string &why);
    // Adds facts to the session's environment; a failure is a record error ("FAILURE: why"),
    // not the run's.
    void recordFacts(const Environment &facts, const char *failure);

    const DeviceProvider &devices_;
    ErrorFn onRecordError_;
    std::unique_ptr<Engine> engine_;
    std::shared_ptr<Recorder> recorder_;
    DeviceInfo deviceInfo_;
    std::vector<TunableSupport> deviceSupport_;
    std::int64_t session_ = 0;
    RunOutcome ended_;      // the last run's, once stopped
    std::string endStatus_; // the last run's final status, once stopped
    SessionStore *store_ = nullptr; // the session's, while running
    int uncaughtAtStart_ = std::uncaught_exceptions();
};

} // namespace ringlab
