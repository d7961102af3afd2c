// SPDX-License-Identifier: GPL-2.0-or-later
// A sweep's points as a scatter chart of any two metrics: every point with its 95 %
// intervals as error bars on both axes, and the Pareto front of the two metrics shown
// (frontPlaces: never a point whose means another's dominate, a staircase in the better
// direction; the best mean of each axis always on it),
// with a caption that says what the front and the bars mean. A click on a point asks for
// its first session; hovering one names it.
#pragma once

#include <QChartView>

#include <array>
#include <utility>
#include <vector>

#include "engine/experiments/sweep_report.h"
#include "engine/tune/pareto.h"

class QValueAxis;
class QXYSeries;

namespace ringlab::ui {

class SweepChart : public QChartView {
    Q_OBJECT
  public:
    explicit SweepChart(QWidget *parent = nullptr);
    // Draws `table` with metric x and metric y (labels of table.metrics or any metric the
    // points measured).
    void show(const SweepTable &table, const std::string &x, const std::string &y);
    int pointCount() const { return static_cast<int>(drawn_.size()); }
    int frontCount() const { return frontCount_; }
    // The chart position of a drawn point (tests click it).
    QPointF positionOf(int drawnIndex) const;
    // A drawn point: its sweep point index and where it stands against the front.
    int pointOf(int drawnIndex) const { return drawn_.at(std::size_t(drawnIndex)).point; }
    FrontPlace placeOf(int drawnIndex) const { return drawn_.at(std::size_t(drawnIndex)).place; }
    // What the front and the bars mean, for these two metrics (shown under the chart).
    QString caption() const { return caption_; }

    // The object names of the series a drawn point's error bars and the front's line are
    // drawn with (tests read what is drawn).
    static QString xBarName(int point) { return QStringLiteral("x interval of %1").arg(point); }
    static QString yBarName(int point) { return QStringLiteral("y interval of %1").arg(point); }
    static QString frontLineName() { return QStringLiteral("front line"); }

  signals:
    void pointClicked(int pointIndex, qint64 session);
    void captionChanged(const QString &caption);

  private:
    struct Drawn {
        QPointF value;
        double xHalf = 0, yHalf = 0; // 95 % half-widths; 0 where there is no interval
        int point = 0;
        qint64 session = 0;
        FrontPlace place = FrontPlace::On;
        int beatenBy = -1; // a point index
        QString values;    // the knobs' values
    };
    void fitAxisTitles();
    const Drawn *nearest(const QPointF &value) const;
    void clickedAt(const QPointF &value);
    void hoveredAt(const QPointF &value, bool on);
    // show()'s steps, in order.
    void placePoints(const SweepTable &table, const std::string &x, const std::string &y);
    std::pair<QValueAxis *, QValueAxis *> addAxes();
    void addErrorBars(QValueAxis *ax, QValueAxis *ay);
    void addPoints(QValueAxis *ax, QValueAxis *ay); // the front's staircase and the points
    void describe();                                // the title and the caption
    void addSeries(QXYSeries *s, QValueAxis *ax, QValueAxis *ay);
    // Where a point's bar begins: cut at 0 for a metric whose every mean is >= 0.
    double xLow(const Drawn &d) const;
    double yLow(const Drawn &d) const;
    bool anyDirection() const { return dirs_[0] != 0 || dirs_[1] != 0; }

    std::vector<Drawn> drawn_;
    std::array<int, 2> dirs_{0, 0}; // each metric's better side (0: none)
    bool xFloor_ = false, yFloor_ = false;
    int frontCount_ = 0;
    QString caption_, xName_, yName_;
};

} // namespace ringlab::ui
