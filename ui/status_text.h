// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's Status (engine/common/status.h) with the desktop's text: a refusal or failure
// made from a QString, and the reason back as one.
#pragma once

#include <QString>

#include "engine/common/status.h"

namespace ringlab::ui {

inline Status refusedBecause(const QString &why)
{
    return Status::refused(why.toStdString());
}
inline Status failedBecause(const QString &why)
{
    return Status::failed(why.toStdString());
}
inline QString errorText(const Status &st)
{
    return QString::fromStdString(st.error);
}
// Whether it succeeded; `why` gets the reason when not (empty when it did).
inline bool succeeded(const Status &st, QString &why)
{
    why = errorText(st);
    return st.ok();
}

} // namespace ringlab::ui
