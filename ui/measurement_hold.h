// SPDX-License-Identifier: GPL-2.0-or-later
// What holds the measurement: a run, a sweep, a tune or a reproduction. The window measures
// one at a time (two would share the CPU and spoil both), so each of them is refused while
// another holds it, and the window says which does: Start's reason, the status bar's state.
#pragma once

#include <QDateTime>
#include <QString>

namespace ringlab::ui {

struct MeasurementHold {
    enum class Kind { None, Run, Sweep, Tune, Reproduction };
    Kind kind = Kind::None;
    QDateTime since; // when it began
    int step = 0;    // the run being measured, from 1 (0: not known yet)
    int steps = 0;   // of how many
    QString where;   // where it goes on: "in the Sweep tab", "on ringlab-engine … (URL)"

    bool held() const { return kind != Kind::None; }
    // "A sweep is measuring (since 10:42:03): one measurement at a time"
    QString blockedReason() const;
    // The status bar's state: "running", "sweeping 3/7", "tuning 2/20", "reproducing 1/6".
    QString stateText() const;
    // "sweeping 3/7 in the Sweep tab (since 10:42:03)"
    QString stateLine() const;
    // "10:42:03", local time; empty when not known.
    QString sinceText() const;
};

} // namespace ringlab::ui
