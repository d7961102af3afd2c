// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's jobs as the session database keeps them (table `jobs`, schema 7): each job
// as the API shows it (docs/api.md, "A job"), under an id that is never reused, so that
// /v1/jobs/ID names one job across the engine's restarts, and with the process that ran it,
// so that a job whose engine died is shown as interrupted rather than running forever.
// The history is bounded in count and age; a job's sessions are not its rows and stay.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace ringlab {

class SessionStore;

struct JobPage {
    std::vector<nlohmann::json> jobs;
    std::int64_t lastId = 0; // the next page's `before`; 0 when this was the last
};

struct JobHistoryBounds {
    std::size_t endedJobs = 1000; // the most recent ended jobs kept
    int days = 90;                // and none that ended longer ago
};

class JobStore {
  public:
    // Opens (and migrates) the database for the jobs. Throws DbError.
    explicit JobStore(const std::filesystem::path &db, JobHistoryBounds bounds = {});
    ~JobStore();
    JobStore(const JobStore &) = delete;
    JobStore &operator=(const JobStore &) = delete;

    // A row for a job that starts now, run by this process: its id. `job` is the job as the
    // API shows it; its "id" is set to the new one.
    std::int64_t add(nlohmann::json &job);
    // The job as it is now (its "id" names the row); an ended one ("ended_at" set) also
    // prunes the history to its bounds.
    void save(const nlohmann::json &job);
    std::optional<nlohmann::json> get(std::int64_t id);
    // Newest first: at most `limit` jobs with an id below `before` (0: from the newest); a
    // row that is not a job is left out, and the page's cursor goes past it.
    JobPage page(std::int64_t before, std::size_t limit);
    // Jobs still "running" whose process on this host is gone become "interrupted", saying
    // so: how many.
    int markDied();

  private:
    void prune();
    std::mutex mutex_;
    std::unique_ptr<SessionStore> store_;
    JobHistoryBounds bounds_;
};

} // namespace ringlab
