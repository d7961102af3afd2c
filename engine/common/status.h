// SPDX-License-Identifier: GPL-2.0-or-later
// The core's one error convention.
//
// A function that can fail for a reason from outside (a profile, a value, a file, a
// database, a request) returns a Status. The type is [[nodiscard]], so the compiler
// refuses a caller that drops it (-Werror). On failure, error is one sentence that names
// the thing, the value and what is allowed; a caller adds context in front, never
// rewords it. Values come back through out-parameters, set only on success.
//
// Exceptions are left for what the caller cannot act on at that point: memory or a
// timer that cannot be had (the datapath's constructors), and the store's SQLite
// failures (DbError, store/sqlite_db.h), which may come from any statement. They are
// caught at a program's edge (a command, RunService, a dialog) and reported there;
// none reaches Qt's event loop or a datapath thread.
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
