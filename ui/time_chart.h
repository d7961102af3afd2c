// SPDX-License-Identifier: GPL-2.0-or-later
// One chart of the stack: named line series over a shared time axis, kept whole in memory
// and drawn through a bounded window, decimated to min and max per pixel column. Each series'
// data is a SeriesPoints (ui/series_points.h: its points and pyramid of min/max blocks, no
// widget), so that a redraw costs about the plot's width whatever the session's length.
// Lines break where the engine recorded a stall
// (gaps); changes, marks and restarts are vertical markers whose
// labels are staggered in rows above the plot so that none covers another. The plot area
// is placed by the caller (setInsets) so that stacked charts share one time axis to the
// pixel; the legend is a widget beside it (ChartLegend).
#pragma once

#include <QCategoryAxis>
#include <QChartView>
#include <QHash>
#include <QLineF>
#include <QPolygonF>
#include <functional>
#include <optional>
#include <vector>

class QGraphicsLineItem;
class QGraphicsSimpleTextItem;
class QGraphicsRectItem;
class QGraphicsPathItem;

#include "ui/series_points.h"

namespace ringlab::ui {
class PlotLayer;
}

namespace ringlab::ui {

enum class MarkerKind { Change, Mark, Restart };

class TimeChart : public QChartView {
    Q_OBJECT
  public:
    TimeChart(const QString &title, const QString &unit, bool logScale, QWidget *parent = nullptr);

    QString title() const { return title_; }
    QString unit() const { return unit_; }
    // Appends a point to a series (created on first use). `colorKey`: the series' catalogue
    // key, which fixes its colour and whether it is chosen; the A and B of a comparison share it.
    void append(const QString &series, double t, double value, bool dashed = false,
                const QString &colorKey = {});
    // A second, linear value axis on the right (e.g. pps beside Mbit/s), and series on it.
    void addRightAxis(const QString &unit);
    void appendRight(const QString &series, double t, double value, bool dashed = false,
                     const QString &colorKey = {});
    // Many points of one series at once, in time order (a reopened session, a batch of live
    // samples): one lookup instead of one per point. Non-finite values are left out.
    void appendPoints(const QString &series, const std::vector<QPointF> &points, bool dashed,
                      const QString &colorKey, bool right);
    int gapCount() const { return static_cast<int>(gaps_.size()); }
    // The point at time t comes after a stall of the sampler: lines break before it.
    void addGap(double t);
    void addMarker(double t, const QString &label, MarkerKind kind);
    // A sample interval in which frames were dropped: drawn as a red band along the bottom of
    // the plot, at least kDropBandMinWidth pixels wide at any zoom, in every chart of a stack,
    // so that no drop hides between samples, under a log axis's floor or behind a wide window.
    void addDropSpan(double from, double to);
    int dropSpanCount() const { return static_cast<int>(drops_.size()); }
    // The band's rectangles as drawn now, in the chart's scene coordinates.
    QList<QRectF> dropBandRects() const { return dropRects_; }
    static constexpr qreal kDropBandHeight = 5, kDropBandMinWidth = 3;
    // Only the top chart of a stack draws marker labels; the others draw the lines.
    void setMarkerLabels(bool on);
    // Only the bottom chart of a stack labels the time axis it shares; the others keep its
    // ticks and grid.
    void setTimeLabels(bool on);
    void clearAll();
    // Visible time range; redraws the series.
    void replot(double from, double to);
    double from() const { return from_; }
    double to() const { return to_; }

    // Which series the legend lists (by key; a series not decided yet asks the predicate)
    // and which of those are hidden (by name).
    void setChosenPredicate(std::function<bool(const QString &key)> p) { chosenDefault_ = p; }
    void setKeyChosen(const QString &key, bool chosen);
    bool isChosen(const QString &series) const;
    void setHidden(const QString &series, bool hidden);
    bool isHidden(const QString &series) const;
    void setLogScale(bool log);
    bool logScale() const { return log_; }
    // Series drawn as stacked bands on a linear axis, in the order they came: each line is
    // the sum of its series and those before it (at each sample's time), its
    // band filled down to the one below. A comparison's dashed series stack on their own,
    // unfilled; a hidden series leaves the stack. Values read (valueAt) are each series' own.
    void setStacked(bool stacked);
    bool stacked() const { return stacked_; }
    // The stack's order, bottom first, by a rank of each series' key (equal ranks: in the
    // order they came).
    void setStackRank(std::function<long(const QString &key)> rank);
    QStringList stackOrder() const;

    int pointCount(const QString &series) const; // points drawn now
    int lineCount(const QString &series) const;  // drawn pieces: 1 + the gaps it crosses
    QStringList seriesNames() const;             // every series, in order of creation
    QStringList chosenNames() const;             // those the legend lists
    QString keyOf(const QString &series) const;
    bool isDashed(const QString &series) const;
    // The newest value at or before t, unless a gap or more than `maxAge` seconds lies between.
    std::optional<double> valueAt(const QString &series, double t, double maxAge) const;
    std::optional<double> lastValue(const QString &series) const;

