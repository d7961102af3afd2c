// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's jobs: sweeps, tunes and reproductions run by the engine, one at a time, each
// on a thread of the queue. A job holds the measurement (engine/run/measurement_lock.h) from
// its start to its end, so a run cannot start beside it, and it cannot start beside a run or
// another job: submit() is refused with what holds the measurement and since when.
//
// A job reports as typed lines for the API's stream ({"type":"job",...}: its state, progress
// as counts and the time left, its sessions, its result); a cancel stops the run going within
// a poll slice and keeps the runs already made (their sessions end interrupted or completed).
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "engine/common/status.h"
#include "engine/experiments/job_params.h"
#include "engine/run/measurement_lock.h"
#include "engine/run/run_api.h"
#include "engine/store/job_store.h"

namespace ringlab {

struct JobInfo {
    int id = 0;
    std::string kind;
    std::string state; // running, completed, failed, cancelled, interrupted
    nlohmann::json params;
    std::string startedAt, endedAt;
    JobProgress progress;
    std::vector<std::int64_t> sessions;
    nlohmann::json result; // per kind (docs/api.md); null until there is one (a sweep's after
                           // its first run, a reproduction's after its first case)
    std::string error;     // why it failed or ended early
    bool ended() const { return state != "running"; }
};

// A job as the API shows it, and as its stream line ({"type":"job", ...}).
nlohmann::json jobJson(const JobInfo &j);

// Ended jobs the queue keeps in memory besides the database's history (JobStore, where
// GET /v1/jobs and /v1/jobs/ID find the older ones): bounds the memory a client submitting
// and cancelling in a loop can make the engine hold.
inline constexpr std::size_t kKeptEndedJobs = 100;
// GET /v1/jobs: jobs per page unless `limit` says, and at most.
inline constexpr std::size_t kJobsPage = 100, kJobsPageMax = 1000;

struct JobQueueOptions {
    std::shared_ptr<MeasurementLock> lock;
    std::filesystem::path db; // where the jobs' runs are recorded (the engine's database)
    bool record = true;       // false: the engine records nothing, so it runs no jobs
    std::function<void(const std::string &line)> publish; // each job line (the stream)
    // A served engine's grants (RunApi::refuseWithoutGrant): a job's runs open its device as
    // a run would, so a device that needs a grant is refused the same way. Unset: in-process.
    std::function<std::optional<ApiReply>(const std::string &spec, const std::string &what)>
        refuseDevice;
    std::size_t keptEndedJobs = kKeptEndedJobs; // how many ended jobs it keeps in memory
    JobHistoryBounds history;                   // how many, and how old, the database keeps
};

class JobQueue : public JobRoutes {
  public:
    // `devices`: the engine's (drivers/registry_devices.h), which make every job's runs; it
    // outlives the queue.
    JobQueue(JobQueueOptions o, const DeviceProvider &devices);
    ~JobQueue() override; // a job going is cancelled and waited for
    JobQueue(const JobQueue &) = delete;
    JobQueue &operator=(const JobQueue &) = delete;

    // Starts the job now and gives its id; refused when the measurement is held (by a run or
    // a job, named with since when) or the engine runs no jobs.
    Result<int> submit(const JobSpec &spec);
    // Asks the job to stop and waits (at most `waitMs`) for it to end; refused, saying why,
    // when it is not running.
    Status cancel(int id, int waitMs = 5000);
    std::optional<JobInfo> job(int id) const; // in memory (the one going, the recent ones)
    std::vector<JobInfo> jobs() const;
    // As the API shows it: in memory, else from the database's history (an earlier engine's
    // included).
    std::optional<nlohmann::json> jobView(int id) const;
    // Newest first, at most `limit` with an id below `before` (0: from the newest).
    JobPage jobPage(int before, std::size_t limit) const;
    // Jobs an engine that died left "running" in the database, marked interrupted when this
    // queue opened it.
    int diedOnOpen() const { return diedOnOpen_; }
    // Until job `id` has ended (true), or `timeoutMs` has passed.
    bool wait(int id, int timeoutMs) const;

    // JobRoutes: /v1/jobs (engine/experiments/jobs_api.cpp), the gauges, the engine's end.
    ApiReply handle(const ApiRequest &r) override;
    std::string metricsText() const override;
    void shutdown() override;

  private:
    struct Job {
        JobInfo info;
        JobSpec spec;
        std::atomic<bool> cancel{false};
        std::uint64_t hold = 0;
    };
    void run(const std::shared_ptr<Job> &job);
    void runSweepJob(Job &job);
    void runTuneJob(Job &job);
    void runReproduceJob(Job &job);
    void runNapiJob(Job &job, const ReproduceOptions &o);
    void progress(Job &job, const JobProgress &p);
    void sessionStarted(Job &job, std::int64_t session);
    void publish(const JobInfo &info);
    void save(const JobInfo &info); // into the database's history; errors are the job's
    // Keeps the history bounded: the oldest ended jobs beyond keptEndedJobs go (mutex_).
    void forgetOldJobs();

    JobQueueOptions options_;
    const DeviceProvider &devices_;
    mutable std::mutex mutex_; // the jobs below
    mutable std::condition_variable ended_;
    std::map<int, std::shared_ptr<Job>> jobs_;
    int nextId_ = 1;                  // without a database (--no-record)
    std::unique_ptr<JobStore> store_; // the history; none without a database
    std::string storeError_;          // why it could not be opened
    int diedOnOpen_ = 0;
    bool shutDown_ = false;
    std::mutex threadMutex_; // thread_, taken by a submit that holds the measurement, or the end
    std::thread thread_;     // the job going, or the last one
};

} // namespace ringlab
