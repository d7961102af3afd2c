// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's API, version 1 (docs/api.md): the run service's commands and what an engine
// offers, as requests and JSON replies with no transport of their own. `ringlab-engine serve`
// carries them over HTTP (app/api_server); a program in the same process calls handle().
//
// One client controls a run at a time: the start hands out a control key, and set, mark and
// stop need it (the X-Ringlab-Control header). Everyone else watches: reads state, sessions
// and the stream. A controller that went away is replaced with POST /v1/run/control.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/metrics/prometheus_exporter.h"
#include "engine/run/measurement_lock.h"
#include "engine/run/run_service.h"
#include "engine/run/stream_hub.h"

namespace ringlab {

inline constexpr int kApiVersion = 1;

struct ApiRequest {
    std::string method; // GET, POST, ...
    std::string path;   // "/v1/run/set"
    std::multimap<std::string, std::string> query;
    std::string body;    // JSON for POST
    std::string control; // the X-Ringlab-Control header
};

struct ApiReply {
    int status = 200;
    nlohmann::json body;     // the reply, when `text` is empty
    std::string text;        // a reply that is not JSON (a CSV export, the metrics)
    std::string contentType; // for `text`
    static ApiReply error(int status, const std::string &message);
};

struct RunApiOptions {
    std::filesystem::path db;     // the session database (empty: the default path)
    bool record = true;           // false: runs are not recorded
    std::string endpoint;         // how this engine is reached, for /v1/version
    std::vector<std::string> eal; // EAL arguments for DPDK devices (the server's, never a client's)
    // The client is this process (the desktop's own engine): what a socket's clients may not
    // give is taken too: a profile's path, and the device's "eal" and "traffic" options.
    bool inProcess = false;
    // What a client may start beyond what needs no privilege (DeviceProvider::grant's names: "lab",
    // "dpdk"); a device that needs a grant not given is refused with 403 naming it. Unused
    // in-process: the desktop's own engine has only its user's rights.
    std::vector<std::string> grants;
};

// The engine's jobs (sweeps, tunes, reproductions: engine/experiments/job_queue.h), seen from
// the API: /v1/jobs and /v1/jobs/... go to handle(); /metrics carries metricsText().
class JobRoutes {
  public:
    virtual ~JobRoutes() = default;
    virtual ApiReply handle(const ApiRequest &r) = 0;
    virtual std::string metricsText() const = 0;
    // The engine is shutting down: the job going is cancelled and waited for.
    virtual void shutdown() = 0;
};

// A device's spec as a client may give it (a run's or a job's "device"): a spec's
// characters, and of a port's options only iface and mac (others are the server's --eal).
Status clientDeviceSpec(const std::string &spec);

class RunApi {
  public:
    // Opens the database (sessions left running by a process that is gone become
    // interrupted); throws DbError when it cannot be opened.
    // `devices`: the program's (the registry's, drivers/registry_devices.h); it outlives the
    // API.
    RunApi(RunApiOptions options, const DeviceProvider &devices);
    ~RunApi(); // a run still going is stopped; its session completed
    RunApi(const RunApi &) = delete;
    RunApi &operator=(const RunApi &) = delete;

    // Any request but the stream; never throws.
    ApiReply handle(const ApiRequest &r);

    // A new watcher of the live stream (samples, events, the run's state changes), its first
    // line the state; null when kMaxWatchers are watching.
    std::shared_ptr<Watcher> watch();
    // The Prometheus exposition: the engine's build and whether a run is active, then the
    // current (or last) run's series.
    std::string metricsText() const;

    // Engine::lastPollPassNs() of the run going (0 without one), for bench/control_latency.
    std::int64_t lastPollPassNs() const;
    // Stops a run still going (the engine is shutting down); the stream's watchers are ended.
    void shutdown(const std::string &status = "completed");
    // How this engine is reached, once its server is bound (for /v1/version).
    void setEndpoint(const std::string &endpoint);
    std::filesystem::path database() const { return store_->file(); }
    bool recording() const { return options_.record; }

    // One holder of the measurement: a run started here, or a job. Shared with the jobs.
    std::shared_ptr<MeasurementLock> measurementLock() const { return lock_; }
    // Where /v1/jobs goes (before serving; without it /v1/jobs is 404).
    void attachJobs(std::shared_ptr<JobRoutes> jobs) { jobs_ = std::move(jobs); }
    // A line for every watcher of the stream (a job's {"type":"job",...} lines).
    void publish(const std::string &line);
    int interruptedOnOpen() const { return store_->interruptedOnOpen(); }

    // 403 when `spec` needs a grant (DeviceProvider::grant) this server was not given; `what`
    // begins the message ("start", "jobs"). Null in-process, or when it needs none.
    std::optional<ApiReply> refuseWithoutGrant(const std::string &spec,
                                               const std::string &what = "start") const;

  private:
    ApiReply route(const ApiRequest &r);
    ApiReply version() const;
    ApiReply devices();
    bool running() const;
    ApiReply tunables(const ApiRequest &r);
    ApiReply runState();
    ApiReply start(const nlohmann::json &body);
    ApiReply set(const ApiRequest &r, const nlohmann::json &body);
    ApiReply mark(const ApiRequest &r, const nlohmann::json &body);
    ApiReply stop(const ApiRequest &r, const nlohmann::json &body);
    ApiReply takeControl(const nlohmann::json &body);
    ApiReply jobs(const ApiRequest &r);
    // Sessions (engine/run/run_api_sessions.cpp).
    ApiReply sessions();
    ApiReply sessionPath(const ApiRequest &r); // /v1/sessions/ID[/export]
    ApiReply session(std::int64_t id);
    ApiReply exportSession(std::int64_t id, const ApiRequest &r);
    ApiReply compare(const ApiRequest &r);
    // A refusal when `r` does not hold the control key of the running run; null when it does.
    std::optional<ApiReply> refuseWithoutControl(const ApiRequest &r, const char *what) const;
    nlohmann::json stateLocked() const;
    // The run `setup` just started: the client takes control, watchers are told, and the
    // reply gives the control key (under mutex_).
    ApiReply startedLocked(const RunSetup &setup, const std::string &client,
                           const std::shared_ptr<PrometheusExporter> &exporter);
    std::unique_ptr<SessionStore> reader() const;

    // Gives the measurement back once the run has ended (under mutex_).
    void releaseHold();

    RunApiOptions options_;
    const DeviceProvider &provider_;
    std::unique_ptr<SessionStore> store_;
    std::shared_ptr<MeasurementLock> lock_ = std::make_shared<MeasurementLock>();
    std::uint64_t holdToken_ = 0; // the run's hold on lock_ (under mutex_)
    std::shared_ptr<JobRoutes> jobs_;
    std::shared_ptr<StreamHub> hub_ = std::make_shared<StreamHub>();
    mutable std::mutex mutex_; // the run's state below
    RunService service_;
    // The last run's exporter, under a lock of its own: a scrape never waits for a run's
    // start or stop (a large buffer pool, a DPDK port or the lab take seconds to set up).
    mutable std::mutex exporterMutex_;
    std::shared_ptr<PrometheusExporter> exporter_;
    std::atomic<bool> runActive_{false}; // for /metrics, which takes no lock a start holds
    std::string profile_, controller_, controlKey_, startedAt_;
    std::string controlSince_; // when controller_ took control: the start, or the last takeover
    std::string controlId_;    // names the key in force without giving it away (stream lines)
    std::int64_t lastSession_ = 0;
    bool shutDown_ = false;
    std::mutex devicesMutex_; // taken before mutex_
    nlohmann::json devices_;  // listed once
};

} // namespace ringlab
