// SPDX-License-Identifier: GPL-2.0-or-later
// A chart series' data without a widget (as PlotJuggler's plot database beside its plots):
// its points in time order and a pyramid of min/max blocks (64, 4096, ... points), so that
// drawing a window costs about the plot's width in columns whatever the session's length;
// the value a legend reads at a time; and the running sum a stacked chart draws. Built on
// any thread (a session read on a worker), then adopted by a TimeChart on the GUI thread.
#pragma once

#include <QList>
#include <QPointF>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace ringlab::ui {

struct SeriesPoints {
    // The lowest and the highest point of a run of points.
    struct Extremes {
        QPointF lo, hi;
    };
    std::vector<QPointF> points;
    // levels[k][b]: the extremes of points [b * 64^(k+1), (b + 1) * 64^(k+1)), whole blocks only.
    std::vector<std::vector<Extremes>> levels;
    static constexpr std::size_t kBlock = 64;
    static constexpr std::size_t kMaxLevels = 4; // 64 .. 16.7 M points a block

    void push(const QPointF &p); // non-finite values are left out
    // The points of `later` (all after these) added at once: the same as pushing each.
    void extend(const SeriesPoints &later);
    // [first, last) of the points around [from, to]: those inside and one each side (the line
    // entering and leaving the window).
    std::pair<std::size_t, std::size_t> window(double from, double to) const;
    // The points around [from, to], at most the min and the max per column of `columns`
    // (in time order): every peak survives at any zoom.
    QList<QPointF> decimate(double from, double to, int columns) const;
    // The newest value at or before t, unless more than `maxAge` seconds or a gap (a time of
    // `gaps`, in order: a stall the engine recorded) lies between.
    std::optional<double> valueAt(double t, double maxAge, const std::vector<double> &gaps) const;
};

// A stack's running sum in [from, to] with `layer` added: at each time either has, the sum
// of both there. The figures of one sample share its time; a time only one of them has is
// a sample where the other had no value (a NAPI that came or went), which adds nothing.
SeriesPoints stackOn(const SeriesPoints &below, const SeriesPoints &layer, double from, double to);

} // namespace ringlab::ui
