// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/series_points.h"

#include <algorithm>
#include <cmath>

namespace ringlab::ui {

namespace {
void widen(QPointF &lo, QPointF &hi, const QPointF &lo2, const QPointF &hi2)
{
    if (lo2.y() < lo.y()) lo = lo2;
    if (hi2.y() > hi.y()) hi = hi2;
}
} // namespace

void SeriesPoints::push(const QPointF &p)
{
    if (!std::isfinite(p.y())) return;
    // Grow geometrically (a live run adds a point ten times a second to an hour's).
    if (points.size() == points.capacity())
        points.reserve(std::max<std::size_t>(64, 2 * points.size()));
    points.push_back(p);
    // Each level closes a block when its last point (or last lower block) arrives.
    std::size_t size = kBlock, n = points.size();
    for (std::size_t k = 0; k < kMaxLevels && n % size == 0; ++k, size *= kBlock) {
        if (levels.size() <= k) levels.emplace_back();
        Extremes e{points[n - size], points[n - size]};
        if (k == 0) {
            for (std::size_t i = n - size; i < n; ++i)
                widen(e.lo, e.hi, points[i], points[i]);
        } else {
            const auto &below = levels[k - 1];
            for (std::size_t b = below.size() - kBlock; b < below.size(); ++b)
                widen(e.lo, e.hi, below[b].lo, below[b].hi);
        }
        levels[k].push_back(e);
    }
}

void SeriesPoints::extend(const SeriesPoints &later)
{
    // Copied at once (their values are finite already), then the blocks they close, level by
    // level: a session read in parts is joined without a push per point.
    points.insert(points.end(), later.points.begin(), later.points.end());
    std::size_t size = kBlock;
    for (std::size_t k = 0; k < kMaxLevels; ++k, size *= kBlock) {
        if (levels.size() <= k) {
            if (points.size() < size) break; // as push(): a level once it has a block
            levels.emplace_back();
        }
        std::vector<Extremes> &level = levels[k];
        for (std::size_t b = level.size(); (b + 1) * size <= points.size(); ++b) {
            Extremes e;
            if (k == 0) {
                e = {points[b * size], points[b * size]};
                for (std::size_t i = b * size; i < (b + 1) * size; ++i)
                    widen(e.lo, e.hi, points[i], points[i]);
            } else {
                const auto &below = levels[k - 1];
                e = below[b * kBlock];
                for (std::size_t i = b * kBlock; i < (b + 1) * kBlock; ++i)
                    widen(e.lo, e.hi, below[i].lo, below[i].hi);
            }
            level.push_back(e);
        }
    }
}

std::pair<std::size_t, std::size_t> SeriesPoints::window(double from, double to) const
{
    auto lo = std::lower_bound(points.begin(), points.end(), from,
                               [](const QPointF &p, double t) { return p.x() < t; });
    auto hi = std::upper_bound(points.begin(), points.end(), to,
                               [](double t, const QPointF &p) { return t < p.x(); });
    if (lo != points.begin()) --lo;
    if (hi != points.end()) ++hi;
    return {static_cast<std::size_t>(lo - points.begin()),
            static_cast<std::size_t>(hi - points.begin())};
}

QList<QPointF> SeriesPoints::decimate(double from, double to, int columns) const
{
    const std::vector<QPointF> &pts = points;
    const auto [first, end] = window(from, to);
    QList<QPointF> out;
    const auto n = static_cast<qsizetype>(end - first);
    if (n <= 2 * static_cast<qsizetype>(columns)) {
        out.reserve(n);
        for (std::size_t i = first; i < end; ++i)
            out.append(pts[i]);
        return out;
    }
    // Min and max per pixel column, in time order: peaks survive, the line stays honest. A
    // whole block of the pyramid inside one column counts as its two extremes, so a column
    // costs about the pyramid's depth, not its points.
    out.reserve(2 * columns + 4);
    const double width = (to - from) / columns;
    auto column = [&](double x) { return static_cast<long>(std::floor((x - from) / width)); };
    std::size_t i = first;
    while (i < end) {
        const long col = column(pts[i].x());
        QPointF mn = pts[i], mx = pts[i];
        while (i < end && column(pts[i].x()) == col) {
            std::size_t step = 1;
            std::size_t size = kBlock;
            for (std::size_t k = 0; k < levels.size(); ++k, size *= kBlock) {
                if (i % size != 0 || i + size > end || column(pts[i + size - 1].x()) != col) break;
                step = size;
            }
            if (step == 1) {
                widen(mn, mx, pts[i], pts[i]);
            } else {
                std::size_t k = 0;
                for (std::size_t sz = kBlock; sz < step; sz *= kBlock)
                    ++k;
                const Extremes &e = levels[k][i / step];
                widen(mn, mx, e.lo, e.hi);
            }
            i += step;
        }
        if (mn.x() <= mx.x()) {
            out.append(mn);
            if (mx != mn) out.append(mx);
        } else {
            out.append(mx);
            out.append(mn);
        }
    }
    return out;
}

std::optional<double> SeriesPoints::valueAt(double t, double maxAge,
                                            const std::vector<double> &gaps) const
{
    auto hi = std::upper_bound(points.begin(), points.end(), t,
                               [](double v, const QPointF &p) { return v < p.x(); });
    if (hi == points.begin()) return std::nullopt;
    const QPointF &p = *(hi - 1);
    if (t - p.x() > maxAge) return std::nullopt;
    // A gap after p: its value does not reach t.
    auto g = std::upper_bound(gaps.begin(), gaps.end(), p.x());
    if (g != gaps.end() && *g <= t) return std::nullopt;
    return p.y();
}

SeriesPoints stackOn(const SeriesPoints &below, const SeriesPoints &layer, double from, double to)
{
    const auto [i0, i1] = below.window(from, to);
    const auto [j0, j1] = layer.window(from, to);
    const std::vector<QPointF> &a = below.points, &b = layer.points;
    SeriesPoints out; // no pyramid: a window's sum is drawn once
    out.points.reserve((i1 - i0) + (j1 - j0));
    std::size_t i = i0, j = j0;
    while (i < i1 || j < j1) {
        if (j == j1 || (i < i1 && a[i].x() < b[j].x())) {
            out.points.push_back(a[i++]);
        } else if (i == i1 || b[j].x() < a[i].x()) {
            out.points.push_back(b[j++]);
        } else {
            out.points.emplace_back(a[i].x(), a[i].y() + b[j].y());
            ++i;
            ++j;
        }
    }
    return out;
}

} // namespace ringlab::ui
