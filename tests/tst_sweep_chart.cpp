// SPDX-License-Identifier: GPL-2.0-or-later
// The Sweep tab's scatter on a known set of points: a 95 % error bar on each axis with the
// points' own half-widths, the front of the two metrics shown (never a point another
// point's interval beats, never one the means beat), drawn as a monotone staircase.
#include <QLineSeries>
#include <QScatterSeries>
#include <QtTest>

#include "ui/sweep_chart.h"

using namespace ringlab;
using namespace ringlab::ui;

class TstSweepChart : public QObject {
    Q_OBJECT
  private slots:
    void errorBarsHaveThePointsHalfWidths();
    void frontIsTheUnbeatenStaircase();
    void frontFollowsTheBetterDirection();
    void aShortPlotDropsItsYTitleRatherThanCutIt();

  private:
    struct Pt {
        int index;
        double x, xHalf, y, yHalf;
        int xBatches = 5;
    };
    static Estimate est(double mean, double half, int batches)
    {
        Estimate e;
        e.n = 20;
        e.mean = e.median = e.min = e.max = e.p99 = mean;
        e.ciHalf = half;
        e.batches = batches;
        return e;
    }
    // A sweep table of CPU (x) and p99 latency (y), both lower is better; the table's own
    // front (over more metrics) is set on every point, as a third metric can make it.
    static SweepTable table(const std::vector<Pt> &pts, int xDir = -1, int yDir = -1)
    {
        SweepTable t;
        t.metrics = {"engine_cpu_ms_per_s", "latency_p99_us"};
        t.directions = {xDir, yDir};
        for (const Pt &p : pts) {
            PointResult r;
            r.point.index = p.index;
            r.point.values = {{"poll.sleep_min_us", std::to_string(p.index * 10)}};
            r.sessions = {100 + p.index};
            r.metrics["engine_cpu_ms_per_s"] = est(p.x, p.xHalf, p.xBatches);
            r.metrics["latency_p99_us"] = est(p.y, p.yHalf, 5);
            t.points.push_back(r);
        }
        t.front.assign(pts.size(), true);
        t.beatenBy.assign(pts.size(), -1);
        return t;
    }
    static QLineSeries *series(SweepChart &c, const QString &name)
    {
        for (QAbstractSeries *s : c.chart()->series())
            if (s->objectName() == name) return qobject_cast<QLineSeries *>(s);
        return nullptr;
    }
    static int drawnIndexOf(const SweepChart &c, int point)
    {
        for (int k = 0; k < c.pointCount(); ++k)
            if (c.pointOf(k) == point) return k;
        return -1;
    }
    // The known set: x = CPU ms/s, y = p99 us.
    static std::vector<Pt> known()
    {
        return {
            {1, 10, 1, 100, 5},   // the lowest CPU: on the front
            {2, 50, 2, 20, 1},    // the lowest latency: on the front
            {3, 30, 1, 50, 2},    // between: on the front
            {4, 60, 1, 60, 2},    // 3's whole interval is better on both axes: beaten
            {5, 31, 5, 52, 6},    // worse than 3 on both means, within the noise
            {6, 20, 0.5, 70, 3},  // between 1 and 3: on the front
            {7, 40, 0, 45, 1, 2}, // x has 2 batches, no interval: no x bar; on the front
        };
    }
};

void TstSweepChart::errorBarsHaveThePointsHalfWidths()
{
    SweepChart c;
    c.resize(800, 500);
    c.show(table(known()), "engine_cpu_ms_per_s", "latency_p99_us");
    QCOMPARE(c.pointCount(), 7);
    for (const Pt &p : known()) {
        QLineSeries *xb = series(c, SweepChart::xBarName(p.index));
        QLineSeries *yb = series(c, SweepChart::yBarName(p.index));
        if (p.xBatches < 3) {
            QVERIFY2(!xb, "a bar without an interval");
        } else {
            QVERIFY2(xb, qPrintable(QString("no x bar for point %1").arg(p.index)));
            // The bar at the point's height from mean - half to mean + half, its caps
            // upright at both ends.
            QVERIFY(xb->points().contains(QPointF(p.x - p.xHalf, p.y)));
            QVERIFY(xb->points().contains(QPointF(p.x + p.xHalf, p.y)));
            double lo = INFINITY, hi = -INFINITY;
            for (const QPointF &q : xb->points()) {
                lo = std::min(lo, q.x());
                hi = std::max(hi, q.x());
            }
            QCOMPARE(lo, p.x - p.xHalf);
            QCOMPARE(hi, p.x + p.xHalf);
        }
        QVERIFY2(yb, qPrintable(QString("no y bar for point %1").arg(p.index)));
        QVERIFY(yb->points().contains(QPointF(p.x, p.y - p.yHalf)));
        QVERIFY(yb->points().contains(QPointF(p.x, p.y + p.yHalf)));
        double lo = INFINITY, hi = -INFINITY;
        for (const QPointF &q : yb->points()) {
            lo = std::min(lo, q.y());
            hi = std::max(hi, q.y());
        }
        QCOMPARE(lo, p.y - p.yHalf);
        QCOMPARE(hi, p.y + p.yHalf);
    }
    // The caption says what the bars and the front are, and that one point has no x bar.
    QVERIFY(c.caption().contains("95 % intervals"));
    QVERIFY(c.caption().contains("Both: lower is better"));
    QVERIFY2(c.caption().contains("1 of 7 points"), qPrintable(c.caption()));
}

