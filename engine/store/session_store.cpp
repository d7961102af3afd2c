// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/session_store.h"

#include "engine/store/process_identity.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "engine/git_revision.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/store/schema_migrations.h"
#include "engine/version.h"

namespace ringlab {

namespace fs = std::filesystem;

namespace {

std::string newUuid()
{
    std::random_device rd;
    std::mt19937_64 g((static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^
                      static_cast<std::uint64_t>(getpid()));
    const std::uint64_t a = g(), b = g();
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                  static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                  static_cast<unsigned>(0x8000 | (b >> 48 & 0x3fff)),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    return buf;
}

const char *kSessionColumns =
    "s.id, s.uuid, s.name, s.created_at, COALESCE(s.ended_at, ''), s.status, s.device, s.profile, "
    "s.host_name, s.host_cpu, s.host_cores, s.host_kernel, s.engine_version, s.git_revision, "
    "s.notes, "
    "s.interval_s, s.pid, s.run_group, s.repeat_index, "
    "(SELECT COALESCE(MAX(t), 0) FROM sample_times st WHERE st.session_id = s.id), "
    "(SELECT COUNT(*) FROM sample_times st WHERE st.session_id = s.id), "
    // One lookup per sample (its key) rather than a scan of every value of the session: an
    // hour's session is 36,000 lookups instead of 2.5 M rows (0.04 s instead of 0.13 s).
    "(SELECT COALESCE(AVG(sm.value), 0) FROM sample_times st CROSS JOIN samples sm ON "
    "sm.session_id = st.session_id AND sm.seq = st.seq AND sm.metric_id = "
    "(SELECT id FROM metrics WHERE name = 'rx_pps' AND thread = '') WHERE st.session_id = s.id)";

} // namespace

int SampleTable::column(const std::string &name, const std::string &thread) const
{
    for (std::size_t k = 0; k < metrics.size(); ++k)
        if (metrics[k].name == name && metrics[k].thread == thread) return static_cast<int>(k);
    return -1;
}

void SampleTable::append(SampleTable &&later)
{
    const std::size_t before = seq.size(), added = later.seq.size();
    seq.insert(seq.end(), later.seq.begin(), later.seq.end());
    t.insert(t.end(), later.t.begin(), later.t.end());
    interval.insert(interval.end(), later.interval.begin(), later.interval.end());
    stall.insert(stall.end(), later.stall.begin(), later.stall.end());
    std::vector<bool> filled(metrics.size(), false);
    for (std::size_t k = 0; k < later.metrics.size(); ++k) {
        const MetricKey &m = later.metrics[k];
        std::size_t c = 0;
        while (c < metrics.size() && !(metrics[c].name == m.name && metrics[c].unit == m.unit &&
                                       metrics[c].thread == m.thread))
            ++c;
        if (c == metrics.size()) { // new in the later part: absent before it
            metrics.push_back(m);
            values.emplace_back(before, std::nan(""));
            filled.push_back(false);
        }
        values[c].insert(values[c].end(), later.values[k].begin(), later.values[k].end());
        filled[c] = true;
    }
    for (std::size_t c = 0; c < metrics.size(); ++c)
        if (!filled[c]) values[c].resize(before + added, std::nan(""));
}

fs::path SessionStore::defaultPath()
{
    const char *xdg = std::getenv("XDG_DATA_HOME");
    fs::path base;
    if (xdg && *xdg)
        base = xdg;
    else if (const char *home = std::getenv("HOME"); home && *home)
        base = fs::path(home) / ".local/share";
    else
        base = "/tmp";
    return base / "ringlab" / "sessions.db";
}

namespace {
// A database to write goes where it is asked to: its folder is made first (a fresh
// ~/.local/share/ringlab). Failing that, opening it says what is wrong.
const fs::path &withFolder(const fs::path &file, Db::Mode mode)
{
    if (mode == Db::Mode::ReadWrite && file != ":memory:" && file.has_parent_path()) {
        std::error_code ec;
        fs::create_directories(file.parent_path(), ec);
    }
    return file;
}
} // namespace

SessionStore::SessionStore(const fs::path &file, Db::Mode mode) : db_(withFolder(file, mode), mode)
{
    identity_ = FileIdentity::of(file);
    // A file that is not a database fails here, on the first read of it.
    const int version = schemaVersion();
    if (version < 0)
        throw DbError("database " + file.string() + ": schema version " + std::to_string(version) +
                      " is not one Ringlab writes (allowed: 0.." + std::to_string(kSchemaVersion) +
                      "); it was not made by Ringlab, or was changed by hand");
    if (version > kSchemaVersion)
        throw DbError("database " + file.string() + ": schema version " + std::to_string(version) +
                      " is newer than this ringlab understands (" + std::to_string(kSchemaVersion) +
                      "); use a newer ringlab");
    if (mode == Db::Mode::ReadOnly) {
        readOnly_ = true;
        if (version < kOldestReadableSchema)
            throw DbError("database " + file.string() + ": schema version " +
                          std::to_string(version) +
                          " needs an upgrade, which a read-only open cannot do");
        return;
    }
    db_.exec("PRAGMA journal_mode = WAL");
    db_.exec("PRAGMA synchronous = NORMAL");
    migrate();
    // A session's rows go with it (ON DELETE CASCADE, schema 6). SQLite enforces foreign keys
    // only on connections that ask, outside a transaction; not while migrating, where a
    // table rebuilt would take its rows with it.
    db_.exec("PRAGMA foreign_keys = ON");
    interruptedOnOpen_ = markInterrupted();
}

bool SessionStore::isFile(const fs::path &path) const
{
    if (identity_ && FileIdentity::of(path) == identity_) return true;
    // A side file: in the database's directory, named after its file (as SQLite names them,
    // from the name it was opened by).
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(fs::absolute(path, ec).parent_path(), ec);
    if (ec || dir != fs::weakly_canonical(fs::absolute(file(), ec).parent_path(), ec) || ec)
        return false;
    const std::string name = path.filename().string(), db = file().filename().string();
    for (const char *side : {"-wal", "-shm", "-journal"})
        if (name == db + side) return true;
    return false;
}

std::string SessionStore::fileChange() const
{
    return identity_ ? ringlab::fileChange(file(), *identity_) : std::string();
}

void SessionStore::rescueTo(const fs::path &to)
{
    auto q = db_.prepare("VACUUM INTO ?1");
    q.bind(1, to.string()).run();
    // The log's frames are in the copy (and in the old file); left in the log, they would be
    // taken as the new file's next time it is opened.
    db_.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

std::string SessionStore::rescueIfReplaced(std::int64_t session)
{
    const std::string change = fileChange();
    if (change.empty()) return {};
    const std::string db = file().string(), id = std::to_string(session);
    std::string out = "database " + db + " " + change + " while session " + id +
                      " was recorded; the file there now does not hold it. ";
    const std::string rescue = db + ".session-" + id + "-" + std::to_string(getpid()) + ".db";
    try {
        rescueTo(rescue);
        out += "The database as this run wrote it was saved to " + rescue + "; add session " + id +
               " to " + db + " with 'ringlab-engine sessions --db " + db + " import " + rescue +
               "'";
    } catch (const DbError &e) {
        out += std::string("The session could not be saved elsewhere: ") + e.what();
    }
    return out;
}

int SessionStore::schemaVersion()
{
    auto q = db_.prepare("PRAGMA user_version");
    return q.step() ? static_cast<int>(q.i64(0)) : 0;
}

void SessionStore::migrate()
{
    if (schemaVersion() >= kSchemaVersion) return;
    // All steps in one transaction: a new file is written once, not once per version.
    Transaction tx(db_);
    // Another process may have migrated between our read and the lock (perhaps a newer
    // Ringlab, further than this one): read it again, and never set it back.
    const int from = schemaVersion();
    if (from >= kSchemaVersion) return;
    for (int v = from; v < kSchemaVersion; ++v)
        db_.exec(schemaMigrations()[static_cast<std::size_t>(v)]);
    db_.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
    tx.commit();
}

int SessionStore::markInterrupted()
{
    const std::string host = currentHost().hostname;
    {
        // Cheap check first, without the write lock: usually nothing is left running.
        auto q = db_.prepare("SELECT COUNT(*) FROM sessions WHERE status = 'running'");
        if (!q.step() || q.i64(0) == 0) return 0;
    }
    // Under the write lock, so a session that completes meanwhile is not overwritten.
    Transaction tx(db_);
    std::vector<std::int64_t> dead;
    {
        auto q = db_.prepare(
            "SELECT id, pid, host_name, pid_start, boot_id FROM sessions WHERE status = 'running'");
        while (q.step())
            if (q.text(2) == host && processGone(q.i64(1), q.i64(3), q.text(4)))
                dead.push_back(q.i64(0));
    }
    if (dead.empty()) return 0;
    // It ended when its last sample was taken.
    auto upd = db_.prepare("UPDATE sessions SET status = 'interrupted', ended_at = "
                           "strftime('%Y-%m-%dT%H:%M:%fZ', created_at, "
                           "'+' || (SELECT COALESCE(MAX(t), 0) FROM sample_times WHERE session_id "
                           "= ?1) || ' seconds') WHERE id = ?1 AND status = 'running'");
    for (auto id : dead) {
        upd.bind(1, id).run();
        upd.reset();
    }
    tx.commit();
    return static_cast<int>(dead.size());
}

std::int64_t SessionStore::createSession(SessionInfo &s, const ParamSet &params)
{
    if (s.uuid.empty()) s.uuid = newUuid();
    if (s.createdAt.empty()) s.createdAt = isoTimeNow();
    if (s.host.hostname.empty()) s.host = currentHost();
    if (s.engineVersion.empty()) s.engineVersion = RINGLAB_VERSION;
    if (s.gitRevision.empty()) s.gitRevision = RINGLAB_GIT_REVISION;
    if (s.status.empty()) s.status = "running";
    if (s.pid == 0) {
        s.pid = getpid();
        s.pidStart = processStart(s.pid);
        s.bootId = bootId();
    }
    Transaction tx(db_);
    auto q = db_.prepare("INSERT INTO sessions (uuid, name, created_at, ended_at, status, device, "
                         "profile, host_name, host_cpu, "
                         "host_cores, host_kernel, engine_version, git_revision, interval_s, "
                         "notes, pid, run_group, repeat_index, pid_start, boot_id) "
                         "VALUES (?1, ?2, ?3, NULLIF(?4, ''), ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                         "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)");
    q.bind(1, s.uuid).bind(2, s.name).bind(3, s.createdAt).bind(4, s.endedAt).bind(5, s.status);
    q.bind(6, s.device).bind(7, s.profile).bind(8, s.host.hostname).bind(9, s.host.cpuModel);
    q.bind(10, s.host.cores)
        .bind(11, s.host.kernel)
        .bind(12, s.engineVersion)
        .bind(13, s.gitRevision);
    q.bind(14, s.intervalS)
        .bind(15, s.notes)
        .bind(16, s.pid)
        .bind(17, s.runGroup)
        .bind(18, s.repeatIndex)
        .bind(19, s.pidStart)
        .bind(20, s.bootId);
    q.run();
    s.id = db_.lastInsertId();
    auto p =
        db_.prepare("INSERT INTO session_params (session_id, tunable, value) VALUES (?1, ?2, ?3)");
    for (const auto &t : tunables()) {
        p.bind(1, s.id).bind(2, std::string(t.name)).bind(3, params.text(t.id)).run();
        p.reset();
    }
    tx.commit();
    return s.id;
}

std::int64_t SessionStore::metricId(const std::string &name, const std::string &unit,
                                    const std::string &thread)
{
    const std::string key = name + '\t' + thread;
    for (const auto &[k, id] : metricCache_)
        if (k == key) return id;
    auto q = db_.prepare("SELECT id FROM metrics WHERE name = ?1 AND thread = ?2");
    q.bind(1, name).bind(2, thread);
    std::int64_t id = 0;
    if (q.step()) {
        id = q.i64(0);
    } else {
        auto ins = db_.prepare("INSERT INTO metrics (name, unit, thread) VALUES (?1, ?2, ?3)");
        ins.bind(1, name).bind(2, unit).bind(3, thread).run();
        id = db_.lastInsertId();
    }
    metricCache_.emplace_back(key, id);
    return id;
}

void SessionStore::append(std::int64_t session,
                          const std::vector<std::shared_ptr<const Sample>> &samples,
                          const std::vector<Event> &events)
{
    try {
        appendInTransaction(session, samples, events);
    } catch (const DbError &) {
        // Metric rows inserted by the rolled-back transaction are gone: so are their ids.
        metricCache_.clear();
        throw;
    }
}

void SessionStore::appendInTransaction(std::int64_t session,
                                       const std::vector<std::shared_ptr<const Sample>> &samples,
                                       const std::vector<Event> &events)
{
    if (samples.empty() && events.empty()) return;
    Transaction tx(db_);
    auto times = db_.prepare("INSERT OR REPLACE INTO sample_times (session_id, seq, t, interval, "
                             "stall) VALUES (?1, ?2, ?3, ?4, ?5)");
    auto vals = db_.prepare("INSERT OR REPLACE INTO samples (session_id, seq, metric_id, value) "
                            "VALUES (?1, ?2, ?3, ?4)");
    for (const auto &s : samples) {
        const auto seq = static_cast<std::int64_t>(s->seq);
        times.bind(1, session)
            .bind(2, seq)
            .bind(3, s->t)
            .bind(4, s->interval)
            .bind(5, stallName(s->stall))
            .run();
        times.reset();
        for (const auto &m : flattenSample(*s)) {
            if (!std::isfinite(m.value)) continue;
            vals.bind(1, session)
                .bind(2, seq)
                .bind(3, metricId(m.name, m.unit, m.thread))
                .bind(4, m.value)
                .run();
            vals.reset();
        }
    }
    auto change = db_.prepare(
        "INSERT INTO param_changes (session_id, t, tunable, old_value, new_value, source) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    auto event = db_.prepare(
        "INSERT INTO events (session_id, t, kind, message, source) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const auto &e : events) {
        if (e.kind == "param") {
            change.bind(1, session)
                .bind(2, e.t)
                .bind(3, e.tunable)
                .bind(4, e.before)
                .bind(5, e.after)
                .bind(6, e.source)
                .run();
            change.reset();
        } else {
            event.bind(1, session)
                .bind(2, e.t)
                .bind(3, e.kind)
                .bind(4, e.message)
                .bind(5, e.source)
                .run();
            event.reset();
        }
    }
    tx.commit();
}

void SessionStore::finishSession(std::int64_t session, const std::string &status)
{
    auto q = db_.prepare("UPDATE sessions SET status = ?2, ended_at = ?3 WHERE id = ?1");
    q.bind(1, session).bind(2, status).bind(3, isoTimeNow()).run();
}

void SessionStore::rename(std::int64_t session, const std::string &name)
{
    auto q = db_.prepare("UPDATE sessions SET name = ?2 WHERE id = ?1");
    q.bind(1, session).bind(2, name).run();
}

bool SessionStore::deleteSession(std::int64_t session)
{
    // Its samples, events, changes, values and environment go with it (ON DELETE CASCADE).
    auto q = db_.prepare("DELETE FROM sessions WHERE id = ?1");
    q.bind(1, session).run();
    return db_.changes() > 0;
}

void SessionStore::fill(Stmt &q, SessionInfo &s)
{
    s.id = q.i64(0);
    s.uuid = q.text(1);
    s.name = q.text(2);
    s.createdAt = q.text(3);
    s.endedAt = q.text(4);
    s.status = q.text(5);
    s.device = q.text(6);
    s.profile = q.text(7);
    s.host = {q.text(8), q.text(9), static_cast<int>(q.i64(10)), q.text(11)};
    s.engineVersion = q.text(12);
    s.gitRevision = q.text(13);
    s.notes = q.text(14);
    s.intervalS = q.real(15);
    s.pid = q.i64(16);
    s.runGroup = q.text(17);
    s.repeatIndex = static_cast<int>(q.i64(18));
    s.durationS = q.real(19);
    s.sampleCount = q.i64(20);
    s.meanRxPps = q.real(21);
}

std::string SessionStore::exportSession(std::int64_t session)
{
    SessionInfo info;
    if (!get(session, info))
        throw DbError("database " + file().string() + ": no session " + std::to_string(session));
    // A database of its own, in memory, holding this one session; its bytes are the export.
    SessionStore one(":memory:");
    one.copyFrom(file(), kSchemaVersion, session, true);
    return one.db_.serialize();
}

std::vector<SessionInfo> SessionStore::list()
{
    std::vector<SessionInfo> out;
    auto q =
        db_.prepare(std::string("SELECT ") + kSessionColumns + " FROM sessions s ORDER BY s.id");
    while (q.step())
        fill(q, out.emplace_back());
    return out;
}

bool SessionStore::get(std::int64_t session, SessionInfo &out)
{
    auto q =
        db_.prepare(std::string("SELECT ") + kSessionColumns + " FROM sessions s WHERE s.id = ?1");
    q.bind(1, session);
    if (!q.step()) return false;
    fill(q, out);
    return true;
}

void SessionStore::setEnvironment(std::int64_t session, const Environment &env)
{
    Transaction tx(db_);
    std::int64_t seq = 0;
    {
        auto q = db_.prepare(
            "SELECT COALESCE(MAX(seq), -1) + 1 FROM session_environment WHERE session_id = ?1");
        q.bind(1, session);
        if (q.step()) seq = q.i64(0);
    }
    auto q = db_.prepare("INSERT OR REPLACE INTO session_environment (session_id, key, value, "
                         "absent, seq) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const auto &f : env.facts) {
        q.bind(1, session)
            .bind(2, f.key)
            .bind(3, f.present() ? f.value : std::string())
            .bind(4, f.absent)
            .bind(5, seq++)
            .run();
        q.reset();
    }
    tx.commit();
}

Environment SessionStore::environment(std::int64_t session)
{
    Environment env;
    auto q = db_.prepare("SELECT key, value, absent FROM session_environment WHERE session_id = "
                         "?1 ORDER BY seq, key");
    q.bind(1, session);
    while (q.step())
        env.facts.push_back({q.text(0), q.text(1), q.text(2)});
    return env;
}

std::vector<std::pair<std::string, std::string>> SessionStore::params(std::int64_t session)
{
    std::vector<std::pair<std::string, std::string>> out;
    auto q = db_.prepare("SELECT tunable, value FROM session_params WHERE session_id = ?1");
    q.bind(1, session);
    while (q.step())
        out.emplace_back(q.text(0), q.text(1));
    return out;
}

std::vector<ParamChangeRow> SessionStore::changes(std::int64_t session)
{
    std::vector<ParamChangeRow> out;
    auto q = db_.prepare(
        "SELECT t, tunable, old_value, new_value, source FROM param_changes WHERE session_id = ?1 "
        "ORDER BY t, id");
    q.bind(1, session);
    while (q.step())
        out.push_back({q.real(0), q.text(1), q.text(2), q.text(3), q.text(4)});
    return out;
}

std::vector<EventRow> SessionStore::events(std::int64_t session)
{
    std::vector<EventRow> out;
    auto q = db_.prepare(
        "SELECT t, kind, message, source FROM events WHERE session_id = ?1 ORDER BY t, id");
    q.bind(1, session);
    while (q.step())
        out.push_back({q.real(0), q.text(1), q.text(2), q.text(3)});
    return out;
}

SampleTable SessionStore::samples(std::int64_t session)
{
    return samples(session, std::numeric_limits<std::int64_t>::min(),
                   std::numeric_limits<std::int64_t>::max());
}

std::pair<std::int64_t, std::int64_t> SessionStore::sampleSeqRange(std::int64_t session)
{
    auto q = db_.prepare("SELECT min(seq), max(seq), count(*) FROM sample_times WHERE "
                         "session_id = ?1");
    q.bind(1, session);
    if (!q.step() || q.i64(2) == 0) return {0, -1};
    return {q.i64(0), q.i64(1)};
}

SampleTable SessionStore::samples(std::int64_t session, std::int64_t seqFrom, std::int64_t seqTo)
{
    SampleTable tab;
    {
        auto q = db_.prepare("SELECT seq, t, interval, stall FROM sample_times WHERE session_id "
                             "= ?1 AND seq >= ?2 AND seq < ?3 ORDER BY seq");
        q.bind(1, session);
        q.bind(2, seqFrom);
        q.bind(3, seqTo);
        while (q.step()) {
            tab.seq.push_back(q.i64(0));
            tab.t.push_back(q.real(1));
            tab.interval.push_back(q.real(2));
            Stall stall = Stall::None;
            stallFromName(q.text(3), stall); // the schema allows only its names
            tab.stall.push_back(stall);
        }
    }
    // One pass over the session's values (an hour at 10 Hz: 2.2 million rows): a column per
    // metric id as it first appears, then the columns in id order with their names. The
    // rows come in key order (seq, metric_id), so the row and column are usually the last
    // ones or the next.
    std::vector<std::int64_t> ids;                // column -> metric id
    std::vector<std::vector<double>> byFirstSeen; // column -> values
    std::map<std::int64_t, std::size_t> columnOf; // metric id -> column
    {
        auto q = db_.prepare("SELECT seq, metric_id, value FROM samples WHERE session_id = ?1 "
                             "AND seq >= ?2 AND seq < ?3");
        q.bind(1, session);
        q.bind(2, seqFrom);
        q.bind(3, seqTo);
        std::size_t row = 0, col = 0;
        std::int64_t lastId = -1;
        while (q.step()) {
            const std::int64_t seq = q.i64(0), id = q.i64(1);
            if (row >= tab.seq.size() || tab.seq[row] != seq) {
                if (row + 1 < tab.seq.size() && tab.seq[row + 1] == seq)
                    ++row;
                else
                    row = static_cast<std::size_t>(
                        std::lower_bound(tab.seq.begin(), tab.seq.end(), seq) - tab.seq.begin());
                if (row >= tab.seq.size() || tab.seq[row] != seq) continue; // no such sample
            }
            if (id != lastId) {
                // Each sample has its metrics in the same order: usually the next column.
                const std::size_t next = col + 1 < ids.size() ? col + 1 : 0;
                if (!ids.empty() && ids[next] == id) {
                    col = next;
                } else {
                    auto it = columnOf.find(id);
                    if (it == columnOf.end()) {
                        it = columnOf.emplace(id, ids.size()).first;
                        ids.push_back(id);
                        byFirstSeen.emplace_back(tab.seq.size(), std::nan(""));
                    }
                    col = it->second;
                }
                lastId = id;
            }
            byFirstSeen[col][row] = q.real(2);
        }
    }
    auto names = db_.prepare("SELECT name, unit, thread FROM metrics WHERE id = ?1");
    for (const auto &[id, col] : columnOf) { // in id order
        names.bind(1, id);
        if (names.step()) { // else a value of no metric: the import check refuses these
            tab.metrics.push_back({names.text(0), names.text(1), names.text(2)});
            tab.values.push_back(std::move(byFirstSeen[col]));
        }
        names.reset();
    }
    return tab;
}

} // namespace ringlab
