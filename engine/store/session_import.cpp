// SPDX-License-Identifier: GPL-2.0-or-later
// SessionStore's import: another database's sessions, of any schema version this one reads,
// checked first (import_check) and copied in one transaction.
#include "engine/store/session_store.h"

#include <string>
#include <vector>

#include "engine/store/import_check.h"

namespace ringlab {

namespace fs = std::filesystem;

SessionStore::ImportResult SessionStore::importFrom(const fs::path &other)
{
    return importChecked(other, false, 0);
}

SessionStore::ImportResult SessionStore::importKeepingIds(const fs::path &other, std::int64_t only)
{
    return importChecked(other, true, only);
}

SessionStore::ImportResult SessionStore::importChecked(const fs::path &other, bool keepIds,
                                                       std::int64_t only)
{
    std::error_code ec;
    if (!fs::is_regular_file(other, ec))
        throw DbError("database " + other.string() + ": no such file");
    if (isFile(other))
        throw DbError("database " + other.string() + " is " + file().string() +
                      " itself: import another database into it");
    int otherVersion = 0;
    {
        // Check it on its own first, for a message that names it rather than this one.
        Db probe(other, Db::Mode::ReadOnly);
        auto q = probe.prepare("PRAGMA user_version");
        otherVersion = q.step() ? static_cast<int>(q.i64(0)) : 0;
        if (otherVersion < 1 || otherVersion > kSchemaVersion)
            throw DbError("database " + other.string() +
                          ": not a ringlab session database (schema version " +
                          std::to_string(otherVersion) + ")");
        checkImportable(probe, otherVersion);
    }
    return copyFrom(other, otherVersion, only, keepIds);
}

namespace {
// The sessions here that are stale copies of the attached database's: their id taken there
// by another uuid, or their uuid there under another id (only session `only`, when not 0).
std::vector<std::int64_t> staleCopies(Db &db, std::int64_t only)
{
    std::vector<std::int64_t> stale;
    auto q = db.prepare("SELECT m.id FROM main.sessions m JOIN other.sessions o ON "
                        "(o.id = m.id AND o.uuid <> m.uuid) OR (o.uuid = m.uuid AND "
                        "o.id <> m.id) WHERE ?1 = 0 OR o.id = ?1");
    q.bind(1, only);
    while (q.step())
        stale.push_back(q.i64(0));
    return stale;
}

// The attached database's sessions not here yet (by uuid), in id order (only session
// `only`, when not 0); `skipped` receives how many of them are here already.
std::vector<std::int64_t> sessionsToCopy(Db &db, std::int64_t only, int &skipped)
{
    std::vector<std::int64_t> ids;
    auto q = db.prepare("SELECT id FROM other.sessions WHERE uuid NOT IN (SELECT uuid "
                        "FROM main.sessions) AND (?1 = 0 OR id = ?1) ORDER BY id");
    q.bind(1, only);
    while (q.step())
        ids.push_back(q.i64(0));
    auto n = db.prepare("SELECT COUNT(*) FROM other.sessions WHERE ?1 = 0 OR id = ?1");
    n.bind(1, only);
    n.step();
    skipped = static_cast<int>(n.i64(0)) - static_cast<int>(ids.size());
    return ids;
}

// The statement that copies one session's row (?1: its id there), under its own id when
// `keepIds`, else a new one.
std::string insertSessionSql(bool keepIds, int otherVersion)
{
    const std::string group = otherVersion >= 2 ? "run_group, repeat_index" : "'', 0";
    return std::string("INSERT INTO main.sessions (") + (keepIds ? "id, " : "") +
           "uuid, name, created_at, ended_at, "
           "status, device, profile, host_name, host_cpu, "
           "host_cores, host_kernel, engine_version, git_revision, interval_s, "
           "notes, pid, run_group, repeat_index) "
           "SELECT " +
           (keepIds ? "id, " : "") +
           "uuid, name, created_at, ended_at, CASE status WHEN "
           "'running' THEN 'interrupted' ELSE status END, "
           "device, profile, host_name, host_cpu, host_cores, host_kernel, "
           "engine_version, git_revision, interval_s, "
           "notes, 0, " +
           group + " FROM other.sessions WHERE id = ?1";
}

// The stall of a sample in the attached database: before version 4, judged as the 3 -> 4
// migration judges it.
std::string stallColumn(int otherVersion)
{
    return otherVersion >= 4 ? "stall"
                             : "CASE WHEN interval > 2.0 * (SELECT interval_s FROM other.sessions "
                               "os WHERE os.id = session_id AND os.interval_s > 0) THEN 'sampler' "
                               "ELSE '' END";
}

// Everything of session `old` of the attached database but its row: its values, changes,
// events, samples and environment, as session `id` here.
void copySessionContents(Db &db, std::int64_t old, std::int64_t id, int otherVersion,
                         const std::string &stall)
{
    const std::string o = std::to_string(old), n = std::to_string(id);
    db.exec("INSERT INTO main.session_params SELECT " + n +
            ", tunable, value FROM other.session_params WHERE session_id = " + o);
    db.exec("INSERT INTO main.param_changes (session_id, t, tunable, old_value, "
            "new_value, source) SELECT " +
            n +
            ", t, tunable, old_value, new_value, source FROM other.param_changes WHERE "
            "session_id = " +
            o);
    db.exec("INSERT INTO main.events (session_id, t, kind, message, source) SELECT " + n +
            ", t, kind, message, source FROM other.events WHERE session_id = " + o);
    db.exec("INSERT INTO main.sample_times (session_id, seq, t, interval, stall) SELECT " + n +
            ", seq, t, interval, " + stall + " FROM other.sample_times WHERE " +
            "session_id = " + o);
    db.exec("INSERT INTO main.samples SELECT " + n +
            ", s.seq, m.id, s.value FROM other.samples s "
            "JOIN other.metrics om ON om.id = s.metric_id "
            "JOIN main.metrics m ON m.name = om.name AND m.thread = om.thread WHERE "
            "s.session_id = " +
            o);
    if (otherVersion >= 5)
        db.exec("INSERT INTO main.session_environment (session_id, key, value, absent, "
                "seq) SELECT " +
                n +
                ", key, value, absent, seq FROM other.session_environment WHERE "
                "session_id = " +
                o);
}
} // namespace

SessionStore::ImportResult SessionStore::copyFrom(const fs::path &other, int otherVersion,
                                                  std::int64_t only, bool keepIds)
{
    ImportResult result;
    auto attach = db_.prepare("ATTACH DATABASE ?1 AS other");
    attach.bind(1, other.string()).run();
    try {
        if (keepIds) {
            // An id taken here by another session (the other database was replaced): that
            // copy is stale, the other database is the truth.
            for (auto id : staleCopies(db_, only))
                deleteSession(id);
        }
        Transaction tx(db_);
        db_.exec("INSERT OR IGNORE INTO metrics (name, unit, thread) SELECT name, unit, thread "
                 "FROM other.metrics");
        const std::string stall = stallColumn(otherVersion);
        const std::vector<std::int64_t> ids = sessionsToCopy(db_, only, result.skipped);
        auto ins = db_.prepare(insertSessionSql(keepIds, otherVersion));
        for (auto old : ids) {
            ins.bind(1, old).run();
            ins.reset();
            copySessionContents(db_, old, db_.lastInsertId(), otherVersion, stall);
            ++result.imported;
        }
        tx.commit();
    } catch (...) {
        db_.exec("DETACH DATABASE other");
        throw;
    }
    db_.exec("DETACH DATABASE other");
    metricCache_.clear();
    return result;
}

} // namespace ringlab
