// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/job_store.h"

#include <unistd.h>

#include "engine/common/host_info.h"
#include "engine/store/process_identity.h"
#include "engine/store/session_store.h"

namespace ringlab {

using nlohmann::json;

namespace {

std::string jobText(const json &job)
{
    return job.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A row written by hand (or by a broken disk) that is not a job is left out, never thrown.
std::optional<json> jobFromText(const std::string &text)
{
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
}

std::string stringOf(const json &job, const char *key)
{
    const auto it = job.find(key);
    return it != job.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

JobStore::JobStore(const std::filesystem::path &db, JobHistoryBounds bounds)
    : store_(std::make_unique<SessionStore>(db)), bounds_(bounds)
{
    prune(); // what aged past the bound while no engine ended a job
}

JobStore::~JobStore() = default;

std::int64_t JobStore::add(json &job)
{
    std::lock_guard lock(mutex_);
    Db &db = store_->db();
    Transaction tx(db);
    const std::int64_t pid = getpid();
    db.prepare("INSERT INTO jobs (kind, state, started_at, job, pid, pid_start, boot_id, "
               "host_name) VALUES (?1, ?2, ?3, '{}', ?4, ?5, ?6, ?7)")
        .bind(1, stringOf(job, "kind"))
        .bind(2, stringOf(job, "state"))
        .bind(3, stringOf(job, "started_at"))
        .bind(4, pid)
        .bind(5, processStart(pid))
        .bind(6, bootId())
        .bind(7, currentHost().hostname)
        .run();
    const std::int64_t id = db.lastInsertId();
    job["id"] = id;
    db.prepare("UPDATE jobs SET job = ?2 WHERE id = ?1").bind(1, id).bind(2, jobText(job)).run();
    tx.commit();
    return id;
}

void JobStore::save(const json &job)
{
    std::lock_guard lock(mutex_);
    const auto id = job.value("id", std::int64_t{0});
    const std::string endedAt = stringOf(job, "ended_at");
    auto q = store_->db().prepare(
        "UPDATE jobs SET state = ?2, ended_at = NULLIF(?3, ''), job = ?4 WHERE id = ?1");
    q.bind(1, id).bind(2, stringOf(job, "state")).bind(3, endedAt).bind(4, jobText(job)).run();
    if (!endedAt.empty()) prune();
}

std::optional<json> JobStore::get(std::int64_t id)
{
    std::lock_guard lock(mutex_);
    auto q = store_->db().prepare("SELECT job FROM jobs WHERE id = ?1");
    q.bind(1, id);
    if (!q.step()) return std::nullopt;
    auto j = jobFromText(q.text(0));
    if (j) (*j)["id"] = id;
    return j;
}

JobPage JobStore::page(std::int64_t before, std::size_t limit)
{
    std::lock_guard lock(mutex_);
    auto q = store_->db().prepare(
        "SELECT id, job FROM jobs WHERE ?1 <= 0 OR id < ?1 ORDER BY id DESC LIMIT ?2");
    q.bind(1, before).bind(2, static_cast<std::int64_t>(limit));
    JobPage out;
    std::size_t rows = 0;
    while (q.step()) {
        ++rows;
        out.lastId = q.i64(0);
        auto j = jobFromText(q.text(1));
        if (!j) continue;        // a row that is not a job: left out, the page goes on past it
        (*j)["id"] = out.lastId; // the row's id is the job's, whatever its text says
        out.jobs.push_back(std::move(*j));
    }
    if (rows < limit) out.lastId = 0; // the last page
    return out;
}

int JobStore::markDied()
{
    std::lock_guard lock(mutex_);
    Db &db = store_->db();
    const std::string host = currentHost().hostname;
    {
        // Cheap first, without the write lock: usually no job is left running.
        auto q = db.prepare("SELECT COUNT(*) FROM jobs WHERE state = 'running'");
        if (!q.step() || q.i64(0) == 0) return 0;
    }
    Transaction tx(db);
    std::vector<std::pair<std::int64_t, json>> died;
    {
        auto q = db.prepare("SELECT id, pid, pid_start, boot_id, job FROM jobs "
                            "WHERE state = 'running' AND host_name = ?1");
        q.bind(1, host);
        while (q.step()) {
            if (!processGone(q.i64(1), q.i64(2), q.text(3))) continue;
            json job = jobFromText(q.text(4)).value_or(json{{"id", q.i64(0)}});
            job["state"] = "interrupted";
            job["ended_at"] = isoTimeNow();
            job["error"] = "its engine (pid " + std::to_string(q.i64(1)) +
                           ") ended while it ran; the runs it recorded before are kept "
                           "(ended_at is when this was found)";
            if (job.contains("progress") && job["progress"].is_object()) {
                job["progress"]["seconds_left"] = 0;
                job["progress"]["step"] = "";
            }
            if (!job.contains("result") || job["result"].is_null()) job["result"] = json::object();
            died.emplace_back(q.i64(0), std::move(job));
        }
    }
    auto upd = db.prepare("UPDATE jobs SET state = 'interrupted', ended_at = ?2, job = ?3 "
                          "WHERE id = ?1");
    for (const auto &[id, job] : died) {
        upd.bind(1, id).bind(2, stringOf(job, "ended_at")).bind(3, jobText(job)).run();
        upd.reset();
    }
    tx.commit();
    return static_cast<int>(died.size());
}

void JobStore::prune()
{
    // ISO 8601 in UTC compares as text.
    auto q = store_->db().prepare(
        "DELETE FROM jobs WHERE ended_at IS NOT NULL AND (ended_at < "
        "strftime('%Y-%m-%dT%H:%M:%fZ', "
        "'now', ?1) OR id NOT IN (SELECT id FROM jobs WHERE ended_at IS NOT NULL ORDER BY id DESC "
        "LIMIT ?2))");
    q.bind(1, "-" + std::to_string(bounds_.days) + " days")
        .bind(2, static_cast<std::int64_t>(bounds_.endedJobs))
        .run();
}

} // namespace ringlab