void TstSweepChart::frontIsTheUnbeatenStaircase()
{
    SweepChart c;
    c.resize(800, 500);
    c.show(table(known()), "engine_cpu_ms_per_s", "latency_p99_us");
    auto place = [&](int point) { return c.placeOf(drawnIndexOf(c, point)); };
    QCOMPARE(place(4), FrontPlace::Beaten);      // dominated by 3's interval
    QCOMPARE(place(5), FrontPlace::WithinNoise); // dominated by 3's means only
    for (int on : {1, 2, 3, 6, 7})
        QCOMPARE(place(on), FrontPlace::On);
    QCOMPARE(c.frontCount(), 5);
    QVERIFY(c.chart()->title().contains("5 on the Pareto front"));
    QVERIFY(c.chart()->title().contains("1 within its noise"));

    // The line: through the front's points in x order, each step horizontal then vertical
    // (both lower is better: right at the same latency, then down), x never back, y never up.
    QLineSeries *line = series(c, SweepChart::frontLineName());
    QVERIFY(line);
    const QList<QPointF> pts = line->points();
    QCOMPARE(pts.size(), 2 * 5 - 1);
    const std::vector<QPointF> front{{10, 100}, {20, 70}, {30, 50}, {40, 45}, {50, 20}};
    for (std::size_t k = 0; k < front.size(); ++k)
        QCOMPARE(pts[static_cast<int>(2 * k)], front[k]);
    for (int k = 1; k < pts.size(); ++k) {
        QVERIFY2(pts[k].x() >= pts[k - 1].x() && pts[k].y() <= pts[k - 1].y(),
                 qPrintable(QString("step %1 goes back").arg(k)));
        QVERIFY(pts[k].x() == pts[k - 1].x() || pts[k].y() == pts[k - 1].y()); // a staircase
    }
    // Every point beaten or within the noise lies on the dominated side of the line.
    for (const Pt &p : known())
        if (p.index == 4 || p.index == 5)
            QVERIFY(std::any_of(front.begin(), front.end(),
                                [&](const QPointF &f) { return f.x() <= p.x && f.y() <= p.y; }));
}

void TstSweepChart::frontFollowsTheBetterDirection()
{
    // Throughput on x (higher is better) against p99 (lower is better): the staircase goes up
    // on x as latency gets worse, its corners on the dominated side (lower x, higher y).
    const std::vector<Pt> pts{
        {1, 100, 2, 10, 1}, // slow and quick: on the front
        {2, 300, 2, 40, 1}, // fast and slow: on the front
        {3, 200, 2, 20, 1}, // between: on the front
        {4, 150, 2, 30, 1}, // slower and later than 3, significantly: beaten
    };
    SweepChart c;
    c.resize(800, 500);
    c.show(table(pts, +1, -1), "engine_cpu_ms_per_s", "latency_p99_us");
    QCOMPARE(c.placeOf(drawnIndexOf(c, 4)), FrontPlace::Beaten);
    QCOMPARE(c.frontCount(), 3);
    QLineSeries *line = series(c, SweepChart::frontLineName());
    QVERIFY(line);
    const QList<QPointF> got = line->points();
    const QList<QPointF> want{{100, 10}, {100, 20}, {200, 20}, {200, 40}, {300, 40}};
    QCOMPARE(got, want);
}

// Issue 46 item 8: at 1024x640 the chart is 180 px tall and Qt Charts cut its y title to
// "latenc…". A title that does not fit goes (the picker above names the metric); one that
// fits stays.
void TstSweepChart::aShortPlotDropsItsYTitleRatherThanCutIt()
{
    SweepChart c;
    c.resize(360, 180);
    c.show(table(known()), "engine_cpu_ms_per_s", "latency_p99_us");
    c.QWidget::show();
    QVERIFY(QTest::qWaitForWindowExposed(&c));
    const auto title = [&] { return c.chart()->axes(Qt::Vertical).front()->titleText(); };
    const auto fits = [&] {
        const QAbstractAxis *a = c.chart()->axes(Qt::Vertical).front();
        return QFontMetrics(a->titleFont()).horizontalAdvance(a->titleText()) <=
               c.chart()->plotArea().height();
    };
    QTRY_VERIFY(title().isEmpty() || fits());
    QVERIFY2(
        title().isEmpty(),
        qPrintable(
            QString("'%1' in a plot %2 px tall").arg(title()).arg(c.chart()->plotArea().height())));
    c.resize(800, 500);
    QTRY_COMPARE(title(), QString("latency_p99_us"));
    QVERIFY(fits());
}

QTEST_MAIN(TstSweepChart)
#include "tst_sweep_chart.moc"
