// SPDX-License-Identifier: GPL-2.0-or-later
// What a TimeChart draws inside its plot: the lines (one polyline per unbroken piece) and the
// time axis (its grid, and its labels under the plot when the chart shows them), as one
// graphics item over the chart's plot area.
//
// Qt Charts pays, per line series and per update, a stroked outline of the whole line for hit
// testing, and per change of an axis's range, a text document per tick label (created anew
// when the number of ticks changes, as it does at every step of a scrolling window). Under
// Xvfb these were two thirds of the GUI thread's time following a live run (perf, issue 46).
// Here a redraw is a polyline per piece and a drawText per label.
#pragma once

#include <QBrush>
#include <QFont>
#include <QGraphicsItem>
#include <QPen>
#include <QPolygonF>
#include <vector>

namespace ringlab::ui {

class PlotLayer : public QGraphicsItem {
  public:
    // A series' pieces in data units: x in seconds, y in its axis's units (log10 of the value
    // on a log axis). `right`: on the right value axis.
    struct Line {
        QPen pen;
        bool right = false;
        std::vector<QPolygonF> pieces;
        // Filled down to the value 0 under the line (a stacked chart's band: the layers are
        // painted from the top of the stack down, each over the one above's fill).
        QBrush fill = Qt::NoBrush;
    };
    // The time axis's ticks: every `step` seconds from `anchor`, labelled with `decimals`.
    struct TimeTicks {
        double anchor = 0, step = 1;
        int decimals = 0;
        bool operator==(const TimeTicks &) const = default;
    };

    explicit PlotLayer(QGraphicsItem *parent = nullptr);

    void setPlot(const QRectF &plot);
    void setTimeRange(double from, double to);
    void setValueRange(double lo, double hi);
    void setRightRange(double lo, double hi);
    void setLines(std::vector<Line> lines);
    void setTimeTicks(const TimeTicks &ticks);
    const TimeTicks &timeTicks() const { return ticks_; }
    // Labels under the plot (the bottom chart of a stack), in this font and colour.
    void setTimeLabels(bool on, const QFont &font, const QColor &color);
    void setGridPen(const QPen &pen);
    // The labels' row under the plot: its height.
    static int labelRowHeight(const QFont &font);
    // Each time label as drawn, in scene coordinates (tests).
    std::vector<std::pair<QRectF, QString>> timeLabels() const;

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) override;

  private:
    qreal xFor(double t) const;
    std::vector<double> tickTimes() const;
    QString tickText(double t) const;

    QRectF plot_;
    double from_ = 0, to_ = 1, lo_ = 0, hi_ = 1, rlo_ = 0, rhi_ = 1;
    std::vector<Line> lines_;
    TimeTicks ticks_;
    bool labels_ = false;
    QFont font_;
    QColor labelColor_;
    QPen grid_;
    QPolygonF scratch_; // one piece in pixels, reused across pieces and paints
};

} // namespace ringlab::ui
