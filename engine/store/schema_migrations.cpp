// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/schema_migrations.h"

#include <iterator>

#include "engine/datapath/sample.h"
#include "engine/store/session_store.h"

namespace ringlab {

namespace {
// Each entry takes the schema from version (index) to version (index + 1).
constexpr const char *kMigrations[] = {
    // 0 -> 1: the first schema.
    R"sql(
    CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        ended_at TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
        device TEXT NOT NULL,
        profile TEXT NOT NULL,
        host_name TEXT NOT NULL DEFAULT '',
        host_cpu TEXT NOT NULL DEFAULT '',
        host_cores INTEGER NOT NULL DEFAULT 0,
        host_kernel TEXT NOT NULL DEFAULT '',
        engine_version TEXT NOT NULL DEFAULT '',
        git_revision TEXT NOT NULL DEFAULT '',
        interval_s REAL NOT NULL,
        notes TEXT NOT NULL DEFAULT '',
        pid INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE session_params (
        session_id INTEGER NOT NULL,
        tunable TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (session_id, tunable)
    ) WITHOUT ROWID;
    CREATE TABLE param_changes (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL,
        t REAL NOT NULL,
        tunable TEXT NOT NULL,
        old_value TEXT NOT NULL,
        new_value TEXT NOT NULL,
        source TEXT NOT NULL
    );
    CREATE INDEX param_changes_by_session ON param_changes (session_id, t);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL,
        t REAL NOT NULL,
        kind TEXT NOT NULL,
        message TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX events_by_session ON events (session_id, t);
    CREATE TABLE metrics (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        unit TEXT NOT NULL,
        thread TEXT NOT NULL DEFAULT '',
        UNIQUE (name, thread)
    );
    CREATE TABLE sample_times (
        session_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        t REAL NOT NULL,
        interval REAL NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE samples (
        session_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        metric_id INTEGER NOT NULL,
        value REAL NOT NULL,
        PRIMARY KEY (session_id, seq, metric_id)
    ) WITHOUT ROWID;
    )sql",
    // 1 -> 2: repeated runs (run --repeat N) form a group.
    R"sql(
    ALTER TABLE sessions ADD COLUMN run_group TEXT NOT NULL DEFAULT '';
    ALTER TABLE sessions ADD COLUMN repeat_index INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 2 -> 3: ids are never reused after a delete (AUTOINCREMENT), and a recording process
    // is identified by pid, start time and boot, so a reused pid does not look alive.
    R"sql(
    CREATE TABLE sessions_v3 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        uuid TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        ended_at TEXT,
        status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
        device TEXT NOT NULL,
        profile TEXT NOT NULL,
        host_name TEXT NOT NULL DEFAULT '',
        host_cpu TEXT NOT NULL DEFAULT '',
        host_cores INTEGER NOT NULL DEFAULT 0,
        host_kernel TEXT NOT NULL DEFAULT '',
        engine_version TEXT NOT NULL DEFAULT '',
        git_revision TEXT NOT NULL DEFAULT '',
        interval_s REAL NOT NULL,
        notes TEXT NOT NULL DEFAULT '',
        pid INTEGER NOT NULL DEFAULT 0,
        run_group TEXT NOT NULL DEFAULT '',
        repeat_index INTEGER NOT NULL DEFAULT 0,
        pid_start INTEGER NOT NULL DEFAULT 0,
        boot_id TEXT NOT NULL DEFAULT ''
    );
    INSERT INTO sessions_v3 (id, uuid, name, created_at, ended_at, status, device, profile, host_name, host_cpu,
        host_cores, host_kernel, engine_version, git_revision, interval_s, notes, pid, run_group, repeat_index)
    SELECT id, uuid, name, created_at, ended_at, status, device, profile, host_name, host_cpu, host_cores,
        host_kernel, engine_version, git_revision, interval_s, notes, pid, run_group, repeat_index FROM sessions;
    DROP TABLE sessions;
    ALTER TABLE sessions_v3 RENAME TO sessions;
    )sql",
    // 3 -> 4: a sample says when the engine saw a stall (Stall, kStallNames). Samples recorded
    // before are judged as the sampler judges (kStallPeriods) against the session's interval.
    R"sql(
    ALTER TABLE sample_times ADD COLUMN stall TEXT NOT NULL DEFAULT '' CHECK (stall IN ('', 'sampler'));
    UPDATE sample_times SET stall = 'sampler' WHERE interval > 2.0 *
        (SELECT s.interval_s FROM sessions s WHERE s.id = sample_times.session_id AND s.interval_s > 0);
    )sql",
    // 4 -> 5: the environment a session ran on (environment_facts.h), one row per fact: a
    // value, or absent with the reason. Sessions recorded before have none ("not recorded").
    R"sql(
    CREATE TABLE session_environment (
        session_id INTEGER NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL DEFAULT '',
        absent TEXT NOT NULL DEFAULT '',
        seq INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, key)
    ) WITHOUT ROWID;
    )sql",
    // 5 -> 6: a session's rows go with it: each table that holds them is rebuilt with its
    // session_id a foreign key, ON DELETE CASCADE (the store turns foreign keys on for every
    // connection it opens, after migrating). Rows of a session that is no longer there are
    // not kept. Columns keep their order: import and the recorder insert by position. One
    // table at a time, so that the next reuses the pages the last one freed.
    R"sql(
    CREATE TABLE session_params_v6 (
        session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        tunable TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (session_id, tunable)
    ) WITHOUT ROWID;
    INSERT INTO session_params_v6 SELECT session_id, tunable, value FROM session_params
        WHERE session_id IN (SELECT id FROM sessions);
    DROP TABLE session_params;
    ALTER TABLE session_params_v6 RENAME TO session_params;
    CREATE TABLE param_changes_v6 (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        t REAL NOT NULL,
        tunable TEXT NOT NULL,
        old_value TEXT NOT NULL,
        new_value TEXT NOT NULL,
        source TEXT NOT NULL
    );
    INSERT INTO param_changes_v6 SELECT id, session_id, t, tunable, old_value, new_value, source FROM param_changes
        WHERE session_id IN (SELECT id FROM sessions);
    DROP TABLE param_changes;
    ALTER TABLE param_changes_v6 RENAME TO param_changes;
    CREATE TABLE events_v6 (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        t REAL NOT NULL,
        kind TEXT NOT NULL,
        message TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL DEFAULT ''
    );
    INSERT INTO events_v6 SELECT id, session_id, t, kind, message, source FROM events
        WHERE session_id IN (SELECT id FROM sessions);
    DROP TABLE events;
    ALTER TABLE events_v6 RENAME TO events;
    CREATE TABLE sample_times_v6 (
        session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        t REAL NOT NULL,
        interval REAL NOT NULL,
        stall TEXT NOT NULL DEFAULT '' CHECK (stall IN ('', 'sampler')),
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO sample_times_v6 SELECT session_id, seq, t, interval, stall FROM sample_times
        WHERE session_id IN (SELECT id FROM sessions);
    DROP TABLE sample_times;
    ALTER TABLE sample_times_v6 RENAME TO sample_times;
    CREATE TABLE samples_v6 (
        session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        metric_id INTEGER NOT NULL,
        value REAL NOT NULL,
        PRIMARY KEY (session_id, seq, metric_id)
    ) WITHOUT ROWID;
    INSERT INTO samples_v6 SELECT session_id, seq, metric_id, value FROM samples
        WHERE session_id IN (SELECT id FROM sessions);
    DROP TABLE samples;
    ALTER TABLE samples_v6 RENAME TO samples;
    CREATE TABLE session_environment_v6 (
        session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL DEFAULT '',
        absent TEXT NOT NULL DEFAULT '',
        seq INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, key)
    ) WITHOUT ROWID;
    INSERT INTO session_environment_v6 SELECT session_id, key, value, absent, seq FROM session_environment
        WHERE session_id IN (SELECT id FROM sessions);
    DROP TABLE session_environment;
    ALTER TABLE session_environment_v6 RENAME TO session_environment;
    CREATE INDEX param_changes_by_session ON param_changes (session_id, t);
    CREATE INDEX events_by_session ON events (session_id, t);
    )sql",
    // 6 -> 7: the engine's jobs (engine/store/job_store.h), ids never reused.
    R"sql(
    CREATE TABLE IF NOT EXISTS jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        state TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        job TEXT NOT NULL,
        pid INTEGER NOT NULL DEFAULT 0,
        pid_start INTEGER NOT NULL DEFAULT 0,
        boot_id TEXT NOT NULL DEFAULT '',
        host_name TEXT NOT NULL DEFAULT ''
    );
    )sql",
};
static_assert(kStallPeriods == 2.0 && std::size(kStallNames) == 2,
              "the 3 -> 4 migration and copyFrom spell the stall rule and names out");
static_assert(std::size(kMigrations) == kSchemaVersion);
} // namespace

std::span<const char *const> schemaMigrations()
{
    return kMigrations;
}

} // namespace ringlab
