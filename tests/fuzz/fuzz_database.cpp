// SPDX-License-Identifier: GPL-2.0-or-later
// A session database from outside (a colleague's file, a damaged disk): any bytes as the
// file. It is opened read-only and everything `sessions list/show/export` and `compare` read
// is read; then it is imported into a fresh database. A DbError (a clear refusal) is the only
// way out allowed.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/store/session_compare.h"
#include "engine/store/session_report.h"
#include "engine/store/session_store.h"
#include "tests/fuzz/fuzz_target.h"

namespace fs = std::filesystem;

namespace ringlab::fuzz {
namespace {

// A folder of this process's own, removed when it ends.
const fs::path &scratch()
{
    struct Dir {
        fs::path path;
        Dir() : path(fs::temp_directory_path() / ("ringlab-fuzz-" + std::to_string(getpid())))
        {
            fs::create_directories(path);
        }
        ~Dir()
        {
            std::error_code ec;
            fs::remove_all(path, ec);
        }
    };
    static const Dir dir;
    return dir.path;
}

void readEverything(SessionStore &store)
{
    for (const auto &s : store.list()) {
        (void)store.params(s.id);
        const SampleTable tab = store.samples(s.id);
        (void)segmentsOf(tab, store.changes(s.id), 1.0);
        (void)store.events(s.id);
        std::ostringstream csv, json;
        exportCsv(store, s.id, csv);
        exportJson(store, s.id, json);
        (void)loadCompareSide(store, std::to_string(s.id), 1.0);
    }
}

} // namespace

int database(const std::uint8_t *data, std::size_t size)
{
    const fs::path other = scratch() / "other.db", mine = scratch() / "mine.db";
    for (const auto &f : {other, mine})
        for (const char *suffix : {"", "-wal", "-shm", "-journal"})
            fs::remove(f.string() + suffix);
    {
        std::ofstream out(other, std::ios::binary);
        out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
    }
    try {
        SessionStore store(other, Db::Mode::ReadOnly);
        readEverything(store);
    } catch (const DbError &) {
    }
    try {
        SessionStore store(mine);
        store.importFrom(other);
        readEverything(store);
    } catch (const DbError &) {
    }
    return 0;
}

} // namespace ringlab::fuzz

RINGLAB_FUZZ_ENTRY(database)
