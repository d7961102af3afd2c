// SPDX-License-Identifier: GPL-2.0-or-later
// A chart series' data without a widget (ui/series_points.h): the pyramid that makes a
// window's drawing cost its columns, not its points, must never lose a peak; the legend's
// value stops at a stall; a stack's sum counts each sample's figures once.
#include <QtTest>
#include <cmath>
#include <random>

#include "ui/series_points.h"

using namespace ringlab::ui;

class TstSeriesPoints : public QObject {
    Q_OBJECT
  private slots:
    void everyColumnKeepsItsExtremes();
    void joinedInPartsIsAsPushedOneByOne();
    void theWindowKeepsThePointsEnteringAndLeaving();
    void aValueStandsUntilItsAgeOrAStall();
    void aStackSumsEachSampleOnce();
};

namespace {
SeriesPoints noisy(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::lognormal_distribution<double> v(2, 1.5);
    SeriesPoints s;
    for (std::size_t i = 0; i < n; ++i)
        s.push(QPointF(0.1 * double(i), v(rng)));
    return s;
}
} // namespace

void TstSeriesPoints::everyColumnKeepsItsExtremes()
{
    // 300,000 points (three levels of the pyramid), windows from whole to a few columns' worth.
    const SeriesPoints s = noisy(300'000, 7);
    QCOMPARE(s.levels.size(), std::size_t{3});
    for (const auto &[from, to, columns] :
         {std::tuple{0.0, 30'000.0, 400}, std::tuple{1234.5, 5678.9, 300},
          std::tuple{20'000.0, 20'100.0, 37}}) {
        const QList<QPointF> drawn = s.decimate(from, to, columns);
        QVERIFY(drawn.size() <= 2 * columns + 4);
        const double width = (to - from) / columns;
        for (int c = 0; c < columns; ++c) {
            const double lo = from + c * width, hi = lo + width;
            double mn = HUGE_VAL, mx = -HUGE_VAL, dmn = HUGE_VAL, dmx = -HUGE_VAL;
            for (const QPointF &p : s.points)
                if (p.x() >= lo && p.x() < hi) {
                    mn = std::min(mn, p.y());
                    mx = std::max(mx, p.y());
                }
            for (const QPointF &p : drawn)
                if (p.x() >= lo && p.x() < hi) {
                    dmn = std::min(dmn, p.y());
                    dmx = std::max(dmx, p.y());
                }
            QCOMPARE(dmn, mn);
            QCOMPARE(dmx, mx);
        }
        for (int k = 1; k < drawn.size(); ++k) // in time order
            QVERIFY(drawn[k].x() >= drawn[k - 1].x());
    }
}

void TstSeriesPoints::joinedInPartsIsAsPushedOneByOne()
{
    const SeriesPoints whole = noisy(70'000, 3);
    SeriesPoints parts;
    for (std::size_t from = 0; from < whole.points.size(); from += 4097) {
        SeriesPoints part;
        for (std::size_t i = from; i < std::min(whole.points.size(), from + 4097); ++i)
            part.push(whole.points[i]);
        parts.extend(part);
    }
    QCOMPARE(parts.points.size(), whole.points.size());
    QCOMPARE(parts.levels.size(), whole.levels.size());
    for (std::size_t k = 0; k < whole.levels.size(); ++k) {
        QCOMPARE(parts.levels[k].size(), whole.levels[k].size());
        for (std::size_t b = 0; b < whole.levels[k].size(); ++b) {
            QCOMPARE(parts.levels[k][b].lo, whole.levels[k][b].lo);
            QCOMPARE(parts.levels[k][b].hi, whole.levels[k][b].hi);
        }
    }
    // A value that is not finite is left out.
    SeriesPoints s;
    s.push(QPointF(1, std::nan("")));
    s.push(QPointF(2, HUGE_VAL));
    s.push(QPointF(3, 5));
    QCOMPARE(s.points.size(), std::size_t{1});
}

void TstSeriesPoints::theWindowKeepsThePointsEnteringAndLeaving()
{
    SeriesPoints s;
    for (int t = 0; t < 10; ++t)
        s.push(QPointF(t, t));
    QCOMPARE(s.window(2.5, 5.5), (std::pair<std::size_t, std::size_t>{2, 7}));
    QCOMPARE(s.window(-5, -1), (std::pair<std::size_t, std::size_t>{0, 1}));
    QCOMPARE(s.window(20, 30), (std::pair<std::size_t, std::size_t>{9, 10}));
    QCOMPARE(s.decimate(2.5, 5.5, 100).size(), 5); // 2, 3, 4, 5, 6
}

void TstSeriesPoints::aValueStandsUntilItsAgeOrAStall()
{
    SeriesPoints s;
    s.push(QPointF(1.0, 10));
    s.push(QPointF(1.1, 11));
    s.push(QPointF(2.0, 20)); // after a stall the engine recorded at 2.0
    const std::vector<double> gaps{2.0};
    QVERIFY(!s.valueAt(0.5, 1, gaps)); // before the first point
    QCOMPARE(*s.valueAt(1.15, 0.1, gaps), 11.0);
    QVERIFY(!s.valueAt(1.5, 0.1, gaps)); // older than maxAge
    QVERIFY(!s.valueAt(1.5, 5, {1.3}));  // a stall between
    QCOMPARE(*s.valueAt(1.9, 5, gaps), 11.0);
    QCOMPARE(*s.valueAt(2.05, 0.1, gaps), 20.0);
}

void TstSeriesPoints::aStackSumsEachSampleOnce()
{
    SeriesPoints a, b;
    for (int t = 0; t < 10; ++t) {
        a.push(QPointF(t, 100));
        if (t >= 5) b.push(QPointF(t, 7)); // a NAPI that came at 5
    }
    b.push(QPointF(10, 3)); // and stayed when the other went
    SeriesPoints sum = stackOn(SeriesPoints{}, a, 0, 10);
    sum = stackOn(sum, b, 0, 10);
    QCOMPARE(sum.points.size(), std::size_t{11});
    QCOMPARE(sum.points[4], QPointF(4, 100));
    QCOMPARE(sum.points[5], QPointF(5, 107));
    QCOMPARE(sum.points[10], QPointF(10, 3));
    // Only the window (and a point each side) is summed.
    const SeriesPoints part = stackOn(stackOn(SeriesPoints{}, a, 6.5, 7.5), b, 6.5, 7.5);
    QCOMPARE(part.points.size(), std::size_t{3});
    QCOMPARE(part.points.front(), QPointF(6, 107));
}

QTEST_APPLESS_MAIN(TstSeriesPoints)
#include "tst_series_points.moc"
