// SPDX-License-Identifier: GPL-2.0-or-later
// What `sessions import` checks in the other database before it copies a byte: that every
// table it reads is a table (a view may be recursive and never end), has the columns this
// schema version has, and holds values of the types Ringlab writes (an id that is text would
// file its rows under session 0). With views refused, the copy is one pass over each table.
#pragma once

#include "engine/store/sqlite_db.h"

namespace ringlab {

// Throws DbError naming the file, the table, the column and what was found.
void checkImportable(Db &other, int schemaVersion);

} // namespace ringlab
