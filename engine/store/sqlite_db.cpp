// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/sqlite_db.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ringlab {

namespace {
std::string explain(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_NOTADB:
        return "not a SQLite database";
    case SQLITE_CORRUPT:
        return "the database file is corrupt";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "the database is locked by another writer";
    case SQLITE_READONLY:
        return "the database is read-only here";
    case SQLITE_FULL:
        return "the disk is full";
    case SQLITE_CANTOPEN:
        return "cannot open the file (missing directory or no permission)";
    case SQLITE_PERM:
        return "permission denied";
    case SQLITE_IOERR:
        return "input/output error";
    default:
        return sqlite3_errstr(rc);
    }
}

// What failed, in the system's words where it said: SQLite reports a full disk met while
// writing its journal or WAL as an I/O error; the system's errno tells which it was.
std::string explain(int rc, int systemErrno)
{
    const int primary = rc & 0xff;
    // Only where the error came from a system call: another code's errno may be stale.
    if (primary != SQLITE_IOERR && primary != SQLITE_FULL && primary != SQLITE_CANTOPEN)
        return explain(rc);
    if (systemErrno == ENOSPC || systemErrno == EDQUOT)
        return std::string("no space left (") + std::strerror(systemErrno) + ")";
    if (primary != SQLITE_FULL && systemErrno != 0)
        return explain(rc) + ": " + std::strerror(systemErrno);
    return explain(rc);
}

bool sqlWordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
} // namespace

std::string sqlStatementName(const std::string &sql)
{
    // A query by its table: "SELECT ... FROM sessions" (its columns say little).
    std::string shouted;
    for (char c : sql)
        shouted += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::size_t start = shouted.find_first_not_of(" \t\n");
    if (start != std::string::npos && shouted.compare(start, 7, "SELECT ") == 0) {
        const std::size_t from = shouted.find(" FROM ", start);
        if (from == std::string::npos) return "SELECT";
        std::size_t t = from + 6, end = t;
        while (end < sql.size() && sqlWordChar(sql[end]))
            ++end;
        return "SELECT ... FROM " + sql.substr(t, std::min<std::size_t>(end - t, 60));
    }
    // Up to the first list, value or condition: "INSERT INTO samples", "UPDATE sessions";
    // whole words, at most 60 characters.
    std::string out;
    std::size_t i = 0;
    while (i < sql.size()) {
        while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i])))
            ++i;
        std::size_t end = i;
        while (end < sql.size() && (sqlWordChar(sql[end]) || sql[end] == ',' || sql[end] == '*'))
            ++end;
        if (end == i) break; // '(' or anything else: the statement's body begins
        std::string word = sql.substr(i, end - i);
        std::string upper;
        for (char c : word)
            upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (upper == "VALUES" || upper == "WHERE" || upper == "SET" || upper == "ORDER" ||
            upper == "LIMIT" || upper == "ON" || upper == "GROUP")
            break;
        if (out.size() + 1 + word.size() > 60) break;
        out += (out.empty() ? "" : " ") + word;
        i = end;
    }
    return out.empty() ? std::string("a statement") : out;
}

void Db::open(const std::string &name, int flags)
{
    const int rc = sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        const std::string msg =
            "database " + file_.string() + ": " + explain(rc, db_ ? sqlite3_system_errno(db_) : 0);
        sqlite3_close(db_);
        db_ = nullptr;
        throw DbError(msg);
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, 2000);
}

Db::Db(const std::filesystem::path &file, Mode mode) : file_(file)
{
    // SQLite opens a directory as a file it cannot read.
    if (std::error_code ec; std::filesystem::is_directory(file, ec))
        throw DbError("database " + file.string() + ": is a directory; give a file in it");
    open(file.string(), mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY
                                               : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (mode == Mode::ReadOnly && !readable()) {
        // A WAL database whose -shm cannot be created (a read-only folder or share): SQLite
        // can only read it as immutable, i.e. without seeing another process's writes.
        sqlite3_close(db_);
        db_ = nullptr;
        std::string uri = "file:";
        for (unsigned char c : file.string()) {
            if (std::isalnum(c) || std::strchr("/._-~", c)) {
                uri += static_cast<char>(c);
            } else {
                char hex[4];
                std::snprintf(hex, sizeof hex, "%%%02X", c);
                uri += hex;
            }
        }
        uri += "?immutable=1";
        open(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    }
}

std::string Db::serialize()
{
    sqlite3_int64 size = 0;
    unsigned char *bytes = sqlite3_serialize(db_, "main", &size, 0);
    if (!bytes) fail("serialize", SQLITE_NOMEM);
    std::string out(reinterpret_cast<const char *>(bytes), static_cast<std::size_t>(size));
    sqlite3_free(bytes);
    return out;
}

bool Db::readable()
{
    sqlite3_stmt *q = nullptr;
    if (sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &q, nullptr) != SQLITE_OK) return false;
    const int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

Db::~Db()
{
    sqlite3_close(db_);
}

void Db::fail(const std::string &what, int rc) const
{
    const int sysErrno = db_ ? sqlite3_system_errno(db_) : 0;
    const std::string why = explain(rc, sysErrno);
    std::string msg = "database " + file_.string() + ": " + what + ": " + why;
    const char *detail = db_ ? sqlite3_errmsg(db_) : nullptr;
    // SQLite's own words when they add something ("disk I/O error" does not).
    if (detail && explain(rc) != detail && std::strcmp(detail, sqlite3_errstr(rc)) != 0)
        msg += std::string(" (") + detail + ")";
    throw DbError(msg, rc,
                  (rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_FULL ? sysErrno : 0);
}

void Db::exec(const std::string &sql)
{
    char *err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    sqlite3_free(err);
    if (rc != SQLITE_OK) fail(sqlStatementName(sql), rc);
}

Stmt Db::prepare(const std::string &sql)
{
    sqlite3_stmt *s = nullptr;
    const int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr);
    if (rc != SQLITE_OK) fail("preparing " + sqlStatementName(sql), rc);
    return Stmt(*this, s);
}

Stmt &Stmt::bind(int i, std::int64_t v)
{
    sqlite3_bind_int64(s_, i, v);
    return *this;
}
Stmt &Stmt::bind(int i, double v)
{
    sqlite3_bind_double(s_, i, v);
    return *this;
}
Stmt &Stmt::bind(int i, const std::string &v)
{
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
}
Stmt &Stmt::bindNull(int i)
{
    sqlite3_bind_null(s_, i);
    return *this;
}

bool Stmt::step()
{
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_->fail("executing " + sqlStatementName(sqlite3_sql(s_)), rc);
}

void Stmt::reset()
{
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
}

std::string Stmt::text(int col) const
{
    // By length, not up to the first NUL: a label typed with a NUL in it comes back whole.
    const auto *p = sqlite3_column_text(s_, col);
    return p ? std::string(reinterpret_cast<const char *>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(s_, col)))
             : std::string();
}

} // namespace ringlab
