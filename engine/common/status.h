// SPDX-License-Identifier: GPL-2.0-or-later
// The core's one error convention.
//
// A function that can fail for a reason from outside (a profile, a value, a file, a
// database, a request) returns a Status. The type is [[nodiscard]], so the compiler
// refuses a caller that drops it (-Werror). On failure, error is one sentence that names
// the thing, the value and what is allowed; a caller adds context in front, never
// rewords it. Values come back through out-parameters, set only on success.
//
// Exceptions stay inside two places, where a resource either is had or is not:
//  - the datapath's parts throw from their constructors when memory, a timer or a thread
//    cannot be had (a part holds its resource or does not exist), and a device's factory
//    when the device cannot be had; Engine::create(), Engine::start() and a live restart
//    turn that into a Status, so nothing above the engine sees them;
//  - the store's SQLite failures (DbError, store/sqlite_db.h), which any statement may
//    raise (a full disk, a lock held too long, a damaged file): a session's reads and
//    writes are sequences of statements, and they are caught where a sequence ends, at a
//    program's edge (a command, RunService, the recorder, a dialog) and reported there.
// None reaches Qt's event loop or a datapath thread.
#pragma once

#include <string>
#include <utility>

namespace ringlab {

struct [[nodiscard]] Status {
    std::string error;
    bool ok() const { return error.empty(); }
    static Status success() { return {}; }
    static Status failure(std::string why) { return Status{std::move(why)}; }
};

} // namespace ringlab
