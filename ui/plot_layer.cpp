// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/plot_layer.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace ringlab::ui {

namespace {
constexpr int kLabelPad = 4;    // px between the plot's bottom and a label
constexpr int kMaxTicks = 1000; // a tick per pixel at most, whatever the range and step
} // namespace

PlotLayer::PlotLayer(QGraphicsItem *parent) : QGraphicsItem(parent)
{
    // Between Qt Charts' grid (2) and axes (3) and its series' place (4): under the drop band,
    // markers and crosshair of the chart.
    setZValue(4);
    setAcceptedMouseButtons(Qt::NoButton);
    setFlag(QGraphicsItem::ItemUsesExtendedStyleOption, false);
}

int PlotLayer::labelRowHeight(const QFont &font)
{
    return QFontMetrics(font).height() + 2 * kLabelPad;
}

void PlotLayer::setPlot(const QRectF &plot)
{
    if (plot == plot_) return;
    prepareGeometryChange();
    plot_ = plot;
}

void PlotLayer::setTimeRange(double from, double to)
{
    if (from == from_ && to == to_) return;
    from_ = from;
    to_ = to > from ? to : from + 1e-3;
    update();
}

void PlotLayer::setValueRange(double lo, double hi)
{
    if (lo == lo_ && hi == hi_) return;
    lo_ = lo;
    hi_ = hi > lo ? hi : lo + 1;
    update();
}

void PlotLayer::setRightRange(double lo, double hi)
{
    if (lo == rlo_ && hi == rhi_) return;
    rlo_ = lo;
    rhi_ = hi > lo ? hi : lo + 1;
    update();
}

void PlotLayer::setLines(std::vector<Line> lines)
{
    lines_ = std::move(lines);
    update();
}

void PlotLayer::setTimeTicks(const TimeTicks &ticks)
{
    if (ticks == ticks_) return;
    ticks_ = ticks;
    update();
}

void PlotLayer::setTimeLabels(bool on, const QFont &font, const QColor &color)
{
    prepareGeometryChange();
    labels_ = on;
    font_ = font;
    labelColor_ = color;
}

void PlotLayer::setGridPen(const QPen &pen)
{
    grid_ = pen;
    update();
}

QRectF PlotLayer::boundingRect() const
{
    if (!labels_) return plot_.adjusted(-2, -2, 2, 2);
    // The labels may reach half a label's width beyond the plot's sides.
    const qreal side = QFontMetrics(font_).horizontalAdvance(QStringLiteral("00000.000 s"));
    return plot_.adjusted(-side, -2, side, labelRowHeight(font_));
}

qreal PlotLayer::xFor(double t) const
{
    return plot_.left() + (t - from_) / (to_ - from_) * plot_.width();
}

std::vector<double> PlotLayer::tickTimes() const
{
    std::vector<double> out;
    if (!(ticks_.step > 0) || !std::isfinite(ticks_.step)) return out;
    const double first =
        ticks_.anchor + std::ceil((from_ - ticks_.anchor) / ticks_.step - 1e-9) * ticks_.step;
    for (int k = 0; k < kMaxTicks; ++k) {
        const double t = first + k * ticks_.step;
        if (t > to_ + ticks_.step * 1e-9) break;
        out.push_back(t);
    }
    return out;
}

QString PlotLayer::tickText(double t) const
{
    // "-0 s" is 0 s.
    return QString::number(std::abs(t) < ticks_.step * 1e-6 ? 0.0 : t, 'f', ticks_.decimals) +
           QStringLiteral(" s");
}

std::vector<std::pair<QRectF, QString>> PlotLayer::timeLabels() const
{
    std::vector<std::pair<QRectF, QString>> out;
    if (!labels_) return out;
    const QFontMetricsF fm(font_);
    for (double t : tickTimes()) {
        const QString text = tickText(t);
        const qreal w = fm.horizontalAdvance(text);
        const QRectF r(xFor(t) - w / 2, plot_.bottom() + kLabelPad, w, fm.height());
        out.emplace_back(mapToScene(r).boundingRect(), text);
    }
    return out;
}

void PlotLayer::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    if (plot_.width() <= 0 || plot_.height() <= 0) return;
    const std::vector<double> ticks = tickTimes();
    painter->save();
    // The time grid, on whole pixels as Qt Charts draws the value axis's grid.
    painter->setPen(grid_);
    for (double t : ticks) {
        const qreal x = std::round(xFor(t));
        painter->drawLine(QPointF(x, plot_.top()), QPointF(x, plot_.bottom()));
    }
    // The lines, clipped to the plot (each piece keeps the point before and after the window).
    painter->setClipRect(plot_);
    const double xs = plot_.width() / (to_ - from_);
    for (const Line &line : lines_) {
        const double lo = line.right ? rlo_ : lo_, hi = line.right ? rhi_ : hi_;
        const double ys = plot_.height() / (hi - lo);
        const qreal base = plot_.bottom() - (std::clamp(0.0, lo, hi) - lo) * ys;
        for (const QPolygonF &piece : line.pieces) {
            scratch_.resize(piece.size());
            for (qsizetype i = 0; i < piece.size(); ++i)
                scratch_[i] = QPointF(plot_.left() + (piece[i].x() - from_) * xs,
                                      plot_.bottom() - (piece[i].y() - lo) * ys);
            if (line.fill.style() != Qt::NoBrush && scratch_.size() > 1) {
                const QPointF first = scratch_.front(), last = scratch_.back();
                scratch_.append(QPointF(last.x(), base));
                scratch_.append(QPointF(first.x(), base));
                painter->setPen(Qt::NoPen);
                painter->setBrush(line.fill);
                painter->drawPolygon(scratch_);
                painter->setBrush(Qt::NoBrush);
                scratch_.resize(piece.size());
            }
            painter->setPen(line.pen);
            if (scratch_.size() == 1) // a lone sample between gaps: a dot, not nothing
                painter->drawPoint(scratch_.front());
            else
                painter->drawPolyline(scratch_);
        }
    }
    painter->setClipping(false);
    if (labels_) {
        painter->setFont(font_);
        painter->setPen(labelColor_);
        const QFontMetricsF fm(font_);
        for (double t : ticks) {
            const QString text = tickText(t);
            const qreal w = fm.horizontalAdvance(text);
            painter->drawText(QPointF(xFor(t) - w / 2, plot_.bottom() + kLabelPad + fm.ascent()),
                              text);
        }
    }
    painter->restore();
}

} // namespace ringlab::ui
