// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/job_queue.h"

#include "engine/experiments/napi_reproduction.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "engine/common/host_info.h"
#include "engine/store/session_store.h"
#include "engine/store/sweep_store.h"

namespace ringlab {

using nlohmann::json;

namespace {

// A job's state once it has ended (docs/api.md): a job refused late, when its first run
// finds what submission could not check, has failed like one whose run failed.
const char *jobState(Outcome end)
{
    switch (end) {
    case Outcome::Done:
        return "completed";
    case Outcome::Interrupted:
        return "interrupted";
    case Outcome::Refused:
    case Outcome::Failed:
        break;
    }
    return "failed";
}

json estimateJson(const Estimate &e)
{
    return {{"n", e.n}, {"mean", e.mean}, {"ci_half", e.ciHalf}, {"batches", e.batches}};
}

json valuesJson(const Assignments &a)
{
    json j = json::object();
    for (const auto &[k, v] : a)
        j[k] = v;
    return j;
}

} // namespace

json jobJson(const JobInfo &j)
{
    return {{"id", j.id},
            {"kind", j.kind},
            {"state", j.state},
            {"params", j.params},
            {"started_at", j.startedAt},
            {"ended_at", j.endedAt},
            {"progress",
             {{"run", j.progress.run},
              {"runs", j.progress.runs},
              {"done", j.progress.done},
              {"seconds_left", j.progress.secondsLeft},
              {"step", j.progress.step}}},
            {"sessions", j.sessions},
            {"result", j.result},
            {"error", j.error}};
}

JobQueue::JobQueue(JobQueueOptions o, const DeviceProvider &devices)
    : options_(std::move(o)), devices_(devices)
{
    if (!options_.lock) options_.lock = std::make_shared<MeasurementLock>();
    if (!options_.record) return;
    try {
        store_ = std::make_unique<JobStore>(SessionStore::pathOr(options_.db.string()),
                                            options_.history);
    } catch (const DbError &e) {
        store_.reset();
        storeError_ = e.what();
        return;
    }
    try {
        diedOnOpen_ = store_->markDied();
    } catch (const DbError &) {
        // Busy with another writer: the next list marks them.
    }
}

void JobQueue::save(const JobInfo &info)
{
    if (!store_) return;
    try {
        store_->save(jobJson(info));
    } catch (const DbError &) {
        // The history is the job's record for later; the job itself (its runs, their
        // sessions) goes on, and GET /v1/jobs/ID still shows it from memory.
    }
}

std::optional<json> JobQueue::jobView(int id) const
{
    if (auto j = job(id)) return jobJson(*j);
    if (!store_) return std::nullopt;
    try {
        return store_->get(id);
    } catch (const DbError &) {
        return std::nullopt;
    }
}

JobPage JobQueue::jobPage(int before, std::size_t limit) const
{
    JobPage out;
    bool fromStore = false;
    if (store_) {
        try {
            store_->markDied(); // another engine on this database may have died since
        } catch (const DbError &) {
            // Best effort: a database busy with another writer is asked again next time.
        }
        try {
            out = store_->page(before, limit);
            fromStore = true;
        } catch (const DbError &) {
            out = {}; // the jobs in memory instead
        }
    }
    // The ones in memory as they are now (the one going: its progress), and all of them
    // when there is no database to read.
    std::lock_guard lock(mutex_);
    for (auto &j : out.jobs) {
        const auto id = j["id"].get<std::int64_t>(); // the row's, set by the store
        if (const auto it = jobs_.find(static_cast<int>(id)); it != jobs_.end())
            j = jobJson(it->second->info);
    }
    if (!fromStore) {
        for (auto it = jobs_.rbegin(); it != jobs_.rend() && out.jobs.size() < limit; ++it)
            if (before <= 0 || it->first < before) {
                out.jobs.push_back(jobJson(it->second->info));
                out.lastId = it->first;
            }
        if (out.jobs.size() < limit) out.lastId = 0;
    }
    return out;
}

JobQueue::~JobQueue()
{
    shutdown();
}

void JobQueue::shutdown()
{
    {
        std::lock_guard lock(mutex_);
        shutDown_ = true;
        for (auto &[id, job] : jobs_)
            job->cancel = true;
    }
    std::lock_guard lock(threadMutex_);
    if (thread_.joinable()) thread_.join();
}

void JobQueue::forgetOldJobs()
{
    // The oldest ended jobs go first (ids grow with time); the one going is always kept.
    std::size_t ended = 0;
    for (const auto &[id, job] : jobs_)
        ended += job->info.ended();
    for (auto it = jobs_.begin(); it != jobs_.end() && ended > options_.keptEndedJobs;) {
        if (it->second->info.ended()) {
            it = jobs_.erase(it);
            --ended;
        } else {
            ++it;
        }
    }
}

Result<int> JobQueue::submit(const JobSpec &spec)
{
    if (!options_.record)
        return Status::refused("this engine records nothing (serve --no-record), and a job's "
                               "runs are recorded: it runs no jobs");
    auto job = std::make_shared<Job>();
    job->spec = spec;
    job->info.kind = spec.kind;
    job->info.params = std::move(job->spec.params); // kept once, as the job shows it
    job->info.state = "running";
    if (options_.record && !store_)
        return Status::refused("the jobs' history cannot be kept: " + storeError_);
    {
        // The measurement is taken under the queue's lock, then named after the job's id
        // (the lock's own mutex is only ever taken after this one).
        std::lock_guard lock(mutex_);
        if (shutDown_) return Status::refused("the engine is shutting down");
        std::string refusal;
        job->hold = options_.lock->acquire("job", "a job (" + spec.kind + ")", refusal);
        if (!job->hold) return Status::refused(refusal);
        job->info.startedAt = isoTimeNow();
        if (store_) {
            // The database gives the id: never one an earlier engine gave.
            try {
                json row = jobJson(job->info);
                job->info.id = static_cast<int>(store_->add(row));
            } catch (const DbError &e) {
                options_.lock->release(job->hold);
                return Status::refused(std::string("the job could not be recorded: ") + e.what());
            }
        } else {
            job->info.id = nextId_++;
        }
        options_.lock->rename(job->hold,
                              "job " + std::to_string(job->info.id) + " (" + spec.kind + ")");
        jobs_[job->info.id] = job;
        forgetOldJobs();
    }
    publish(job->info);
    // The last job has ended (it gave the measurement back): its thread is done but for
    // its return.
    std::lock_guard lock(threadMutex_);
    if (thread_.joinable()) thread_.join();
    thread_ = std::thread([this, job] { run(job); });
    return job->info.id;
}

Status JobQueue::cancel(int id, int waitMs)
{
    std::unique_lock lock(mutex_);
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) return Status::refused("no job " + std::to_string(id));
    auto job = it->second;
    if (job->info.ended())
        return Status::refused("job " + std::to_string(id) + " has ended (" + job->info.state +
                               ")");
    job->cancel = true;
    ended_.wait_for(lock, std::chrono::milliseconds(waitMs), [&] { return job->info.ended(); });
    return Status::success();
}