    // Pixels the chart's own layout needs beside the plot (axis labels and titles), and the
    // insets the stack agrees on: the difference becomes the chart's margin.
    qreal leftNeeded() const;
    qreal rightNeeded() const;
    void setInsets(qreal left, qreal right);
    QRectF plotArea() const { return chart()->plotArea(); }
    void setCrosshair(std::optional<double> t);
    // The label of each marker drawn (empty: only its line, its label on hover).
    QList<QRectF> markerLabelRects() const;
    QList<QLineF> markerLines() const; // each marker's line drawn, in scene coordinates
    QStringList markerLabels() const;  // every marker's label, drawn or not
    bool markerLabelDrawn(const QString &label) const;
    // The time axis's ticks: every step seconds from the anchor.
    double timeTickStep() const;
    double timeTickAnchor() const;
    // The time axis's labels as drawn (the bottom chart of a stack), in widget coordinates.
    std::vector<std::pair<QRectF, QString>> timeLabels() const;
    // A series' points as drawn now, every piece (on a log axis, log10 of the values).
    QList<QPointF> drawnPoints(const QString &series) const;
    // The value axes carry labelled ticks (SI prefixes: "200 k", "1.2 M"). On a log scale the
    // axis is linear in log10 of the value, and the series are drawn in log10.
    QCategoryAxis *valueAxis() const { return y_; }
    QCategoryAxis *rightAxis() const { return yRight_; }
    // The value range in view (in values, also on a log scale).
    double valueMin() const;
    double valueMax() const;
    int hiddenMarkerLabels() const;
    qreal xForTime(double t) const;

  signals:
    void hoveredAt(double t);
    void hoverLeft();
    void zoomRequested(double t, double factor);
    void panRequested(double dt);
    void followRequested();
    void seriesChanged();

  protected:
    void resizeEvent(QResizeEvent *e) override;
    void mouseMoveEvent(QMouseEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;
    void mouseReleaseEvent(QMouseEvent *e) override;
    void mouseDoubleClickEvent(QMouseEvent *e) override;
    void wheelEvent(QWheelEvent *e) override;
    void leaveEvent(QEvent *e) override;

  public:
    // A series' points with their pyramid (ui/series_points.h): built on any thread (a
    // session read on a worker), then adopted by a chart.
    using Points = SeriesPoints;
    // Takes a series' points whole (its first points, or more after those it has).
    void adopt(const QString &series, Points &&points, bool dashed, const QString &colorKey,
               bool right);

  private:
    struct Series {
        QString key;
        bool right = false;
        bool dashed = false;
        bool hidden = false;
        std::vector<QPolygonF> shown; // the unbroken pieces on screen
        Points data;
        int drawn = 0, pieces = 0;
    };
    Series &seriesFor(const QString &name, bool dashed, const QString &colorKey, bool right);
    struct Marker {
        double t;
        QString label;
        MarkerKind kind;
        QGraphicsLineItem *line;
        QGraphicsSimpleTextItem *text;
    };
    void add(const QString &series, double t, double value, bool dashed, const QString &colorKey,
             bool right);
    // The series' stacked lines in view (setStacked), decimated as decimate() does.
    std::vector<std::pair<Series *, QList<QPointF>>> stackedInView(int columns);
    // `floor`: on a log axis, the axis's bottom (log10); zeros are drawn a decade below it.
    void draw(Series &s, const QList<QPointF> &pts, double floor = 0);
    void placeDropBand();
    void setYRange(double ymin, double ymax);
    // How many labelled ticks a value axis has room for at the chart's height.
    int tickRoom() const;
    // Round ticks from lo to at least ymax, no more than `room`; `hi` is the axis's top.
    static std::vector<std::pair<double, QString>> linearTicks(double lo, double ymax, int room,
                                                               double &hi);
    // The axis's range and labelled ticks at once (nothing when they are as they were).
    void setTicks(QCategoryAxis *axis, double lo, double hi,
                  const std::vector<std::pair<double, QString>> &ticks);
    void applyTopMargin();
    void fitMinimumHeight();
    void updateTimeTicks();
    void placeMarkers();
    double timeAt(qreal x) const;
    bool drawnNow(const Series &s) const;

    QString title_, unit_;
    bool log_;
    bool stacked_ = false;
    std::function<long(const QString &)> stackRank_;
    PlotLayer *layer_ = nullptr;
    bool timeLabels_ = false;
    QCategoryAxis *y_;
    QCategoryAxis *yRight_ = nullptr;
    QHash<QString, Series> series_;
    QStringList order_;
    QHash<QString, bool> keyChosen_;
    std::function<bool(const QString &)> chosenDefault_;
    std::vector<double> gaps_;
    std::vector<std::pair<double, double>> drops_; // time-ordered, merged where they touch
    QGraphicsPathItem *dropBand_ = nullptr;
    QList<QRectF> dropRects_;
    std::vector<Marker> markers_;
    bool markerLabels_ = false;
    int hiddenLabels_ = 0;
    double from_ = 0, to_ = 1;
    QGraphicsLineItem *cross_ = nullptr;
    QGraphicsSimpleTextItem *crossText_ = nullptr;
    std::optional<double> crossT_;
    std::optional<int> dragX_;
};

} // namespace ringlab::ui
