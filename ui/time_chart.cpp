// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/time_chart.h"

#include <QCursor>
#include <QGraphicsSimpleTextItem>
#include <QLegendMarker>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "ui/thread_colors.h"

namespace ringlab::ui {

TimeChart::TimeChart(const QString &title, const QString &unit, bool logScale, QWidget *parent)
    // The chart is given to the view's constructor: QChartView(parent) would make a default
    // chart of its own, which setChart() then releases without deleting (LeakSanitizer: 592 KB
    // per GUI test run).
    : QChartView(new QChart(), parent), unit_(unit), log_(logScale)
{
    QChart *c = chart();
    c->setTitle(title);
    c->legend()->setAlignment(Qt::AlignRight);
    c->setMargins(QMargins(4, 2, 4, 2));
    c->setAnimationOptions(QChart::NoAnimation);
    x_ = new QValueAxis;
    x_->setTitleText(tr("time (s)"));
    x_->setLabelFormat("%.0f");
    c->addAxis(x_, Qt::AlignBottom);
    if (log_) {
        auto *y = new QLogValueAxis;
        y->setLabelFormat("%g");
        y->setBase(10);
        y_ = y;
    } else {
        auto *y = new QValueAxis;
        y->setLabelFormat("%.0f");
        y_ = y;
    }
    y_->setTitleText(unit_);
    c->addAxis(y_, Qt::AlignLeft);
    connect(c, &QChart::plotAreaChanged, this, [this] { placeMarkers(); });
    // No antialiasing: with thousands of points it costs the GUI thread more than it shows.
    setRenderHint(QPainter::Antialiasing, false);
    setMinimumHeight(150);
}

void TimeChart::addRightAxis(const QString &unit)
{
    yRight_ = new QValueAxis;
    yRight_->setLabelFormat("%.0f");
    yRight_->setTitleText(unit);
    chart()->addAxis(yRight_, Qt::AlignRight);
}

void TimeChart::append(const QString &name, double t, double value, bool dashed,
                       const QString &colorKey)
{
    add(name, t, value, dashed, colorKey, false);
}

void TimeChart::appendRight(const QString &name, double t, double value, bool dashed,
                            const QString &colorKey)
{
    add(name, t, value, dashed, colorKey, yRight_ != nullptr);
}

void TimeChart::add(const QString &name, double t, double value, bool dashed,
                    const QString &colorKey, bool right)
{
    if (!std::isfinite(value) || (!right && log_ && value <= 0))
        return; // nothing to draw on this axis
    auto it = series_.find(name);
    if (it == series_.end()) {
        Series s;
        s.line = new QLineSeries;
        s.line->setName(name);
        QPen pen(ThreadColors::of(colorKey.isEmpty() ? name : colorKey));
        pen.setWidthF(1.6);
        if (dashed) pen.setStyle(Qt::DashLine);
        s.line->setPen(pen);
        s.right = right;
        chart()->addSeries(s.line);
        s.line->attachAxis(x_);
        s.line->attachAxis(right ? static_cast<QAbstractAxis *>(yRight_) : y_);
        // A dashed twin (B of a comparison) shares its solid series' legend entry.
        if (dashed)
            for (auto *m : chart()->legend()->markers(s.line))
                m->setVisible(false);
        const QString unit = right ? yRight_->titleText() : unit_;
        connect(s.line, &QLineSeries::hovered, this, [name, unit](const QPointF &p, bool state) {
            if (state)
                QToolTip::showText(QCursor::pos(), QStringLiteral("%1: %2 %3 at %4 s")
                                                       .arg(name)
                                                       .arg(p.y(), 0, 'g', 5)
                                                       .arg(unit)
                                                       .arg(p.x(), 0, 'f', 1));
        });
        it = series_.insert(name, s);
        order_ << name;
    }
    it->points.emplace_back(t, value);
}

void TimeChart::addMarker(double t, const QString &label, bool showLabel)
{
    auto *line = new QLineSeries;
    QPen pen(QColor(90, 90, 90));
    pen.setStyle(Qt::DotLine);
    line->setPen(pen);
    chart()->addSeries(line);
    line->attachAxis(x_);
    line->attachAxis(y_);
    for (auto *m : chart()->legend()->markers(line))
        m->setVisible(false);
    QGraphicsSimpleTextItem *text = nullptr;
    if (showLabel) {
        text = new QGraphicsSimpleTextItem(label, chart());
        QFont f = text->font();
        f.setPointSizeF(f.pointSizeF() * 0.85);
        text->setFont(f);
        text->setBrush(QColor(60, 60, 60));
        text->setZValue(10);
    }
    markers_.push_back({t, label, line, text});
}

void TimeChart::clearAll()
{
    chart()->removeAllSeries();
    for (auto &m : markers_)
        delete m.text;
    markers_.clear();
    series_.clear();
    order_.clear();
}

int TimeChart::pointCount(const QString &name) const
{
    auto it = series_.find(name);
    return it == series_.end() ? 0 : static_cast<int>(it->line->count());
}

QStringList TimeChart::seriesNames() const
{
    return order_;
}

QList<QPointF> TimeChart::decimate(const std::vector<QPointF> &pts, double from, double to,
                                   int columns) const
{
    auto lo = std::lower_bound(pts.begin(), pts.end(), from,
                               [](const QPointF &p, double t) { return p.x() < t; });
    auto hi = std::upper_bound(pts.begin(), pts.end(), to,
                               [](double t, const QPointF &p) { return t < p.x(); });
    if (lo != pts.begin()) --lo; // keep the line entering the window
    if (hi != pts.end()) ++hi;
    QList<QPointF> out;
    const auto n = hi - lo;
    if (n <= 2 * columns) {
        out.reserve(n);
        for (auto it = lo; it != hi; ++it)
            out.append(*it);
        return out;
    }
    // Min and max per pixel column, in time order: peaks survive, the line stays honest.
    const double width = (to - from) / columns;
    for (auto it = lo; it != hi;) {
        const auto col = static_cast<long>(std::floor((it->x() - from) / width));
        QPointF mn = *it, mx = *it;
        for (; it != hi && static_cast<long>(std::floor((it->x() - from) / width)) == col; ++it) {
            if (it->y() < mn.y()) mn = *it;
            if (it->y() > mx.y()) mx = *it;
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

void TimeChart::replot(double from, double to)
{
    from_ = from;
    to_ = std::max(to, from + 1.0);
    // Min and max per two-pixel column: the lines look the same and cost half.
    const int columns = std::max(50, static_cast<int>(chart()->plotArea().width() / 2));
    double ymin = 1e300, ymax = -1e300, rmax = 0;
    for (auto &s : series_) {
        const QList<QPointF> pts = decimate(s.points, from_, to_, columns);
        for (const auto &p : pts)
            if (p.x() >= from_ && p.x() <= to_) {
                if (s.right) {
                    rmax = std::max(rmax, p.y());
                    continue;
                }
                ymin = std::min(ymin, p.y());
                ymax = std::max(ymax, p.y());
            }
        s.line->replace(pts);
    }
    if (yRight_) {
        yRight_->setRange(0, rmax > 0 ? rmax * 1.1 : 1.0);
        yRight_->applyNiceNumbers();
        yRight_->setLabelFormat(yRight_->max() < 10 ? "%.1f" : "%.0f");
    }
    x_->setRange(from_, to_);
    x_->setLabelFormat(to_ - from_ < 20 ? "%.1f" : "%.0f"); // no two ticks with the same label
    if (ymin > ymax) {
        ymin = log_ ? 1 : 0;
        ymax = log_ ? 1000 : 1;
    }
    if (log_) {
        static_cast<QLogValueAxis *>(y_)->setRange(
            std::pow(10, std::floor(std::log10(ymin))),
            std::pow(10, std::ceil(std::log10(ymax * 1.01))));
    } else {
        static_cast<QValueAxis *>(y_)->setRange(std::min(0.0, ymin), ymax > 0 ? ymax * 1.1 : 1.0);
        static_cast<QValueAxis *>(y_)->applyNiceNumbers();
        // Small ranges need a decimal, or two ticks read the same.
        static_cast<QValueAxis *>(y_)->setLabelFormat(
            static_cast<QValueAxis *>(y_)->max() < 10 ? "%.1f" : "%.0f");
    }
    placeMarkers();
}

void TimeChart::placeMarkers()
{
    double ylo = 0, yhi = 1;
    if (log_) {
        ylo = static_cast<QLogValueAxis *>(y_)->min();
        yhi = static_cast<QLogValueAxis *>(y_)->max();
    } else {
        ylo = static_cast<QValueAxis *>(y_)->min();
        yhi = static_cast<QValueAxis *>(y_)->max();
    }
    for (auto &m : markers_) {
        const bool inside = m.t >= from_ && m.t <= to_;
        m.line->replace(inside ? QList<QPointF>{{m.t, ylo}, {m.t, yhi}} : QList<QPointF>{});
        if (m.text) {
            m.text->setVisible(inside);
            const QPointF top = chart()->mapToPosition(QPointF(m.t, yhi), m.line);
            m.text->setPos(top.x() + 3, top.y() + 2);
        }
    }
}

void TimeChart::resizeEvent(QResizeEvent *e)
{
    QChartView::resizeEvent(e);
    placeMarkers();
}

} // namespace ringlab::ui