std::optional<JobInfo> JobQueue::job(int id) const
{
    std::lock_guard lock(mutex_);
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) return std::nullopt;
    return it->second->info;
}

std::vector<JobInfo> JobQueue::jobs() const
{
    std::lock_guard lock(mutex_);
    std::vector<JobInfo> out;
    for (const auto &[id, job] : jobs_)
        out.push_back(job->info);
    return out;
}

bool JobQueue::wait(int id, int timeoutMs) const
{
    std::unique_lock lock(mutex_);
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) return false;
    const auto job = it->second;
    return ended_.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                           [&] { return job->info.ended(); });
}

void JobQueue::publish(const JobInfo &info)
{
    if (!options_.publish) return;
    json j = jobJson(info);
    j["type"] = "job";
    options_.publish(j.dump(-1, ' ', false, json::error_handler_t::replace));
}

void JobQueue::progress(Job &job, const JobProgress &p)
{
    JobInfo copy;
    {
        std::lock_guard lock(mutex_);
        job.info.progress = p;
        copy = job.info;
    }
    publish(copy);
}

void JobQueue::sessionStarted(Job &job, std::int64_t session)
{
    JobInfo copy;
    {
        std::lock_guard lock(mutex_);
        job.info.sessions.push_back(session);
        copy = job.info;
    }
    save(copy); // a job that dies with its engine still names its sessions
    publish(copy);
}

