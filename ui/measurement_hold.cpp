// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/measurement_hold.h"

#include <QCoreApplication>

namespace ringlab::ui {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("MeasurementHold", text);
}
} // namespace

QString MeasurementHold::blockedReason() const
{
    QString what;
    switch (kind) {
    case Kind::None:
        return {};
    case Kind::Run:
        what = tr("A run is measuring");
        break;
    case Kind::Sweep:
        what = tr("A sweep is measuring");
        break;
    case Kind::Tune:
        what = tr("A tune is measuring");
        break;
    case Kind::Reproduction:
        what = tr("A reproduction is measuring");
        break;
    }
    if (since.isValid()) what += tr(" (since %1)").arg(sinceText());
    if (!where.isEmpty()) what += QLatin1Char(' ') + where;
    return what + tr(": one measurement at a time");
}

QString MeasurementHold::sinceText() const
{
    return since.isValid() ? since.toLocalTime().toString(QStringLiteral("HH:mm:ss")) : QString();
}

QString MeasurementHold::stateLine() const
{
    QString line = stateText();
    if (!where.isEmpty()) line += QLatin1Char(' ') + where;
    if (since.isValid()) line += tr(" (since %1)").arg(sinceText());
    return line;
}

QString MeasurementHold::stateText() const
{
    QString verb;
    switch (kind) {
    case Kind::None:
        return {};
    case Kind::Run:
        verb = tr("running");
        break;
    case Kind::Sweep:
        verb = tr("sweeping");
        break;
    case Kind::Tune:
        verb = tr("tuning");
        break;
    case Kind::Reproduction:
        verb = tr("reproducing");
        break;
    }
    if (step > 0 && steps > 0) verb += QStringLiteral(" %1/%2").arg(step).arg(steps);
    return verb;
}

} // namespace ringlab::ui
