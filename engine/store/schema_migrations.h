// SPDX-License-Identifier: GPL-2.0-or-later
// The session database's schema, as the steps that make it: step K takes a database from
// version K (PRAGMA user_version) to K + 1; a new file takes them all (SessionStore::migrate).
// A step is never changed once released: a new version is a new step.
#pragma once

#include <span>

namespace ringlab {

// kSchemaVersion steps of SQL, in order.
std::span<const char *const> schemaMigrations();

} // namespace ringlab
