// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/name_only_icon_provider.h"

#include <QFileInfo>
#include <QIcon>
#include <QMimeDatabase>

namespace ringlab::ui {

QIcon NameOnlyIconProvider::icon(const QFileInfo &info) const
{
    if (info.isDir()) return icon(Folder);
    // MatchExtension: the name's glob patterns only; the file is never opened.
    const QMimeType mime = QMimeDatabase().mimeTypeForFile(info, QMimeDatabase::MatchExtension);
    return QIcon::fromTheme(mime.iconName(), QIcon::fromTheme(mime.genericIconName(), icon(File)));
}

QString NameOnlyIconProvider::type(const QFileInfo &info) const
{
    if (info.isDir()) return QObject::tr("Folder");
    return QMimeDatabase().mimeTypeForFile(info, QMimeDatabase::MatchExtension).comment();
}

} // namespace ringlab::ui
