// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/import_check.h"

#include <string>
#include <vector>

#include "engine/common/environment_facts.h"
#include "engine/common/utf8_text.h"
#include "engine/datapath/sample.h"

namespace ringlab {
namespace {

enum class Kind { Integer, Number, Text, TextOrNull };

struct Column {
    const char *name;
    Kind kind;
    int since = 1; // the schema version that added it
};

struct Table {
    const char *name;
    std::vector<Column> columns;
    int since = 1; // the schema version that added it
};

// The columns import reads, as the migrations in session_store.cpp define them.
const std::vector<Table> &importedTables()
{
    using K = Kind;
    static const std::vector<Table> kTables = {
        {"sessions",
         {{"id", K::Integer},
          {"uuid", K::Text},
          {"name", K::Text},
          {"created_at", K::Text},
          {"ended_at", K::TextOrNull},
          {"status", K::Text},
          {"device", K::Text},
          {"profile", K::Text},
          {"host_name", K::Text},
          {"host_cpu", K::Text},
          {"host_cores", K::Integer},
          {"host_kernel", K::Text},
          {"engine_version", K::Text},
          {"git_revision", K::Text},
          {"interval_s", K::Number},
          {"notes", K::Text},
          {"run_group", K::Text, 2},
          {"repeat_index", K::Integer, 2}}},
        {"session_params", {{"session_id", K::Integer}, {"tunable", K::Text}, {"value", K::Text}}},
        {"param_changes",
         {{"session_id", K::Integer},
          {"t", K::Number},
          {"tunable", K::Text},
          {"old_value", K::Text},
          {"new_value", K::Text},
          {"source", K::Text}}},
        {"events",
         {{"session_id", K::Integer},
          {"t", K::Number},
          {"kind", K::Text},
          {"message", K::Text},
          {"source", K::Text}}},
        {"metrics",
         {{"id", K::Integer}, {"name", K::Text}, {"unit", K::Text}, {"thread", K::Text}}},
        {"sample_times",
         {{"session_id", K::Integer},
          {"seq", K::Integer},
          {"t", K::Number},
          {"interval", K::Number},
          {"stall", K::Text, 4}}},
        {"samples",
         {{"session_id", K::Integer},
          {"seq", K::Integer},
          {"metric_id", K::Integer},
          {"value", K::Number}}},
        {"session_environment",
         {{"session_id", K::Integer},
          {"key", K::Text},
          {"value", K::Text},
          {"absent", K::Text},
          {"seq", K::Integer}},
         5},
    };
    return kTables;
}

struct KindText {
    const char *sqlTypes; // what typeof() may answer
    const char *name;     // for the message
};
// Indexed by Kind.
constexpr KindText kKinds[] = {
    {"'integer'", "an integer"},
    {"'integer', 'real'", "a number"},
    {"'text'", "text"},
    {"'text', 'null'", "text or nothing"},
};
const KindText &textOf(Kind k)
{
    return kKinds[static_cast<int>(k)];
}

// Table and column names come from the list above, never from the other file.
std::string quotedName(const char *name)
{
    return std::string("\"") + name + "\"";
}

// SQLite's own check of the file's structure.
void checkIntact(Db &other, const std::string &file)
{
    auto q = other.prepare("PRAGMA quick_check(1)");
    if (!q.step() || q.text(0) != "ok")
        throw DbError(file + ": damaged (" + (q.text(0).empty() ? "no answer" : q.text(0)) +
                      "); nothing was imported");
}

// What `name` is in the file's schema (table, view, ...); empty when it has none.
std::string schemaType(Db &other, const char *name)
{
    std::string type;
    auto q = other.prepare("SELECT type FROM sqlite_schema WHERE name = ?1");
    q.bind(1, name);
    if (q.step()) type = q.text(0);
    return type;
}

// The names of a table's columns.
std::vector<std::string> columnNames(Db &other, const char *table)
{
    std::vector<std::string> have;
    auto q = other.prepare("SELECT name FROM pragma_table_info(?1)");
    q.bind(1, table);
    while (q.step())
        have.push_back(q.text(0));
    return have;
}

// That every value of the `checked` columns is of the column's kind. One pass over the table
// for all its columns (`counts`: a count of wrong values per column); an example only for a
// column that fails.
void checkColumnKinds(Db &other, const Table &table, const std::vector<const Column *> &checked,
                      const std::string &counts, const std::string &file,
                      const std::string &notOurs)
{
    auto q = other.prepare("SELECT " + counts + " FROM " + quotedName(table.name));
    if (!q.step()) return;
    for (std::size_t k = 0; k < checked.size(); ++k) {
        const std::int64_t bad = q.i64(static_cast<int>(k));
        if (bad == 0) continue;
        const Column &c = *checked[k];
        auto ex = other.prepare("SELECT substr(quote(" + quotedName(c.name) + "), 1, 40) FROM " +
                                quotedName(table.name) + " WHERE typeof(" + quotedName(c.name) +
                                ") NOT IN (" + textOf(c.kind).sqlTypes + ") LIMIT 1");
        const std::string example = ex.step() ? terminalText(ex.text(0)) : "?";
        throw DbError(file + ": table " + table.name + ", column " + c.name + ": " +
                      std::to_string(bad) + " row(s) hold something other than " +
                      textOf(c.kind).name + " (e.g. " + example + ")" + notOurs +
                      "; nothing was imported");
    }
}

// One of the tables import reads: a table, with each column this schema version has, each
// holding values of its kind.
void checkTable(Db &other, const Table &table, int schemaVersion, const std::string &file,
                const std::string &notOurs)
{
    const std::string type = schemaType(other, table.name);
    if (type.empty()) throw DbError(file + ": has no table " + table.name + notOurs);
    if (type != "table")
        throw DbError(file + ": " + table.name + " is a " + type + ", not a table" + notOurs);
    const std::vector<std::string> have = columnNames(other, table.name);
    std::vector<const Column *> checked;
    std::string counts;
    for (const auto &c : table.columns) {
        if (c.since > schemaVersion) continue;
        bool found = false;
        for (const auto &h : have)
            found |= h == c.name;
        if (!found)
            throw DbError(file + ": table " + table.name + " has no column " + c.name + notOurs);
        checked.push_back(&c);
        counts += std::string(counts.empty() ? "" : ", ") + "COALESCE(SUM(typeof(" +
                  quotedName(c.name) + ") NOT IN (" + textOf(c.kind).sqlTypes + ")), 0)";
    }
    checkColumnKinds(other, table, checked, counts, file, notOurs);
}

// A fact is one of environment_facts.h's keys, and a value or absent with a reason.
void checkEnvironmentFacts(Db &other, const std::string &file, const std::string &notOurs)
{
    auto q = other.prepare("SELECT DISTINCT key FROM session_environment");
    while (q.step()) {
        const std::string key = q.text(0);
        if (!findFactSpec(key))
            throw DbError(file + ": table session_environment, column key: \"" +
                          terminalText(key.substr(0, 60)) +
                          "\" is not a fact Ringlab records (e.g. kernel.release, "
                          "cpu.governor[0])" +
                          notOurs + "; nothing was imported");
    }
    auto both = other.prepare(
        "SELECT COUNT(*) FROM session_environment WHERE absent <> '' AND value <> ''");
    if (both.step() && both.i64(0) > 0)
        throw DbError(file + ": table session_environment: " + std::to_string(both.i64(0)) +
                      " fact(s) hold both a value and a reason for its absence (allowed: "
                      "one or the other)" +
                      notOurs + "; nothing was imported");
}

// A stall is one of the engine's names (kStallNames), as this schema's CHECK says.
void checkStallNames(Db &other, const std::string &file, const std::string &notOurs)
{
    std::string names, allowed;
    for (const char *n : kStallNames) {
        names += std::string(names.empty() ? "" : ", ") + "'" + n + "'";
        allowed += std::string(allowed.empty() ? "" : ", ") + "\"" + n + "\"";
    }
    auto q = other.prepare("SELECT COUNT(*) FROM sample_times WHERE stall NOT IN (" + names + ")");
    if (q.step() && q.i64(0) > 0)
        throw DbError(file + ": table sample_times, column stall: " + std::to_string(q.i64(0)) +
                      " row(s) hold a value that is not a stall " + "(allowed: " + allowed + ")" +
                      notOurs + "; nothing was imported");
}

} // namespace

void checkImportable(Db &other, int schemaVersion)
{
    const std::string file = "database " + other.file().string();
    const std::string notOurs = "; it was not written by Ringlab, or was changed by hand";
    checkIntact(other, file);
    for (const auto &table : importedTables())
        if (table.since <= schemaVersion) checkTable(other, table, schemaVersion, file, notOurs);
    if (schemaVersion >= 5) checkEnvironmentFacts(other, file, notOurs);
    if (schemaVersion >= 4) checkStallNames(other, file, notOurs);
}

} // namespace ringlab
