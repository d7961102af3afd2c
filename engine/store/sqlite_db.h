// SPDX-License-Identifier: GPL-2.0-or-later
// A thin RAII layer over the sqlite3 C API: a connection, prepared statements, and
// transactions, with errors that name the database file and SQLite's own reason.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace ringlab {

class DbError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
    DbError(const std::string &what, int code, int systemErrno)
        : std::runtime_error(what), code_(code), systemErrno_(systemErrno)
    {
    }
    // The cause, apart from the statement that met it: SQLite's (extended) result code and
    // the system's errno where it came from a system call (0: none).
    int code() const { return code_; }
    int systemErrno() const { return systemErrno_; }

  private:
    int code_ = 0, systemErrno_ = 0;
};

class Stmt;

// A statement as messages name it: its leading words, whole, up to its first list, value or
// condition ("INSERT INTO samples", "UPDATE sessions"), a query by its table ("SELECT ...
// FROM sessions"), never cut inside a word.
std::string sqlStatementName(const std::string &sql);

class Db {
  public:
    enum class Mode { ReadWrite, ReadOnly };
    // Opens (and for ReadWrite creates) the file; throws DbError naming the file and cause.
    Db(const std::filesystem::path &file, Mode mode);
    ~Db();
    Db(const Db &) = delete;
    // Whether a first read works (a read-only WAL database may need opening as immutable).
    bool readable();
    Db &operator=(const Db &) = delete;

    void exec(const std::string &sql);
    Stmt prepare(const std::string &sql);
    std::int64_t lastInsertId() const { return sqlite3_last_insert_rowid(db_); }
    int changes() const { return sqlite3_changes(db_); }
    const std::filesystem::path &file() const { return file_; }
    sqlite3 *handle() { return db_; }
    // The main database as the bytes of a database file (sqlite3_serialize).
    std::string serialize();
    // "database /x/sessions.db: <what>: <sqlite message>"
    [[noreturn]] void fail(const std::string &what, int rc) const;

  private:
    void open(const std::string &name, int flags); // the file itself, or a file: URI
    sqlite3 *db_ = nullptr;
    std::filesystem::path file_;
};

class Stmt {
  public:
    Stmt(Db &db, sqlite3_stmt *s) : db_(&db), s_(s) {}
    Stmt(Stmt &&o) noexcept : db_(o.db_), s_(o.s_) { o.s_ = nullptr; }
    ~Stmt() { sqlite3_finalize(s_); }

    Stmt &bind(int i, std::int64_t v);
    Stmt &bind(int i, int v) { return bind(i, std::int64_t{v}); }
    Stmt &bind(int i, double v);
    Stmt &bind(int i, const std::string &v);
    Stmt &bind(int i, const char *v) { return bind(i, std::string(v)); }
    Stmt &bindNull(int i);
    // True while a row is available.
    bool step();
    void run()
    {
        while (step()) {
        }
    }
    void reset();

    std::int64_t i64(int col) const { return sqlite3_column_int64(s_, col); }
    double real(int col) const { return sqlite3_column_double(s_, col); }
    std::string text(int col) const;
    bool isNull(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }

  private:
    Db *db_;
    sqlite3_stmt *s_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back if not committed.
class Transaction {
  public:
    explicit Transaction(Db &db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
    ~Transaction()
    {
        if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit()
    {
        db_.exec("COMMIT");
        done_ = true;
    }

  private:
    Db &db_;
    bool done_ = false;
};

} // namespace ringlab