void JobQueue::run(const std::shared_ptr<Job> &job)
{
    try {
        if (job->spec.kind == "sweep")
            runSweepJob(*job);
        else if (job->spec.kind == "tune")
            runTuneJob(*job);
        else
            runReproduceJob(*job);
    } catch (const std::exception &e) { // the database failed under the job
        std::lock_guard lock(mutex_);
        job->info.state = "failed";
        job->info.error = std::string("the engine failed: ") + e.what();
    }
    JobInfo copy;
    {
        std::lock_guard lock(mutex_);
        if (job->info.state == "running") job->info.state = "failed";
        // Cancelled by a client; interrupted when the engine is shutting down.
        if (job->info.state == "interrupted" && job->cancel && !shutDown_)
            job->info.state = "cancelled";
        job->info.endedAt = isoTimeNow();
        if (job->info.result.is_null()) job->info.result = json::object();
        // The last progress line was sent as the last run began: an ended job has no time
        // left, and a completed one has measured all it planned.
        JobProgress &p = job->info.progress;
        p.secondsLeft = 0;
        p.step.clear();
        if (job->info.state == "completed") p.done = p.run = std::max(p.runs, p.done);
        copy = job->info;
        forgetOldJobs();
    }
    save(copy);
    // The measurement is given back before anyone hears that the job ended.
    options_.lock->release(job->hold);
    ended_.notify_all();
    publish(copy);
}

void JobQueue::runSweepJob(Job &job)
{
    SweepOptions o = job.spec.sweep;
    o.db = options_.db.string();
    o.devices = &devices_;
    o.onProgress = [&](const JobProgress &p) { progress(job, p); };
    o.onSessionStarted = [&](std::int64_t s) { sessionStarted(job, s); };
    o.cancelled = [&] { return job.cancel.load(); };
    int completed = 0, planned = 0;
    // The result so far after every run: a client shows the sweep as it grows.
    o.onRun = [&](const SweepRecord &r) {
        completed = r.completedRuns();
        planned = r.plannedRuns();
        JobInfo copy;
        {
            std::lock_guard lock(mutex_);
            job.info.result = {
                {"sweep", r.id}, {"completed_runs", completed}, {"planned_runs", planned}};
            copy = job.info;
        }
        publish(copy);
    };
    std::string id;
    const Status ended = runSweep(o, -1, id);
    std::lock_guard lock(mutex_);
    job.info.result = {{"sweep", id}, {"completed_runs", completed}, {"planned_runs", planned}};
    job.info.error = ended.error;
    job.info.state = jobState(ended.outcome());
}

void JobQueue::runTuneJob(Job &job)
{
    TuneOptions o = job.spec.tune;
    o.db = options_.db.string();
    o.devices = &devices_;
    o.onProgress = [&](const JobProgress &p) { progress(job, p); };
    o.onSessionStarted = [&](std::int64_t s) { sessionStarted(job, s); };
    o.cancelled = [&] { return job.cancel.load(); };
    TuneResult r;
    std::string report, error;
    const Outcome end = runTune(o, -1, r, report, error);
    std::lock_guard lock(mutex_);
    job.info.result = {{"found", r.found},
                       {"best", valuesJson(r.best)},
                       {"candidate", r.candidate},
                       {"objective", estimateJson(r.objective)},
                       {"probability", r.probability},
                       {"runs_used", r.runsUsed},
                       {"why", r.why},
                       {"report", report}};
    job.info.error = error;
    job.info.state = jobState(end);
}

void JobQueue::runReproduceJob(Job &job)
{
    ReproduceOptions o = job.spec.reproduce;
    o.db = options_.db.string();
    o.devices = &devices_;
    o.onProgress = [&](const JobProgress &p) { progress(job, p); };
    o.onSessionStarted = [&](std::int64_t s) { sessionStarted(job, s); };
    o.cancelled = [&] { return job.cancel.load(); };
    if (o.which == kNapiCaseName) {
        runNapiJob(job, o);
        return;
    }
    json cases = json::array();
    const std::string header = reproduceHeader(o, true);
    // Each case in the result as soon as it is complete, with its table for people.
    o.onCase = [&](const ReproduceCase &c) {
        json rows = json::array();
        for (const auto &row : c.rows)
            rows.push_back({{"metric", std::string(row.metric->name)},
                            {"unit", std::string(row.metric->unit)},
                            {"before", estimateJson(row.a)},
                            {"after", estimateJson(row.b)},
                            {"change_pct", row.diff.pct},
                            {"verdict", row.verdict}});
        cases.push_back({{"case", std::string(c.reference->name)},
                         {"rows", rows},
                         {"report", formatReproduceCase(c, true)}});
        JobInfo copy;
        {
            std::lock_guard lock(mutex_);
            job.info.result = {{"header", header}, {"cases", cases}};
            copy = job.info;
        }
        publish(copy);
    };
    std::string error;
    const Outcome end = runReproduce(o, -1, error);
    std::lock_guard lock(mutex_);
    job.info.result = {{"header", header}, {"cases", cases}};
    job.info.error = error;
    job.info.state = jobState(end);
}

