// SPDX-License-Identifier: GPL-2.0-or-later
// The session database (SQLite, WAL): schema with versioned migrations, writing a session's
// samples, parameter changes and events in batches, reading them back, and deleting.
// docs/database.md documents the schema.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/environment_facts.h"
#include "engine/common/host_info.h"
#include "engine/datapath/sample.h"
#include "engine/datapath/tunables.h"
#include "engine/store/file_identity.h"
#include "engine/store/sqlite_db.h"

namespace ringlab {

inline constexpr int kSchemaVersion = 7;
// A read-only open (which cannot migrate) reads sessions from this version on: 7 only added
// the jobs' table.
inline constexpr int kOldestReadableSchema = 6;

struct SessionInfo {
    std::int64_t id = 0;
    std::string uuid;
    std::string name;
    std::string createdAt, endedAt;
    std::string status; // running, completed, interrupted, failed
    std::string device, profile;
    HostInfo host;
    std::string engineVersion, gitRevision;
    std::string notes;
    double intervalS = 0;
    std::int64_t pid = 0;
    std::int64_t pidStart = 0; // the recording process's start time (clock ticks since boot)
    std::string bootId;        // and the boot it ran in: a pid alone may have been reused
    std::string runGroup;      // repeats of one run share it
    int repeatIndex = 0;
    // Filled by list/get:
    double durationS = 0;
    std::int64_t sampleCount = 0;
    double meanRxPps = 0;
};

struct ParamChangeRow {
    double t = 0;
    std::string tunable, oldValue, newValue, source;
};

struct EventRow {
    double t = 0;
    std::string kind, message, source;
};

struct MetricKey {
    std::string name, unit, thread;
    std::string label() const { return thread.empty() ? name : name + "[" + thread + "]"; }
};

// A session's samples as a table: one row per sample, one column per metric (NaN = absent).
struct SampleTable {
    std::vector<std::int64_t> seq;
    std::vector<double> t, interval;
    std::vector<Stall> stall; // what the engine saw before each sample (Stall)
    std::vector<MetricKey> metrics;
    std::vector<std::vector<double>> values; // [metric][row]
    int column(const std::string &name, const std::string &thread = {}) const;
    // Adds the rows of `later` (read after these: a session read in parts) after these, its
    // metrics joined by name, unit and thread; a metric only one part has is NaN in the other.
    void append(SampleTable &&later);
};

class SessionStore {
  public:
    // Opens or creates the database and brings its schema up to date; sessions left
    // "running" by processes that are gone are marked "interrupted". Throws DbError with a
    // message naming the file and the cause.
    explicit SessionStore(const std::filesystem::path &file, Db::Mode mode = Db::Mode::ReadWrite);

    // $XDG_DATA_HOME/ringlab/sessions.db, or ~/.local/share/ringlab/sessions.db.
    static std::filesystem::path defaultPath();
    // `db` when given, else defaultPath(): what every --db option means.
    static std::filesystem::path pathOr(const std::string &db)
    {
        return db.empty() ? defaultPath() : std::filesystem::path(db);
    }
    const std::filesystem::path &file() const { return db_.file(); }
    int schemaVersion();
    int interruptedOnOpen() const { return interruptedOnOpen_; }
    bool readOnly() const { return readOnly_; }
    // Whether `path` names this database's file (symbolic links followed) or one of the side
    // files SQLite keeps beside it (-wal, -shm, -journal), existing or not: writing any of
    // them breaks the database for every reader.
    bool isFile(const std::filesystem::path &path) const;
    // What became of the file since it was opened: empty while file() still names it, else
    // e.g. "was replaced by another file" (a copy moved over it while a run was recorded).
    std::string fileChange() const;
    // After fileChange(): copies the database as this connection sees it (the file it opened,
    // with everything written to it since) to `to`, and empties the write-ahead log, which
    // SQLite would otherwise apply to the file now at file(). Throws DbError.
    void rescueTo(const std::filesystem::path &to);
    // After a run recorded as `session`: empty while the file is the one opened; else saves
    // the database (rescueTo) beside its name, FILE.session-N-PID.db, and says what happened
    // to the file and where the run is, in sentences for the user.
    std::string rescueIfReplaced(std::int64_t session);

    std::int64_t createSession(SessionInfo &info, const ParamSet &params);
    // One transaction: the samples (flattened to metrics), parameter changes and events.
    void append(std::int64_t session, const std::vector<std::shared_ptr<const Sample>> &samples,
                const std::vector<Event> &events);
    void finishSession(std::int64_t session, const std::string &status);
    void rename(std::int64_t session, const std::string &name);
    bool deleteSession(std::int64_t session);

    struct ImportResult {
        int imported = 0;
        int skipped = 0; // already here (same uuid)
    };
    // Merges every session of another database under new ids, keeping its host
    // information. Throws DbError naming the other file when it cannot be read.
    ImportResult importFrom(const std::filesystem::path &other);
    // The same, keeping each session's id (only session `only`, when not 0): for a copy of
    // one other database (the desktop's copy of an engine's sessions). A session here with
    // that id and another uuid, or that uuid and another id, is replaced.
    ImportResult importKeepingIds(const std::filesystem::path &other, std::int64_t only = 0);
    // One session as a database of its own (the bytes of an SQLite file), for another host to
    // import: what `sessions export --format sqlite` and the API's export give. A running
    // session comes out as it is so far, marked interrupted, as importFrom marks it.
    std::string exportSession(std::int64_t session);

    std::vector<SessionInfo> list();
    bool get(std::int64_t session, SessionInfo &out);
    std::vector<std::pair<std::string, std::string>> params(std::int64_t session);
    // The environment it ran on (facts added to what is there: the machine's at the start,
    // the threads' at the end); empty (not recorded) for a session from before schema 5.
    void setEnvironment(std::int64_t session, const Environment &env);
    Environment environment(std::int64_t session);
    std::vector<ParamChangeRow> changes(std::int64_t session);
    std::vector<EventRow> events(std::int64_t session);
    SampleTable samples(std::int64_t session);
    // The samples with seq in [seqFrom, seqTo): a part of a long session, read on a
    // connection of its own while another reads the rest.
    SampleTable samples(std::int64_t session, std::int64_t seqFrom, std::int64_t seqTo);
    // The lowest and highest seq of the session's samples; {0, -1} when it has none.
    std::pair<std::int64_t, std::int64_t> sampleSeqRange(std::int64_t session);

    Db &db() { return db_; }

  private:
    void migrate();
    ImportResult importChecked(const std::filesystem::path &other, bool keepIds, std::int64_t only);
    ImportResult copyFrom(const std::filesystem::path &other, int otherVersion, std::int64_t only,
                          bool keepIds);
    void appendInTransaction(std::int64_t session,
                             const std::vector<std::shared_ptr<const Sample>> &samples,
                             const std::vector<Event> &events);
    int markInterrupted();
    std::int64_t metricId(const std::string &name, const std::string &unit,
                          const std::string &thread);
    void fill(Stmt &q, SessionInfo &s);

    Db db_;
    std::optional<FileIdentity> identity_; // of the file when opened
    int interruptedOnOpen_ = 0;
    bool readOnly_ = false;
    std::vector<std::pair<std::string, std::int64_t>> metricCache_; // "name\tthread" -> id
};

} // namespace ringlab
