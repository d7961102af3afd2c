// SPDX-License-Identifier: GPL-2.0-or-later
// File icons and types from the file's name alone. Qt's default provider asks the MIME
// database, which opens a file whose name is ambiguous (x.db) to sniff its content; opening
// and closing the session database (or its -wal and -shm) outside SQLite drops SQLite's POSIX
// locks for the whole process, and the next sqlite3 the user runs deletes the WAL under us.
// Every file dialog of the application uses this provider.
#pragma once

#include <QFileIconProvider>

namespace ringlab::ui {

class NameOnlyIconProvider final : public QFileIconProvider {
  public:
    using QFileIconProvider::icon; // the style's icons for drives, folders, the computer
    QIcon icon(const QFileInfo &info) const override;
    QString type(const QFileInfo &info) const override;
};

} // namespace ringlab::ui