// IRQ suspension's cases on the kernel lab: every row at the end (a cut job: the rows of the
// runs it completed), with the table as `reproduce napi --markdown` prints it.
void JobQueue::runNapiJob(Job &job, const ReproduceOptions &o)
{
    std::vector<NapiRow> rows;
    std::string error;
    const Outcome end = runNapiReproduction(o, -1, rows, error);
    json out = json::array();
    for (const NapiRow &r : rows) {
        json by = json::object();
        for (const auto &[source, pct] : r.pollShare)
            by[source] = pct;
        const bool base = r.c->name == "base";
        out.push_back({{"rate", r.rate},
                       {"case", std::string(r.c->name)},
                       {"sessions", r.sessions},
                       {"rtt_p99_us", estimateJson(r.p99)},
                       {"machine_cpu_pct", estimateJson(r.cpu)},
                       {"p99_vs_base_pct", base || !r.p99VsBase.a ? json() : json(r.p99VsBase.pct)},
                       {"cpu_vs_base_pct", base || !r.cpuVsBase.a ? json() : json(r.cpuVsBase.pct)},
                       {"rx_by_pct", by},
                       {"published",
                        {{"testcase", std::string(r.c->published.testcase)},
                         {"load", std::string(r.publishedLoad)},
                         {"p99_us", r.publishedP99Us},
                         {"cpu_pct", r.publishedCpuPct},
                         {"p99_vs_base_pct", base ? json() : json(r.publishedP99VsBasePct)},
                         {"cpu_vs_base_pct", base ? json() : json(r.publishedCpuVsBasePct)}}},
                       {"verdict", r.verdict}});
    }
    std::lock_guard lock(mutex_);
    job.info.result = {
        {"header", reproduceHeader(o, true)},
        {"napi", out},
        {"report", rows.empty() ? std::string() : formatNapiReproduction(rows, true)}};
    job.info.error = error;
    job.info.state = jobState(end);
}

std::string JobQueue::metricsText() const
{
    std::string kind;
    JobProgress p;
    {
        std::lock_guard lock(mutex_);
        for (const auto &[id, job] : jobs_)
            if (!job->info.ended()) {
                kind = job->info.kind;
                p = job->info.progress;
            }
    }
    std::string out = "# HELP ringlab_job_active Whether a job of this kind holds the "
                      "measurement (1) or not (0).\n# TYPE ringlab_job_active gauge\n";
    for (const char *k : {"sweep", "tune", "reproduce"})
        out +=
            std::string("ringlab_job_active{kind=\"") + k + "\"} " + (kind == k ? "1" : "0") + "\n";
    char buf[64];
    out += "# HELP ringlab_job_runs_done Runs the job in progress has measured.\n"
           "# TYPE ringlab_job_runs_done gauge\nringlab_job_runs_done " +
           std::to_string(kind.empty() ? 0 : p.done) + "\n";
    out += "# HELP ringlab_job_runs_planned Runs the job in progress plans.\n"
           "# TYPE ringlab_job_runs_planned gauge\nringlab_job_runs_planned " +
           std::to_string(kind.empty() ? 0 : p.runs) + "\n";
    std::snprintf(buf, sizeof buf, "%.1f", kind.empty() || p.secondsLeft < 0 ? 0 : p.secondsLeft);
    out += "# HELP ringlab_job_seconds_left The time the job in progress has left, estimated.\n"
           "# TYPE ringlab_job_seconds_left gauge\nringlab_job_seconds_left " +
           std::string(buf) + "\n";
    return out;
}

} // namespace ringlab
