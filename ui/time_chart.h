// SPDX-License-Identifier: GPL-2.0-or-later
// One chart of the stack: named line series over a shared time axis, kept whole in memory
// and drawn through a bounded window, decimated to min and max per pixel column, with
// vertical markers at parameter changes. replot() pushes each series in one replace().
#pragma once

#include <QChartView>
#include <QHash>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <vector>

namespace ringlab::ui {

class TimeChart : public QChartView {
    Q_OBJECT
  public:
    TimeChart(const QString &title, const QString &unit, bool logScale, QWidget *parent = nullptr);

    // Appends a point to a series (created on first use, coloured by name).
    // `colorKey`: series that stand for the same thing (a thread in A and in B) share a colour.
    void append(const QString &series, double t, double value, bool dashed = false,
                const QString &colorKey = {});
    // A second, linear value axis on the right (e.g. pps beside Mbit/s), and series on it.
    void addRightAxis(const QString &unit);
    void appendRight(const QString &series, double t, double value, bool dashed = false,
                     const QString &colorKey = {});
    void addMarker(double t, const QString &label, bool showLabel);
    void clearAll();
    // Visible time range; redraws the series (cheap when nothing changed).
    void replot(double from, double to);
    int pointCount(const QString &series) const;
    QStringList seriesNames() const;

  protected:
    void resizeEvent(QResizeEvent *e) override;

  private:
    struct Series {
        QLineSeries *line = nullptr;
        bool right = false;
        std::vector<QPointF> points; // every point, in time order
    };
    struct Marker {
        double t;
        QString label;
        QLineSeries *line;
        QGraphicsSimpleTextItem *text;
    };
    QList<QPointF> decimate(const std::vector<QPointF> &pts, double from, double to,
                            int columns) const;
    void placeMarkers();

    QString unit_;
    bool log_;
    QValueAxis *x_;
    QAbstractAxis *y_;
    QValueAxis *yRight_ = nullptr;
    void add(const QString &series, double t, double value, bool dashed, const QString &colorKey,
             bool right);
    QHash<QString, Series> series_;
    QStringList order_;
    std::vector<Marker> markers_;
    double from_ = 0, to_ = 1;
};

} // namespace ringlab::ui
