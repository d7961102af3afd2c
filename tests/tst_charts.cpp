// SPDX-License-Identifier: GPL-2.0-or-later
// The time charts as a user reads them (issue 9 items 6-10): series chosen, hidden and on a
// log axis; a stall drawn as a gap; markers whose labels never collide; four plot areas on
// one time axis to the pixel with round ticks; fixed, distinct colours; the crosshair.
#include <QApplication>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QCategoryAxis>
#include <QGraphicsLayout>
#include <QListWidget>
#include <QMenu>
#include <QScatterSeries>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "engine/metrics/metric_table.h"
#include "test_support.h"
#include "ui/chart_legend.h"
#include "ui/charts_view.h"
#include "ui/distribution_charts.h"
#include "ui/gui_thread_meter.h"
#include "ui/segment_model.h"
#include "ui/segment_table.h"
#include "ui/series_catalog.h"
#include "ui/session_reader.h"
#include "ui/time_chart.h"

using namespace ringlab;
using namespace ringlab::ui;

namespace {
std::shared_ptr<const Sample> sample(double t, double interval, double scale = 1)
{
    auto s = std::make_shared<Sample>();
    s->t = t;
    s->interval = interval;
    s->rxMbps = 100 * scale;
    s->txMbps = 99 * scale;
    s->rate[static_cast<std::size_t>(CounterId::RxPackets)] = 100'000 * scale;
    s->rate[static_cast<std::size_t>(CounterId::TimerArms)] = 70'000;
    s->rate[static_cast<std::size_t>(CounterId::RefillWakeups)] = 1'300;
    s->rate[static_cast<std::size_t>(CounterId::RxMissed)] = 4'000'000; // drops dwarf the rest
    s->engineCpuMsPerS = 420;
    s->latency.count = 1000;
    s->latency.p50 = 12;
    s->latency.p99 = 180;
    s->latency.max = 900;
    s->threads.push_back({"poll", 400, 40, 20'000});
    s->threads.push_back({"sampler", 1, 0.1, 10});
    return s;
}
std::vector<std::shared_ptr<const Sample>> run(double from, double to, double interval = 0.1)
{
    std::vector<std::shared_ptr<const Sample>> out;
    for (double t = from; t <= to + 1e-9; t += interval)
        out.push_back(sample(t, interval));
    return out;
}
bool isRoundStep(double step)
{
    const double p = std::pow(10, std::floor(std::log10(step)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (std::fabs(step - m * p) < 1e-9 * p) return true;
    return false;
}
} // namespace

class TstCharts : public QObject {
    Q_OBJECT
  private slots:
    void init();
    void cleanup();
    void gapIsDrawnAsAGap();
    void latencyTailFollowsTheTablesQuantiles();
    void guiThreadCpuIsPerSecondNotPerBatch();
    void lateSamplesAreNotGaps();
    void decimationKeepsExtremes();
    void axesUseSiPrefixesAndTheDataRange();
    void reopenedSessionIsOneSpanEverywhere();
    void aMarkKeepsItsLabelAmongChanges();
    void everyColumnKeepsItsExtremes();
    void pointsJoinedInPartsAreAsPushedOneByOne();
    void aSessionReadInTwoPartsChartsAsReadWhole();
    void preparedInSlicesIsPreparedWhole();
    void threadSeriesNeverTakeACatalogueName();
    void aDevicesFiguresAreChartedByName();
    void whoDroveThePollsIsAStackOfItsOwn();
    void aShortWindowScrollsTheChartsRatherThanGrowOrElide();
    void aDevicesFiguresAreSegmentColumnsByName();
    void zerosLieBelowTheLogFloor();
    void aDropBurstIsSeenAtAnyZoom();
    void comparePlotsAgreeWithTheirRows();
    void plotAreasShareOneTimeAxis();
    void emptyChartsHavePlainTicks();
    void timeLabelsSitUnderTheBottomPlotApart();
    void seriesAreChosenHiddenAndLogged();
    void markerLabelsNeverCollide();
    void coloursAreFixedAndDistinct();
    void crosshairReadsEveryChart();
    void chartsShareTheHeightAndKeepTheGuiThreadInView();
    void zoomPanAndPause();
    void choicesStoredUnderOldKeysSurvive();
    void segmentColumnsAreKeptByName();
    void theLatencyLegendSaysItsSampling();

  private:
    std::unique_ptr<ChartsView> view_;
};

void TstCharts::init()
{
    view_ = std::make_unique<ChartsView>();
    view_->resize(1000, 760);
    view_->show();
    QVERIFY(QTest::qWaitForWindowExposed(view_.get()));
}

void TstCharts::cleanup()
{
    view_.reset();
}

void TstCharts::latencyTailFollowsTheTablesQuantiles()
{
    // The knots are the metric table's quantiles: p50, p90, p99, p99.9 and the longest.
    std::vector<double> fractions;
    for (const MetricDef *d : quantileMetrics("latency"))
        fractions.push_back(*d->quantile);
    QCOMPARE(fractions, (std::vector<double>{0.5, 0.9, 0.99, 0.999, 1.0}));
    QCOMPARE(quantileMetrics("rtt").size(), std::size_t{5});

    // Two samples with the same knots: each point is the fraction slower than x, linear
    // between them.
    const std::vector<std::pair<double, double>> knots = {
        {10, 0.5}, {20, 0.9}, {30, 0.99}, {40, 0.999}, {50, 1.0}};
    CompareSide side;
    side.values["latency_count"] = {1000, 3000};
    for (const auto &[name, v] :
         std::vector<std::pair<std::string, double>>{{"latency_p50_us", 10},
                                                     {"latency_p90_us", 20},
                                                     {"latency_p99_us", 30},
                                                     {"latency_p999_us", 40},
                                                     {"latency_max_us", 50}})
        side.values[name] = {v, v};
    const std::vector<QPointF> tail = ui::latencyTail(side);
    QVERIFY(tail.size() > 100);
    QCOMPARE(tail.front().x(), 10.0);
    QCOMPARE(tail.front().y(), 0.5);
    for (const QPointF &p : tail) {
        double f = 0.5;
        for (std::size_t j = 1; j < knots.size(); ++j)
            if (p.x() >= knots[j - 1].first)
                f = knots[j - 1].second +
                    (knots[j].second - knots[j - 1].second) *
                        std::min(1.0, (p.x() - knots[j - 1].first) /
                                          (knots[j].first - knots[j - 1].first));
        QVERIFY2(std::abs(p.y() - (1 - f)) < 1e-9,
                 qPrintable(QString("at %1 us: %2, expected %3").arg(p.x()).arg(p.y()).arg(1 - f)));
    }
    // A knot missing: no tail rather than a wrong one.
    side.values.erase("latency_p999_us");
    QVERIFY(ui::latencyTail(side).empty());
}

void TstCharts::gapIsDrawnAsAGap()
{
    view_->setWindow(ChartsView::kWholeSession);
    view_->appendSamples(run(0.1, 2.0));
    // The sampler stalled for 3 s: the engine marks the next sample, which covers 3 s.
    auto stalled = std::make_shared<Sample>(*sample(5.0, 3.0, 2));
    stalled->stall = Stall::Sampler;
    view_->appendSamples({stalled});
    view_->appendSamples(run(5.1, 7.0));
    view_->replot();
    int checked = 0;
    for (TimeChart *c : view_->charts())
        for (const QString &n : c->chosenNames()) {
            if (!c->pointCount(n)) continue; // a series with no value in these samples
            ++checked;
            QVERIFY2(c->lineCount(n) == 2,
                     qPrintable(c->title() + ": " + n + " in " + QString::number(c->lineCount(n))));
        }
    QVERIFY(checked >= 10);
    QCOMPARE(view_->throughput()->pointCount("rx"), 20 + 1 + 20);
    // Nothing is read inside the gap; the values on either side are.
    QVERIFY(!view_->throughput()->valueAt("rx", 3.5, 0.25));
    QCOMPARE(*view_->throughput()->valueAt("rx", 2.05, 0.25), 100.0);
    QCOMPARE(*view_->throughput()->valueAt("rx", 5.0, 0.25), 200.0);
    QCOMPARE(view_->gapCount(), 1);
    // No gap without a stall: one line.
    view_->clear();
    view_->appendSamples(run(0.1, 3.0));
    view_->replot();
    QCOMPARE(view_->throughput()->lineCount("rx"), 1);
}

// Issue 20: a busy machine's samples. The sampler keeps fixed deadlines, so a late sample is
// followed by a short catch-up one; neither is a stall, however short the catch-up, and the
// intervals seen never make an ordinary sample a gap (the charts of a 209 s session drew
// 1,099 of its 2,085 samples as gaps when they judged intervals themselves).
void TstCharts::lateSamplesAreNotGaps()
{
    view_->setWindow(ChartsView::kWholeSession);
    std::vector<std::shared_ptr<const Sample>> busy;
    double t = 0;
    for (int k = 0; k < 600; ++k) {
        // Every 7th sample 60 ms late, the next 60 ms after it; then 0.1 s again. (Judged
        // by intervals, the 60 ms catch-up lowered the period estimate and the late 160 ms
        // sample then counted as a stall.)
        const double interval = k % 7 == 3 ? 0.16 : k % 7 == 4 ? 0.06 : 0.1;
        t += interval;
        busy.push_back(sample(t, interval));
    }
    view_->appendSamples(busy);
    view_->replot();
    QCOMPARE(view_->gapCount(), 0);
    QCOMPARE(view_->throughput()->lineCount("rx"), 1);
    // The crosshair reads a value everywhere, late samples or not.
    for (double at = 1; at < t; at += 0.37) {
        view_->setCrosshair(at);
        QVERIFY2(view_->legend(0)->entryText("rx") == QStringLiteral("rx  100"),
                 qPrintable(QString::number(at) + ": " + view_->legend(0)->entryText("rx")));
    }
}

// An hour at 10 Hz in view: each pixel column still shows its lowest and highest value (the
// pyramid's blocks), so a one-sample spike or dip anywhere survives the decimation.
void TstCharts::decimationKeepsExtremes()
{
    view_->setWindow(ChartsView::kWholeSession);
    std::vector<std::shared_ptr<const Sample>> hour;
    for (int k = 0; k < 36'000; ++k) {
        const double scale = k == 12'345 ? 9 : k == 30'001 ? 0.01 : 1 + 0.001 * (k % 13);
        hour.push_back(sample(0.1 * (k + 1), 0.1, scale));
    }
    view_->appendSamples(hour);
    view_->replot();
    TimeChart *c = view_->throughput();
    const int columns = static_cast<int>(c->plotArea().width() / 2);
    QVERIFY2(c->pointCount("rx") <= 2 * std::max(50, columns) + 4,
             qPrintable(QString::number(c->pointCount("rx"))));
    QVERIFY(c->valueMax() >= 900); // the spike (rx 900 Mbit/s) sets the axis
    bool spike = false, dip = false;
    for (const QString &name : c->seriesNames())
        for (const QPointF &p : c->drawnPoints(name)) {
            spike |= p.y() == 900.0;
            dip |= p.y() == 1.0;
        }
    QVERIFY(spike);
    QVERIFY(dip);
    // Zoomed into ten seconds: every sample drawn.
    view_->zoom(1234.5, 10 / 3600.0);
    QVERIFY(std::fabs(c->to() - c->from() - 10) < 0.5);
    QVERIFY(c->pointCount("rx") >= 95);
}

// Issue 20: a reopened session (the whole of it, changes and marks on it) shows one span in
// all four charts, their plot areas to the pixel, the crosshair and every marker at one x;
// "whole session" after a zoom shows it whole again at once.
void TstCharts::reopenedSessionIsOneSpanEverywhere()
{
    std::vector<std::shared_ptr<const Sample>> all = run(0.1, 135.0);
    view_->appendSamples(all);
    for (double t : {12.0, 40.8, 99.5, 120.0})
        view_->addMarker(t, QString("refill.batch 32→%1").arg(t), MarkerKind::Change);
    view_->addMarker(60, "● mark", MarkerKind::Mark);
    view_->showWhole();
    QVERIFY(view_->settle());
    auto oneSpan = [this] {
        for (TimeChart *c : view_->charts())
            if (c->from() != 0 || std::fabs(c->to() - 135.0) > 1e-6) return false;
        return true;
    };
    QVERIFY(oneSpan());
    view_->setCrosshair(40.8);
    const qreal x = view_->throughput()->xForTime(40.8);
    for (TimeChart *c : view_->shownCharts()) {
        QVERIFY(std::fabs(c->plotArea().left() - view_->throughput()->plotArea().left()) < 0.01);
        QVERIFY(std::fabs(c->plotArea().width() - view_->throughput()->plotArea().width()) < 0.01);
        QVERIFY(std::fabs(c->xForTime(40.8) - x) < 0.01);
    }
    // Zoomed in, then the whole session again.
    view_->zoom(50, 0.1);
    QVERIFY(view_->throughput()->to() - view_->throughput()->from() < 20);
    view_->setWindow(ChartsView::kWholeSession);
    QVERIFY(oneSpan());
}

// The pyramid's blocks of every level against a brute force: 3 million points in view, each
// pixel column's lowest and highest point drawn (blocks of 64 and 4,096 points stand for
// their points wherever they lie inside one column).
void TstCharts::everyColumnKeepsItsExtremes()
{
    TimeChart chart("t", "u", false);
    chart.resize(1000, 300);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0, 1000);
    std::vector<QPointF> pts;
    const int n = 3'000'000;
    pts.reserve(n);
    for (int k = 0; k < n; ++k)
        pts.emplace_back(0.001 * k, u(rng));
    chart.appendPoints("s", pts, false, {}, false);
    const double from = 123.4567, to = 2876.5;
    // Drawn at the plot's laid-out width (new tick labels move its edges: again until still).
    double laidOut = -1;
    for (int round = 0; round < 5 && chart.plotArea().width() != laidOut; ++round) {
        laidOut = chart.plotArea().width();
        chart.replot(from, to);
        QCoreApplication::sendPostedEvents();
        if (QGraphicsLayout *l = chart.chart()->layout()) l->activate();
    }
    QCOMPARE(chart.plotArea().width(), laidOut);
    const int columns = std::max(50, static_cast<int>(laidOut / 2));
    const double width = (to - from) / columns;
    std::map<long, std::pair<double, double>> brute; // column -> lowest, highest
    for (const QPointF &p : pts) {
        if (p.x() < from || p.x() > to) continue;
        const long col = static_cast<long>(std::floor((p.x() - from) / width));
        auto [it, fresh] = brute.emplace(col, std::make_pair(p.y(), p.y()));
        if (!fresh) {
            it->second.first = std::min(it->second.first, p.y());
            it->second.second = std::max(it->second.second, p.y());
        }
    }
    std::set<double> drawn;
    for (const QPointF &p : chart.drawnPoints("s"))
        drawn.insert(p.y());
    QVERIFY(chart.pointCount("s") <= 2 * columns + 4);
    QVERIFY(brute.size() >= static_cast<std::size_t>(columns - 1));
    for (const auto &[col, lohi] : brute) {
        QVERIFY2(drawn.count(lohi.first), qPrintable(QString("column %1 lowest").arg(col)));
        QVERIFY2(drawn.count(lohi.second), qPrintable(QString("column %1 highest").arg(col)));
    }
}

// A thread named "refill" has wakeups too, which are not the catalogue's "refill wakeups"
// (kicks of the refill mechanism): the two are two series, each in time order.
// A session read in two parts is joined with Points::extend: the same points and the same
// pyramid as pushing every point, whatever sizes the parts have against the blocks.
void TstCharts::pointsJoinedInPartsAreAsPushedOneByOne()
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> value(-5, 5);
    for (std::size_t first : {0UL, 1UL, 63UL, 64UL, 4095UL, 4096UL, 5000UL}) {
        for (std::size_t second : {0UL, 1UL, 64UL, 4097UL, 9000UL}) {
            TimeChart::Points whole, a, b;
            for (std::size_t i = 0; i < first + second; ++i) {
                const QPointF p(0.1 * static_cast<double>(i), value(rng));
                whole.push(p);
                (i < first ? a : b).push(p);
            }
            a.extend(b);
            QCOMPARE(a.points, whole.points);
            QCOMPARE(a.levels.size(), whole.levels.size());
            for (std::size_t k = 0; k < whole.levels.size(); ++k) {
                QCOMPARE(a.levels[k].size(), whole.levels[k].size());
                for (std::size_t j = 0; j < whole.levels[k].size(); ++j) {
                    QCOMPARE(a.levels[k][j].lo, whole.levels[k][j].lo);
                    QCOMPARE(a.levels[k][j].hi, whole.levels[k][j].hi);
                }
            }
        }
    }
}

// The desktop reads a long session's later half on a second connection and thread
// (ui/session_reader): the charts' series and the table are those of one read.
void TstCharts::aSessionReadInTwoPartsChartsAsReadWhole()
{
    QTemporaryDir dir;
    const std::filesystem::path file = dir.filePath("s.db").toStdString();
    SessionStore store(file);
    SessionInfo info = test::simSession("parts");
    const std::int64_t id = store.createSession(info, ParamSet{});
    std::vector<std::shared_ptr<const Sample>> all = run(0.1, 600.0);
    for (std::size_t k = 0; k < all.size(); k += 997) { // some stalls and drop-free samples
        auto s = std::make_shared<Sample>(*all[k]);
        s->stall = Stall::Sampler;
        s->rate[static_cast<std::size_t>(CounterId::RxMissed)] = 0;
        all[k] = s;
    }
    for (std::size_t k = 0; k < all.size(); ++k) {
        auto s = std::make_shared<Sample>(*all[k]);
        s->seq = k;
        all[k] = s;
    }
    store.append(id, all, {});
    store.finishSession(id, "completed");
    const SessionData one = readSession(store, id);
    const SessionData two = readSession(store, id, file);
    QVERIFY(one.error.isEmpty() && two.error.isEmpty());
    QCOMPARE(two.table.seq.size(), all.size());
    QCOMPARE(two.table.seq, one.table.seq);
    QCOMPARE(two.charts.series.size(), one.charts.series.size());
    for (const auto &a : one.charts.series) {
        const auto b = std::find_if(two.charts.series.begin(), two.charts.series.end(),
                                    [&](const auto &x) { return x.name == a.name; });
        QVERIFY2(b != two.charts.series.end(), qPrintable(a.name));
        QVERIFY2(b->points.points == a.points.points, qPrintable(a.name));
        QCOMPARE(b->points.levels.size(), a.points.levels.size());
    }
    QCOMPARE(two.charts.gaps, one.charts.gaps);
    QCOMPARE(two.stalls(), one.stalls());
    QVERIFY(two.stalls() > 0);
}

// A session is prepared a slice of rows at a time (prepareMore): the same series, points,
// pyramids, gaps and drop spans as one prepare() of all of it, with a thread that first
// appears in a later slice and a drop burst across a slice's edge.
void TstCharts::preparedInSlicesIsPreparedWhole()
{
    std::vector<std::shared_ptr<const Sample>> all;
    for (int k = 1; k <= 700; ++k) {
        auto s = std::make_shared<Sample>(*sample(0.1 * k, 0.1, 1 + (k % 7) / 10.0));
        if (k < 150 || k > 160) s->rate[static_cast<std::size_t>(CounterId::RxMissed)] = 0;
        if (k > 420) s->threads.push_back({"refill", 30, 3, 500});
        if (k == 333) s->stall = Stall::Sampler;
        all.push_back(s);
    }
    const PreparedCharts whole = ChartsView::prepare(all);
    PreparedCharts sliced;
    for (std::size_t from = 0; from < all.size(); from += 155)
        ChartsView::prepareMore(
            sliced, {all.begin() + static_cast<long>(from),
                     all.begin() + static_cast<long>(std::min(from + 155, all.size()))});
    QCOMPARE(sliced.series.size(), whole.series.size());
    for (std::size_t k = 0; k < whole.series.size(); ++k) {
        const auto &a = whole.series[k], &b = sliced.series[k];
        QCOMPARE(b.name, a.name);
        QCOMPARE(b.key, a.key);
        QCOMPARE(b.chart, a.chart);
        QVERIFY2(b.points.points == a.points.points, qPrintable(a.name));
        QCOMPARE(b.points.levels.size(), a.points.levels.size());
        for (std::size_t l = 0; l < a.points.levels.size(); ++l)
            for (std::size_t e = 0; e < a.points.levels[l].size(); ++e) {
                QCOMPARE(b.points.levels[l][e].lo, a.points.levels[l][e].lo);
                QCOMPARE(b.points.levels[l][e].hi, a.points.levels[l][e].hi);
            }
    }
    QVERIFY(std::any_of(whole.series.begin(), whole.series.end(),
                        [](const auto &s) { return s.key.endsWith("refill"); }));
    QCOMPARE(sliced.gaps, whole.gaps);
    QCOMPARE(whole.drops.size(), std::size_t(1)); // one burst, 15.0-16.0 s
    QCOMPARE(sliced.drops, whole.drops);
    QCOMPARE(sliced.intervals, whole.intervals);
    QCOMPARE(sliced.end, whole.end);
}

void TstCharts::threadSeriesNeverTakeACatalogueName()
{
    view_->setWindow(ChartsView::kWholeSession);
    std::vector<std::shared_ptr<const Sample>> all;
    for (int k = 1; k <= 300; ++k) {
        auto s = std::make_shared<Sample>(*sample(0.1 * k, 0.1));
        s->threads.push_back({"refill", 30, 3, 500});
        all.push_back(s);
    }
    // Opened (prepared on a reader, in slices) and live (a batch) take the same path.
    PreparedCharts prepared = ChartsView::prepare({all.begin(), all.begin() + 100});
    prepared.append(ChartsView::prepare({all.begin() + 100, all.end()}));
    view_->adopt(std::move(prepared));
    view_->replot();
    TimeChart *events = view_->events();
    QVERIFY(events->seriesNames().contains("refill wakeups"));
    QVERIFY(events->seriesNames().contains("refill thread wakeups"));
    for (const char *name : {"refill wakeups", "refill thread wakeups"}) {
        QCOMPARE(events->pointCount(name), 300);
        QCOMPARE(events->lineCount(name), 1);
    }
    QCOMPARE(*events->valueAt("refill wakeups", 15.0, 0.25), 1'300.0);
    QCOMPARE(*events->valueAt("refill thread wakeups", 15.0, 0.25), 500.0);
}

// Issue 44: the kernel device's own figures are charted by name: who drove the NAPI's polls
// (frames per source) shown at once, the rest offered in the legend, figures no row charts
// left out; opened and live take the same path, and each source has its own colour.
// The segment table offers a session's device figures (rates and times, never running
// totals) as columns, titled as the charts label them, chosen by name, their differences
// judged but drawn neutral: more polls by the kthread is neither better nor worse.
void TstCharts::aDevicesFiguresAreSegmentColumnsByName()
{
    SampleTable tab;
    tab.metrics = {{"rx_pps", "pps", ""},
                   {"kernel_poll_packets_kthread_per_s", "1/s", ""},
                   {"rr_reply_pps", "pps", ""},
                   {"rr_requests", "requests", ""}};
    tab.values.resize(tab.metrics.size());
    for (int k = 0; k < 200; ++k) {
        tab.seq.push_back(k);
        tab.t.push_back(0.1 * (k + 1));
        tab.interval.push_back(0.1);
        tab.stall.push_back(Stall::None);
        const bool after = k >= 100;
        tab.values[0].push_back(20'000 + (k % 7));
        tab.values[1].push_back((after ? 20'000 : 0) + (k % 5));
        tab.values[2].push_back(10'000 + (k % 3));
        tab.values[3].push_back(100.0 * k);
    }
    const std::vector<ParamChangeRow> changes{{10.05, "napi.threaded", "host", "1", "user"}};
    SegmentModel m;
    m.setSession(tab, changes, 0.0);
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.deviceFigures(),
             (std::vector<std::string>{"kernel_poll_packets_kthread_per_s", "rr_reply_pps"}));
    const int before = m.columnCount();
    // Chosen by name, one the session lacks kept but not shown.
    m.setDeviceColumns({"kernel_poll_packets_kthread_per_s", "netdev_rx_pps"});
    QCOMPARE(m.columnCount(), before + 2);
    const int col = before, fixed = static_cast<int>(segmentMetrics().size());
    QCOMPARE(m.headerData(col, Qt::Horizontal, Qt::DisplayRole).toString(),
             QString("rx by kthread"));
    QVERIFY2(m.data(m.index(1, col), Qt::DisplayRole).toString().startsWith("20002"),
             qPrintable(m.data(m.index(1, col), Qt::DisplayRole).toString()));
    QVERIFY2(m.deltaText(1, fixed).contains("significant"), qPrintable(m.deltaText(1, fixed)));
    QCOMPARE(m.data(m.index(1, col + 1), Qt::ForegroundRole).value<QBrush>().color(),
             QColor(0x1565c0));
    // Another session without the figure: the choice stays, the column goes.
    SampleTable plain = tab;
    plain.metrics.resize(1);
    plain.values.resize(1);
    m.setSession(plain, changes, 0.0);
    QCOMPARE(m.columnCount(), before);
    QCOMPARE(m.deviceColumns().size(), std::size_t{2});
    m.setSession(tab, changes, 0.0);
    QCOMPARE(m.columnCount(), before + 2);
}

void TstCharts::aDevicesFiguresAreChartedByName()
{
    view_->setWindow(ChartsView::kWholeSession);
    const char *sources[] = {"softirq", "timer", "busy", "kthread", "other"};
    std::vector<std::shared_ptr<const Sample>> all;
    for (int k = 1; k <= 200; ++k) {
        auto s = std::make_shared<Sample>(*sample(0.1 * k, 0.1));
        for (const char *src : sources) {
            const bool kthread = std::string(src) == "kthread";
            const double frames = kthread ? (k > 100 ? 10'000 : 0) : (k > 100 ? 0 : 10'000);
            s->device.push_back({std::string("kernel_poll_packets_") + src + "_per_s", "1/s",
                                 std::string(src) == "softirq" || kthread ? frames : 0});
            s->device.push_back({std::string("kernel_polls_") + src + "_per_s", "1/s", 1'000});
        }
        s->device.push_back({"kernel_net_rx_softirqs_per_s", "1/s", 20'000});
        s->device.push_back({"rr_reply_pps", "1/s", 10'000}); // no row charts it
        all.push_back(s);
    }
    PreparedCharts prepared = ChartsView::prepare({all.begin(), all.begin() + 70});
    prepared.append(ChartsView::prepare({all.begin() + 70, all.end()}));
    view_->adopt(std::move(prepared));
    view_->replot();
    TimeChart *events = view_->events();
    TimeChart *polls = view_->polls();
    std::set<QRgb> colours;
    for (const char *src : sources) {
        const QString frames = QString("rx by %1").arg(src);
        QVERIFY2(polls->seriesNames().contains(frames), qPrintable(frames));
        QVERIFY(polls->isChosen(frames));
        QCOMPARE(polls->pointCount(frames), 200);
        QVERIFY(events->isChosen(QString("polls by %1").arg(src)) == false);
        colours.insert(seriesColor(polls->keyOf(frames)).rgb());
    }
    QCOMPARE(colours.size(), std::size(sources));
    QCOMPARE(*polls->valueAt("rx by softirq", 5.0, 0.25), 10'000.0);
    QCOMPARE(*polls->valueAt("rx by kthread", 15.0, 0.25), 10'000.0);
    QVERIFY(events->seriesNames().contains("kernel net rx softirqs"));
    for (const TimeChart *c : view_->charts())
        for (const QString &name : c->seriesNames())
            QVERIFY2(!name.contains("rr reply") && !name.contains("rr_reply"), qPrintable(name));
}

// Issue 44 part 6: who drove the NAPI's polls is a stack of its own, under the others, shown
// only for a run that has those figures: the top is every frame the polls handed up, each
// band a source's share; with several NAPIs, each NAPI's sources are the bands and the
// totals move to the Events legend (off), so that no frame is counted twice.
void TstCharts::whoDroveThePollsIsAStackOfItsOwn()
{
    view_->setWindow(ChartsView::kWholeSession);
    view_->appendSamples(run(0.1, 10.0));
    QVERIFY(view_->settle());
    TimeChart *polls = view_->polls();
    QCOMPARE(view_->shownCharts().size(), view_->charts().size() - 1); // not for the sim
    QVERIFY(!view_->events()->timeLabels().empty()); // Events labels the time axis

    // One NAPI: softirq 6,000 and busy 3,000 frames/s, then the kthread 8,000 alone.
    auto kernelRun = [](double from, double to, bool twoNapis) {
        std::vector<std::shared_ptr<const Sample>> out;
        for (double t = from; t <= to + 1e-9; t += 0.1) {
            auto s = std::make_shared<Sample>(*sample(t, 0.1));
            const bool late = t > 15;
            const std::pair<const char *, double> frames[] = {{"softirq", late ? 0 : 6'000},
                                                              {"timer", 0},
                                                              {"busy", late ? 0 : 3'000},
                                                              {"kthread", late ? 8'000 : 0},
                                                              {"other", 0}};
            for (const auto &[src, v] : frames) {
                s->device.push_back(
                    {std::string("kernel_poll_packets_") + src + "_per_s", "1/s", v});
                if (!twoNapis) continue;
                // Two NAPIs: 8193 takes two thirds of each source, 8194 the rest.
                s->device.push_back({std::string("kernel_napi8193_poll_packets_") + src + "_per_s",
                                     "1/s", v * 2 / 3});
                s->device.push_back(
                    {std::string("kernel_napi8194_poll_packets_") + src + "_per_s", "1/s", v / 3});
            }
            out.push_back(s);
        }
        return out;
    };
    view_->appendSamples(kernelRun(10.1, 20.0, false));
    view_->replot();
    QVERIFY(view_->settle());
    QCOMPARE(view_->shownCharts().back(), polls); // shown, at the bottom, labelling time
    QVERIFY(!polls->timeLabels().empty());
    QVERIFY(view_->events()->timeLabels().empty());
    QVERIFY(polls->stacked());
    // The stack's lines: each the sum of its band and those below, in the order they came.
    auto top = [&](const QString &name, double t) {
        for (const QPointF &p : polls->drawnPoints(name))
            if (std::fabs(p.x() - t) < 1e-6) return p.y();
        return -1.0;
    };
    QCOMPARE(top("rx by softirq", 12.0), 6'000.0);
    QCOMPARE(top("rx by busy", 12.0), 9'000.0);
    QCOMPARE(top("rx by other", 12.0), 9'000.0); // the top: every frame
    QCOMPARE(top("rx by other", 18.0), 8'000.0);
    QVERIFY(polls->valueMax() >= 9'000);
    // The legend reads each source's own figure, and lists the stack's top first.
    QCOMPARE(*polls->valueAt("rx by busy", 12.0, 0.25), 3'000.0);
    QCOMPARE(view_->legend(int(ChartId::Polls))->entryNames().front(), QString("rx by other"));
    // A band hidden by its legend entry leaves the stack.
    polls->setHidden("rx by softirq", true);
    view_->replot();
    QCOMPARE(top("rx by busy", 12.0), 3'000.0);
    polls->setHidden("rx by softirq", false);
    // Never on a log axis: a stack there would misstate each band.
    polls->setLogScale(true);
    QVERIFY(!polls->logScale());
    // The busy band is drawn in a light shade of its colour between 6,000 and 9,000.
    view_->replot();
    QVERIFY(view_->settle());
    const QImage img = polls->grab().toImage();
    const QRectF pa = polls->plotArea();
    const auto yFor = [&](double v) {
        return pa.bottom() -
               (v - polls->valueMin()) / (polls->valueMax() - polls->valueMin()) * pa.height();
    };
    const QColor busy = seriesColor(polls->keyOf("rx by busy"));
    const QColor inBand = img.pixelColor(qRound(polls->xForTime(12.0)), qRound(yFor(7'500)));
    QVERIFY2(inBand.hue() == busy.hue() || std::abs(inBand.hue() - busy.hue()) <= 3,
             qPrintable(QString("%1 against %2").arg(inBand.name(), busy.name())));

    // Two NAPIs: each one's sources are the bands; the totals are Events lines, off.
    view_->clear();
    QCOMPARE(view_->shownCharts().size(), view_->charts().size() - 1); // hidden again
    view_->appendSamples(kernelRun(0.1, 20.0, true));
    view_->replot();
    QVERIFY(polls->seriesNames().contains("napi 8193 rx by busy"));
    QVERIFY(!polls->seriesNames().contains("rx by busy"));
    QVERIFY(view_->events()->seriesNames().contains("rx by busy"));
    QVERIFY(!view_->events()->isChosen("rx by busy"));
    const QString topName = polls->chosenNames().back();
    QCOMPARE(topName, QString("napi 8194 rx by other"));
    QCOMPARE(top(topName, 12.0), 9'000.0); // each frame once
    QCOMPARE(top(topName, 18.0), 8'000.0);
    QVERIFY(seriesColor(polls->keyOf("napi 8193 rx by busy")) !=
            seriesColor(polls->keyOf("napi 8194 rx by busy")));

    // One NAPI, then two (channels changed live), read back in one batch as a reopened
    // session is: the totals are stacked until the change and Events lines after it, never
    // both, so the stack's top is every frame once on either side.
    view_->clear();
    auto mixed = kernelRun(0.1, 10.0, false);
    const auto later = kernelRun(10.1, 20.0, true);
    mixed.insert(mixed.end(), later.begin(), later.end());
    view_->adopt(ChartsView::prepare(mixed));
    view_->replot();
    QCOMPARE(*polls->valueAt("rx by busy", 5.0, 0.25), 3'000.0);
    QVERIFY(!polls->valueAt("rx by busy", 12.0, 0.25));
    QCOMPARE(*view_->events()->valueAt("rx by busy", 12.0, 0.25), 3'000.0);
    QVERIFY(!view_->events()->valueAt("rx by busy", 5.0, 0.25));
    const QString top2 = polls->stackOrder().back();
    QCOMPARE(top(top2, 12.0), 9'000.0);
    QCOMPARE(top(top2, 5.0), 9'000.0);
}

// Five charts (a kernel run's) in a short window: the stack scrolls, each chart keeps a plot
// tall enough for two unelided value labels, and the view asks no more height than before,
// so the window never grows past the screen when the NAPI polls chart comes mid-run.
void TstCharts::aShortWindowScrollsTheChartsRatherThanGrowOrElide()
{
    view_->resize(900, 380);
    view_->setWindow(ChartsView::kWholeSession);
    const int before = view_->minimumSizeHint().height();
    std::vector<std::shared_ptr<const Sample>> all;
    for (int k = 1; k <= 100; ++k) {
        auto s = std::make_shared<Sample>(*sample(0.1 * k, 0.1));
        s->device.push_back({"kernel_poll_packets_softirq_per_s", "1/s", 5'000});
        all.push_back(s);
    }
    view_->appendSamples(all);
    view_->replot();
    QVERIFY(view_->settle());
    QCOMPARE(view_->shownCharts().size(), view_->charts().size());
    QCOMPARE(view_->minimumSizeHint().height(), before);
    QVERIFY(view_->minimumSizeHint().height() <= 380);
    const int perTick = QFontMetrics(view_->cpu()->valueAxis()->labelsFont()).height() + 12;
    for (TimeChart *c : view_->shownCharts())
        QVERIFY2(c->plotArea().height() >= 3 * perTick - 6 - 1,
                 qPrintable(QString("%1: plot %2 px").arg(c->title()).arg(c->plotArea().height())));
    auto *scroll = view_->findChild<QScrollArea *>();
    QVERIFY(scroll && scroll->verticalScrollBar()->maximum() > 0); // the rest a scroll away
}

// Issue 20: a user's mark between changes made in quick succession keeps its label; the
// changes give way (their labels show on hover).
void TstCharts::aMarkKeepsItsLabelAmongChanges()
{
    view_->setWindow(30);
    view_->appendSamples(run(0.1, 20.0));
    for (double t : {5.0, 5.2, 5.4, 5.6})
        view_->addMarker(t, QString("refill.threshold 256→%1").arg(t * 10), MarkerKind::Change);
    view_->addMarker(5.3, "● burst starts", MarkerKind::Mark);
    view_->replot();
    TimeChart *top = view_->throughput();
    QVERIFY(top->markerLabelDrawn("● burst starts"));
    QVERIFY(top->hiddenMarkerLabels() >= 1); // four changes and a mark do not fit two rows
    const QList<QRectF> rects = top->markerLabelRects();
    for (int i = 0; i < rects.size(); ++i)
        for (int j = i + 1; j < rects.size(); ++j)
            QVERIFY(!rects[i].intersects(rects[j]));
}

// Issue 20: axes read as SI numbers; a log axis spans the data's decades, no more.
void TstCharts::axesUseSiPrefixesAndTheDataRange()
{
    view_->setWindow(ChartsView::kWholeSession);
    view_->appendSamples(run(0.1, 5.0));
    view_->replot();
    // rx at 100,000 pps on the right axis of the throughput chart: "20 k" .. "100 k", no "…".
    const QStringList right = view_->throughput()->rightAxis()->categoriesLabels();
    QVERIFY2(right.contains("100 k"), qPrintable(right.join(", ")));
    for (const QString &l : right)
        QVERIFY2(!l.contains("e+") && l.size() <= 6, qPrintable(l));
    // Latency: p50 12, p99 180, max 900 us on a log axis: 1 .. 1 k, not 1e+08.
    TimeChart *lat = view_->latency();
    lat->setLogScale(true);
    QVERIFY(lat->valueMax() <= 1000 + 1e-6);
    QVERIFY(lat->valueMin() >= 1 - 1e-9);
    const QStringList decades = lat->valueAxis()->categoriesLabels();
    QVERIFY2(decades.last() == "1 k", qPrintable(decades.join(", ")));
    // Issue 46: a short chart over many decades labelled one of them ("1 k"). However
    // little room, a log axis has two labels or more, the floor's among them.
    auto wide = run(5.1, 6.0);
    for (auto &s : wide) {
        auto w = std::make_shared<Sample>(*s);
        w->latency.p50 = 0.2;
        w->latency.max = 2e6;
        s = w;
    }
    view_->appendSamples(wide);
    view_->resize(1000, 420); // room for two labels per chart
    view_->replot();
    QTRY_VERIFY(lat->valueAxis()->categoriesLabels().size() >= 2);
    const QStringList few = lat->valueAxis()->categoriesLabels();
    QVERIFY2(few.size() >= 2 && few.first() != few.last(), qPrintable(few.join(", ")));
}

// On a log axis a zero has no place of its own: it is drawn a decade below the axis's floor,
// out of view, so a second without drops is the line leaving the plot between the drops
// before and after it, and a series at zero never lies along the floor (where a red line
// would read as the drop band).
void TstCharts::zerosLieBelowTheLogFloor()
{
    view_->setWindow(ChartsView::kWholeSession);
    auto all = run(0.1, 3.0);
    for (std::size_t k = 10; k < 20; ++k) {
        auto quiet = std::make_shared<Sample>(*all[k]);
        quiet->rate[static_cast<std::size_t>(CounterId::RxMissed)] = 0;
        all[k] = quiet;
    }
    view_->appendSamples(all);
    view_->replot();
    QVERIFY(view_->events()->logScale());
    QCOMPARE(view_->events()->lineCount("drops"), 1);
    QCOMPARE(view_->events()->pointCount("drops"), static_cast<int>(all.size()));
    // No pixel of the drops' colour along the floor where there were none (t 1.1 to 2.0 s).
    TimeChart *ev = view_->events();
    const QImage img = ev->grab().toImage();
    const QColor red = seriesColor("drops_per_s");
    const int floorY = qRound(ev->plotArea().bottom()) - 1;
    int onFloor = 0;
    for (int x = qRound(ev->xForTime(1.3)); x <= qRound(ev->xForTime(1.8)); ++x)
        for (int y = floorY - 2; y <= floorY; ++y) {
            const QColor c = img.pixelColor(x, y);
            onFloor += std::abs(c.red() - red.red()) < 40 &&
                       std::abs(c.green() - red.green()) < 40 &&
                       std::abs(c.blue() - red.blue()) < 40;
        }
    QCOMPARE(onFloor, 0);
    view_->events()->setLogScale(false);
    QCOMPARE(view_->events()->lineCount("drops"), 1);
}

// The shape of the hogs-drops session (issue 46): one second of drops (6,500/s) in four
// minutes of none, at 10 Hz. Before, the Events chart's log axis left the burst as points
// without a line to join: no red pixel, while the crosshair said "drops 6.5 k". Now, at the
// whole session and zoomed in, the burst is a spike of the drop series' colour in the Events
// chart's pixels, and a red band along the time axis in every chart.
void TstCharts::aDropBurstIsSeenAtAnyZoom()
{
    view_->setWindow(ChartsView::kWholeSession);
    std::vector<std::shared_ptr<const Sample>> all;
    for (int k = 1; k <= 2400; ++k) {
        auto s = std::make_shared<Sample>(*sample(k * 0.1, 0.1));
        s->rate[static_cast<std::size_t>(CounterId::RxMissed)] = (k >= 217 && k < 227) ? 6500 : 0;
        all.push_back(s);
    }
    view_->appendSamples(all);
    view_->replot();
    const QColor dropColour = seriesColor("drops_per_s");
    auto check = [&](const QString &when) {
        for (TimeChart *c : view_->shownCharts()) {
            QCOMPARE(c->dropSpanCount(), 1);
            const QList<QRectF> band = c->dropBandRects();
            QVERIFY2(band.size() == 1, qPrintable(when + ": " + c->title()));
            const qreal x = c->xForTime(22.1);
            QVERIFY2(band[0].left() <= x + 1 && band[0].right() >= x - 1,
                     qPrintable(when + ": the band misses the burst in " + c->title()));
            QVERIFY(band[0].width() >= TimeChart::kDropBandMinWidth - 0.01);
            QCOMPARE(band[0].bottom(), c->plotArea().bottom());
        }
        // The burst in the Events chart's own pixels, above the band.
        TimeChart *ev = view_->events();
        const QImage img = ev->grab().toImage();
        const QRectF pa = ev->plotArea();
        const int x = qRound(ev->xForTime(22.1));
        int red = 0;
        for (int px = x - 4; px <= x + 4; ++px)
            for (int py = static_cast<int>(std::ceil(pa.top()));
                 py < pa.bottom() - TimeChart::kDropBandHeight - 1; ++py)
                if (px >= 0 && px < img.width() && py >= 0 && py < img.height()) {
                    const QColor c = img.pixelColor(px, py);
                    red += std::abs(c.red() - dropColour.red()) < 40 &&
                           std::abs(c.green() - dropColour.green()) < 40 &&
                           std::abs(c.blue() - dropColour.blue()) < 40;
                }
        QVERIFY2(red >= 10,
                 qPrintable(when + QString(": %1 pixels of the drops' colour").arg(red)));
    };
    check("the whole session");
    view_->zoom(22.1, 1.0 / 40);
    check("zoomed in");
    // The band never grows with the session: one rectangle per burst, however long the run.
    view_->clear();
    QCOMPARE(view_->events()->dropSpanCount(), 0);
    QVERIFY(view_->events()->dropBandRects().isEmpty());
}

// Issue 46: the drops row said A 76.08, B 0 ("B is better") while both boxes lay flat at 0,
// and a latency box's axis ran to -2,000 us. The box shows the row's mean, whiskers reach the
// highest sample, and a metric that is never negative has no axis below 0.
void TstCharts::comparePlotsAgreeWithTheirRows()
{
    // 2,321 samples, 41 of them with drops (up to 18,869/s), as in hogs-drops-232s.db.
    std::vector<double> a(2321, 0.0), b(2321, 0.0);
    double sum = 0;
    for (int k = 0; k < 41; ++k) {
        a[static_cast<std::size_t>(100 + 50 * k)] = 18869.0 * (k + 1) / 41;
        sum += a[static_cast<std::size_t>(100 + 50 * k)];
    }
    const double meanA = sum / static_cast<double>(a.size());
    QVERIFY(meanA > 100 && meanA < 250);
    std::unique_ptr<QChartView> view(makeBoxChart("drops_per_s", a, b, meanA, 0));
    view->resize(300, 260);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    QChart *c = view->chart();
    QTRY_VERIFY(c->plotArea().height() > 50);
    QScatterSeries *means = nullptr;
    QBoxPlotSeries *boxes = nullptr;
    for (QAbstractSeries *s : c->series()) {
        if (s->name() == kBoxMeanSeries) means = qobject_cast<QScatterSeries *>(s);
        if (auto *bx = qobject_cast<QBoxPlotSeries *>(s)) boxes = bx;
    }
    QVERIFY(means && boxes);
    QCOMPARE(means->count(), 2);
    QCOMPARE(means->at(0).y(), meanA); // the row's figures, drawn
    QCOMPARE(means->at(1).y(), 0.0);
    QCOMPARE(boxes->boxSets().at(0)->at(QBoxSet::Median), 0.0);
    QCOMPARE(boxes->boxSets().at(0)->at(QBoxSet::UpperExtreme), 18869.0);
    auto *y = qobject_cast<QValueAxis *>(c->axes(Qt::Vertical).value(0));
    QVERIFY(y);
    QVERIFY2(y->min() >= 0, qPrintable(QString::number(y->min())));
    QVERIFY(y->max() >= 18869.0);
    // The marker is inside the plot, on or above the flat box, its figure written beside it.
    const QPointF at = c->mapToPosition(means->at(0), means);
    QVERIFY(c->plotArea().adjusted(-1, -1, 1, 1).contains(at));
    QVERIFY(at.y() <= c->mapToPosition(QPointF(0, 0), means).y());
    QVERIFY(means->pointLabelsVisible());
    QVERIFY(means->pointLabelsFormat().contains("@yPoint"));

    // Latencies spread from 20 to 2,000 us: the axis starts at 0, not below it.
    std::vector<double> la, lb;
    for (int k = 0; k < 200; ++k) {
        la.push_back(20 + k * 10.0);
        lb.push_back(30 + k * 2.0);
    }
    std::unique_ptr<QChartView> lat(makeBoxChart("latency_p99_us", la, lb));
    auto *ly = qobject_cast<QValueAxis *>(lat->chart()->axes(Qt::Vertical).value(0));
    QVERIFY(ly && ly->min() >= 0 && ly->max() >= 2010);
}

void TstCharts::plotAreasShareOneTimeAxis()
{
    view_->setWindow(30);
    view_->appendSamples(run(0.1, 17.3));
    view_->replot();
    auto aligned = [this] {
        const QRectF first = view_->charts().front()->plotArea();
        for (TimeChart *c : view_->shownCharts())
            // Exactly, not to the pixel: a plot 0.5 px off draws its edge and every line in
            // the next pixel column (issue 46 item 8).
            if (std::fabs(c->plotArea().left() - first.left()) >= 0.01 ||
                std::fabs(c->plotArea().right() - first.right()) >= 0.01)
                return false;
        return true;
    };
    QTRY_VERIFY(aligned());
    // The same time sits at the same pixel in every chart.
    const qreal x = view_->charts().front()->xForTime(12.5);
    for (TimeChart *c : view_->shownCharts())
        QVERIFY(std::fabs(c->xForTime(12.5) - x) < 0.01);
    // Round ticks: 0, 5, 10 s (or 1, 2, 5 times a power of ten), anchored on a multiple.
    for (TimeChart *c : view_->shownCharts()) {
        QVERIFY2(isRoundStep(c->timeTickStep()), qPrintable(QString::number(c->timeTickStep())));
        const double k = c->timeTickAnchor() / c->timeTickStep();
        QCOMPARE(k, std::round(k));
    }
    // Off screen (render, export) there is no event loop turn to align in: settle() does it.
    ChartsView offscreen;
    offscreen.setAttribute(Qt::WA_DontShowOnScreen);
    offscreen.resize(1600, 1000);
    offscreen.show();
    offscreen.appendSamples(run(0.1, 42.0));
    offscreen.replot();
    QVERIFY(offscreen.settle());
    // A wider window with labels of other widths: still aligned.
    view_->resize(1280, 800);
    view_->setWindow(600);
    QTRY_VERIFY(aligned());
}

// The time axis is drawn by the charts' own layer (ui/plot_layer.h): its labels under the
// bottom chart's plot only, one per tick, none over another or beyond the chart, at the
// tick's x; the lines of a series at its value's height.
void TstCharts::timeLabelsSitUnderTheBottomPlotApart()
{
    view_->setWindow(120);
    view_->appendSamples(run(0.1, 300.0));
    view_->replot();
    QVERIFY(view_->settle());
    const auto charts = view_->shownCharts();
    for (std::size_t k = 0; k + 1 < view_->charts().size(); ++k)
        if (view_->charts()[k] != charts.back()) QVERIFY(view_->charts()[k]->timeLabels().empty());
    TimeChart *bottom = charts.back();
    const auto labels = bottom->timeLabels();
    QVERIFY2(labels.size() >= 5, qPrintable(QString::number(labels.size())));
    const QRectF pa = bottom->plotArea();
    const qreal step = bottom->xForTime(bottom->timeTickAnchor() + 2 * bottom->timeTickStep()) -
                       bottom->xForTime(bottom->timeTickAnchor() + bottom->timeTickStep());
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto &[rect, text] = labels[i];
        QVERIFY2(rect.top() >= pa.bottom() && rect.bottom() <= bottom->height(), qPrintable(text));
        QVERIFY2(rect.left() >= 0 && rect.right() <= bottom->width(), qPrintable(text));
        QVERIFY(text.endsWith(" s"));
        bool number = false;
        const double t = text.chopped(2).toDouble(&number); // "120 s"
        QVERIFY2(number, qPrintable(text));
        QVERIFY(t >= bottom->from() - 1e-9 && t <= bottom->to() + 1e-9);
        QVERIFY2(std::fabs(rect.center().x() - bottom->xForTime(t)) < 1,
                 qPrintable(QString("%1 at %2, tick at %3")
                                .arg(text)
                                .arg(rect.center().x())
                                .arg(bottom->xForTime(t))));
        if (i) QVERIFY2(rect.left() > labels[i - 1].first.right(), qPrintable(text));
    }
    QVERIFY(step >= 40); // about one tick per 80 px: readable, not crowded
    // A series' line at its value: the throughput chart's tx at 99 Mbit/s (drawn after rx).
    TimeChart *tp = view_->throughput();
    const QImage img = tp->grab().toImage();
    const qreal y = tp->plotArea().bottom() - (99 - tp->valueMin()) /
                                                  (tp->valueMax() - tp->valueMin()) *
                                                  tp->plotArea().height();
    const QColor rx = seriesColor("tx_mbps");
    int hits = 0;
    const int x = qRound(tp->xForTime(250));
    for (int dy = -2; dy <= 2; ++dy) {
        const QColor c = img.pixelColor(x, qRound(y) + dy);
        hits += std::abs(c.red() - rx.red()) < 30 && std::abs(c.green() - rx.green()) < 30 &&
                std::abs(c.blue() - rx.blue()) < 30;
    }
    QVERIFY2(hits > 0, qPrintable(QString("no tx pixel near y %1").arg(y)));
}

void TstCharts::emptyChartsHavePlainTicks()
{
    view_->replot();
    QCategoryAxis *y = view_->cpu()->valueAxis();
    QCOMPARE(y->min(), 0.0);
    QCOMPARE(y->max(), 1.0);
    QCOMPARE(y->categoriesLabels(), QStringList({"0", "1"})); // no 0.3/0.5/0.8
    // Only zeros: the same plain axis, not 0..2e-10.
    auto idle = std::make_shared<Sample>(*sample(0.1, 0.1));
    idle->engineCpuMsPerS = 0;
    for (auto &th : idle->threads)
        th.cpuMsPerS = 0;
    view_->appendSamples({idle});
    view_->replot();
    y = view_->cpu()->valueAxis();
    QCOMPARE(y->max(), 1.0);
    QCOMPARE(y->categoriesLabels(), QStringList({"0", "1"}));
}

void TstCharts::seriesAreChosenHiddenAndLogged()
{
    view_->appendSamples(run(0.1, 3.0));
    view_->replot();
    TimeChart *events = view_->events();
    ChartLegend *legend = view_->legend(3);
    // The reference cases' events are there by default, and on a log axis: drops at 4,000,000/s
    // do not flatten timer arms at 70,000/s and refill wakeups at 1,300/s.
    for (const char *n : {"drops", "timer arms", "refill wakeups", "poll wakeups"})
        QVERIFY2(legend->entryNames().contains(n), n);
    QVERIFY(events->logScale());
    QVERIFY(events->valueAxis()->titleText().endsWith("(log)"));
    QVERIFY(!legend->entryNames().contains("drops: rx missed"));
    // Choose a series from the legend's menu: it is listed and drawn.
    QAction *missed = nullptr, *log = nullptr;
    for (QAction *a : legend->menu()->actions()) {
        if (a->text() == "drops: rx missed") missed = a;
        if (a->text() == "Logarithmic scale") log = a;
    }
    QVERIFY(missed && log);
    QVERIFY(!missed->isChecked());
    missed->trigger();
    QVERIFY(legend->entryNames().contains("drops: rx missed"));
    QVERIFY(events->pointCount("drops: rx missed") > 0);
    // Click a legend entry: the line goes, the entry stays (greyed); click again: back.
    auto *list = legend->findChild<QListWidget *>();
    QVERIFY(list);
    QListWidgetItem *drops = list->findItems("drops", Qt::MatchStartsWith).value(0);
    QVERIFY(drops);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(drops).center());
    QVERIFY(events->isHidden("drops"));
    QCOMPARE(events->pointCount("drops"), 0);
    QVERIFY(legend->entryNames().contains("drops"));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(drops).center());
    QVERIFY(!events->isHidden("drops"));
    QVERIFY(events->pointCount("drops") > 0);
    // Switch the axis to linear and back (the menu's actions as they are now).
    for (QAction *a : legend->menu()->actions())
        if (a->text() == "Logarithmic scale") log = a;
    log->trigger();
    QVERIFY(!events->logScale());
    QVERIFY(!events->valueAxis()->titleText().endsWith("(log)"));
    QVERIFY(events->pointCount("timer arms") > 0);
    const auto *menu = legend->menu();
    for (QAction *a : menu->actions())
        if (a->text() == "Logarithmic scale") a->trigger();
    QVERIFY(events->logScale());
}

void TstCharts::markerLabelsNeverCollide()
{
    view_->setWindow(30);
    view_->appendSamples(run(0.1, 20.0));
    // Changes a user makes in quick succession, a mark and a restart among them.
    const char *labels[] = {"poll.sleep_min_us 5→100", "poll.sleep_max_us 10→200",
                            "refill.threshold 256→64", "● burst starts",
                            "restart: rx.ring_size",   "poll.mode tick→sleep",
                            "load.rate_pps 1000→2000"};
    double t = 5;
    for (const char *l : labels) {
        view_->addMarker(t, l, QString(l).startsWith("●") ? MarkerKind::Mark : MarkerKind::Change);
        t += 0.6;
    }
    view_->addMarker(15, "far away", MarkerKind::Restart);
    view_->replot();
    TimeChart *top = view_->throughput();
    QTRY_VERIFY(!top->markerLabelRects().isEmpty());
    const QList<QRectF> rects = top->markerLabelRects();
    for (int i = 0; i < rects.size(); ++i) {
        // Above the plot: never over the data or the axis numbers.
        QVERIFY(rects[i].bottom() <= top->plotArea().top());
        QVERIFY(rects[i].left() >= 0 && rects[i].right() <= top->width());
        for (int j = i + 1; j < rects.size(); ++j)
            QVERIFY2(!rects[i].intersects(rects[j]),
                     qPrintable(QString("%1 and %2").arg(i).arg(j)));
    }
    // Issue 46 item 8: no marker's line runs through another marker's label.
    const QList<QLineF> lines = top->markerLines();
    QCOMPARE(lines.size(), 8);
    for (const QLineF &l : lines)
        for (const QRectF &r : rects) {
            const bool own =
                std::abs(l.x1() - (r.left() - 3)) < 0.5 || std::abs(l.x1() - (r.right() + 3)) < 0.5;
            const bool crosses = l.x1() > r.left() - 1 && l.x1() < r.right() + 1 &&
                                 std::min(l.y1(), l.y2()) < r.bottom() &&
                                 std::max(l.y1(), l.y2()) > r.top();
            QVERIFY2(own || !crosses, qPrintable(QString("the line at x %1 runs through the "
                                                         "label at %2..%3")
                                                     .arg(l.x1())
                                                     .arg(r.left())
                                                     .arg(r.right())));
        }
    // Those that found no room are counted (their lines show the label on hover).
    QCOMPARE(rects.size() + top->hiddenMarkerLabels(), 8);
    // Every chart has every marker; only the top one draws labels.
    for (TimeChart *c : view_->charts())
        QCOMPARE(c->markerLabels().size(), 8);
    QVERIFY(view_->cpu()->markerLabelRects().isEmpty());

    // Issue 46: three tunables changed as one (the busy fixture's change at 65.4 s) are one
    // marker whose label names all three, drawn, not three lines at one x of which the first
    // alone was named.
    view_->clear();
    view_->appendSamples(run(0.1, 20.0));
    view_->addMarker(10, "refill.threshold 256→64", MarkerKind::Change);
    view_->addMarker(10, "poll.sleep_min_us 5→100", MarkerKind::Change);
    view_->addMarker(10, "poll.sleep_max_us 10→200", MarkerKind::Change);
    view_->replot();
    QCOMPARE(top->markerLabels().size(), 1);
    const QString all = top->markerLabels().first();
    for (const char *name : {"refill.threshold", "poll.sleep_min_us", "poll.sleep_max_us"})
        QVERIFY2(all.contains(name), qPrintable(all));
    QTRY_VERIFY(top->markerLabelDrawn(all));
}

void TstCharts::coloursAreFixedAndDistinct()
{
    QSet<QRgb> seen;
    QSet<QRgb> nonThread;
    for (const SeriesDef &d : seriesDefs()) {
        if (QLatin1String(d.key) == "engine_cpu_ms_per_s")
            continue; // the threads' sum: a thread colour
        const QColor c = seriesColor(d.key);
        QVERIFY2(!seen.contains(c.rgb()), d.key);
        seen.insert(c.rgb());
        nonThread.insert(c.rgb());
        QVERIFY(!isThreadColorKey(d.key));
    }
    for (const char *th : {"poll", "refill", "txclean", "rx-fifo", "kworker/0"}) {
        const QColor cpu = seriesColor(QStringLiteral("cpu:") + th);
        QCOMPARE(cpu, seriesColor(QStringLiteral("wakeups:") + th)); // one thread, one colour
        QVERIFY2(!nonThread.contains(cpu.rgb()), th);                // never a rate's colour
    }
    QVERIFY(!nonThread.contains(seriesColor(kGuiThreadKey).rgb()));
    QVERIFY(!nonThread.contains(seriesColor("engine_cpu_ms_per_s").rgb()));
    // p99 and max were brown and grey: now far apart.
    const QColor p99 = seriesColor("latency_p99_us"), max = seriesColor("latency_max_us");
    const int dist = std::abs(p99.red() - max.red()) + std::abs(p99.green() - max.green()) +
                     std::abs(p99.blue() - max.blue());
    QVERIFY2(dist > 200, qPrintable(QString::number(dist)));
    // The same in every chart view: a second view draws poll in the same colour.
    ChartsView other;
    other.appendSamples(run(0.1, 1.0));
    QCOMPARE(seriesColor(other.cpu()->keyOf("poll")), seriesColor("cpu:poll"));
}

void TstCharts::crosshairReadsEveryChart()
{
    view_->setWindow(30);
    view_->appendSamples(run(0.1, 10.0));
    view_->replot();
    view_->setCrosshair(4.04);
    QCOMPARE(view_->legend(0)->entryText("rx"), QStringLiteral("rx  100"));
    QCOMPARE(view_->legend(1)->entryText("engine"), QStringLiteral("engine  420"));
    QCOMPARE(view_->legend(2)->entryText("p99"), QStringLiteral("p99  180"));
    QCOMPARE(view_->legend(3)->entryText("timer arms"), QStringLiteral("timer arms  70 k"));
    // The pointer over any chart moves the crosshair in all of them.
    TimeChart *cpu = view_->cpu();
    const QPoint at(static_cast<int>(cpu->xForTime(7.0)),
                    static_cast<int>(cpu->plotArea().center().y()));
    QMouseEvent move(QEvent::MouseMove, at, cpu->viewport()->mapToGlobal(at), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(cpu->viewport(), &move);
    QTRY_VERIFY(view_->crosshair().has_value());
    QVERIFY(std::fabs(*view_->crosshair() - 7.0) < 0.1);
    view_->setCrosshair(std::nullopt); // back to the newest values
    QCOMPARE(view_->legend(0)->entryText("rx"), QStringLiteral("rx  100"));

    // Issue 46 item 8: a crosshair shown over the charts stays at its time in every chart
    // through a wheel zoom (new axis labels, the plots laid out again): the same pixel column
    // in each, found in the pixels (the columns of a plot's row that change when it is hidden).
    TimeChart *events = view_->events();
    const double t = 6.0;
    view_->setCrosshair(t);
    const QPointF over(events->xForTime(5.0), events->plotArea().center().y());
    QWheelEvent wheel(over, events->viewport()->mapToGlobal(over), QPoint(), QPoint(0, 240),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(events->viewport(), &wheel);
    QVERIFY(view_->paused());
    QVERIFY(view_->throughput()->from() < t && view_->throughput()->to() > t);
    auto aligned = [this] {
        for (TimeChart *c : view_->shownCharts())
            if (std::fabs(c->plotArea().left() - view_->throughput()->plotArea().left()) >= 0.01 ||
                std::fabs(c->plotArea().right() - view_->throughput()->plotArea().right()) >= 0.01)
                return false;
        return true;
    };
    QTRY_VERIFY(aligned());
    const QImage with = view_->grab().toImage();
    view_->setCrosshair(std::nullopt);
    const QImage without = view_->grab().toImage();
    const qreal ratio = with.devicePixelRatio();
    std::vector<int> columns;
    for (TimeChart *c : view_->shownCharts()) {
        const QPoint mid = c->viewport()->mapTo(
            view_.get(),
            c->mapFromScene(QPointF(c->plotArea().center().x(),
                                    c->plotArea().top() + c->plotArea().height() / 3)));
        const int y = static_cast<int>(mid.y() * ratio);
        int found = -1;
        for (int x = 0; x < with.width() && found < 0; ++x)
            if (with.pixel(x, y) != without.pixel(x, y)) found = x;
        QVERIFY2(found >= 0, qPrintable(c->title() + ": no crosshair drawn"));
        const QPoint expect = c->viewport()->mapTo(
            view_.get(), c->mapFromScene(QPointF(c->xForTime(t), c->plotArea().center().y())));
        QVERIFY2(std::abs(found - static_cast<int>(expect.x() * ratio)) <= 1,
                 qPrintable(QStringLiteral("%1: crosshair at x %2, its time at %3")
                                .arg(c->title())
                                .arg(found)
                                .arg(expect.x() * ratio)));
        columns.push_back(found);
    }
    QVERIFY(columns.size() >= 4);
    for (int x : columns)
        QVERIFY2(x == columns.front(), qPrintable(QStringLiteral("columns %1 %2 %3 %4")
                                                      .arg(columns[0])
                                                      .arg(columns[1])
                                                      .arg(columns[2])
                                                      .arg(columns[3])));
}

// Issue 46 item 8: attached at 1152x720 the Events chart had twice the others' height, and the
// CPU legend, long with an engine's threads, scrolled the GUI thread's row out of view.
void TstCharts::chartsShareTheHeightAndKeepTheGuiThreadInView()
{
    view_->resize(880, 520); // the charts' part of a 1152x720 window
    view_->setWindow(30);
    std::vector<std::shared_ptr<const Sample>> samples;
    for (int k = 1; k <= 100; ++k) {
        auto s = std::make_shared<Sample>(*sample(0.1 * k, 0.1));
        for (int w = 0; w < 12; ++w)
            s->threads.push_back({"worker/" + std::to_string(w), 10, 5, 100});
        samples.push_back(s);
    }
    view_->appendSamples(samples);
    for (int k = 10; k <= 100; k += 10)
        view_->addGuiThreadCpu(0.1 * k, 30);
    view_->replot();
    QVERIFY(view_->settle());
    auto heights = [this] {
        int lo = 1 << 30, hi = 0;
        for (TimeChart *c : view_->shownCharts()) {
            lo = std::min(lo, c->height());
            hi = std::max(hi, c->height());
        }
        return std::pair{lo, hi};
    };
    QTRY_VERIFY2(
        heights().second - heights().first <= 2,
        qPrintable(QStringLiteral("%1..%2 px").arg(heights().first).arg(heights().second)));
    auto *list = view_->legend(static_cast<int>(ChartId::Cpu))->findChild<QListWidget *>();
    QVERIFY(list);
    QVERIFY2(list->count() >= 14, qPrintable(QString::number(list->count())));
    QVERIFY(list->verticalScrollBar()->maximum() > 0); // it does scroll: the test means something
    QListWidgetItem *gui = nullptr;
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text().startsWith(QLatin1String(kGuiThreadLabel))) gui = list->item(i);
    QVERIFY(gui);
    const QRect row = list->visualItemRect(gui);
    QVERIFY2(row.top() >= 0 && row.bottom() < list->viewport()->height(),
             qPrintable(QStringLiteral("row %1 of %2 at y %3 in %4 px")
                            .arg(list->row(gui))
                            .arg(list->count())
                            .arg(list->visualItemRect(gui).y())
                            .arg(list->viewport()->height())));
}

void TstCharts::zoomPanAndPause()
{
    view_->setWindow(30);
    view_->appendSamples(run(0.1, 20.0));
    view_->replot();
    QSignalSpy paused(view_.get(), &ChartsView::pausedChanged);
    view_->zoom(10, 0.5); // around t = 10 s: 0..30 becomes 5..20
    QVERIFY(view_->paused());
    QCOMPARE(paused.count(), 1);
    QCOMPARE(view_->throughput()->from(), 5.0);
    QCOMPARE(view_->throughput()->to(), 20.0);
    view_->pan(2);
    QCOMPARE(view_->throughput()->from(), 7.0);
    // Samples keep coming; the paused view stays where it is.
    view_->appendSamples(run(20.1, 40.0));
    view_->replot();
    QCOMPARE(view_->throughput()->to(), 22.0);
    // Double click: follow the run again.
    TimeChart *c = view_->throughput();
    QTest::mouseDClick(c->viewport(), Qt::LeftButton, {}, c->plotArea().center().toPoint());
    QVERIFY(!view_->paused());
    QCOMPARE(view_->throughput()->to(), 40.0);
    QCOMPARE(view_->throughput()->from(), 10.0);
}

// The segment table's chosen columns are kept by metric name, so that a metric added to the
// table moves none of them; a choice kept by position (before) is read once, by the old order.
void TstCharts::segmentColumnsAreKeptByName()
{
    QSettings s;
    s.remove("segments");
    s.setValue("segments/columns", QVariantList{0, 7, 18}); // rx_pps, tx_pps, rx_per_poll
    s.sync();
    auto labels = [](const SegmentModel &m) {
        QStringList out;
        for (int k : m.columns())
            out << QString::fromStdString(segmentMetrics()[std::size_t(k)].label());
        return out;
    };
    {
        SegmentModel m;
        SegmentTable table(&m, [] { return nullptr; });
        QCOMPARE(labels(m), (QStringList{"rx_pps", "tx_pps", "rx_per_poll"}));
    }
    QVERIFY(!QSettings().contains("segments/columns"));
    QCOMPARE(QSettings().value("segments/columnNames").toStringList(),
             (QStringList{"rx_pps", "tx_pps", "rx_per_poll"}));
    // A choice in the menu is stored by name; a name the table no longer has is passed over.
    {
        SegmentModel m;
        SegmentTable table(&m, [] { return nullptr; });
        QMenu *menu = table.columnsMenu();
        emit menu->aboutToShow();
        for (QAction *a : menu->actions())
            if (a->text() == QString::fromStdString(metricHeading(metric("drops_per_s"))))
                a->trigger();
        QCOMPARE(QSettings().value("segments/columnNames").toStringList(),
                 (QStringList{"rx_pps", "drops_per_s", "tx_pps", "rx_per_poll"}));
    }
    QSettings().setValue("segments/columnNames", QStringList{"no_such_metric", "rx_per_poll"});
    {
        SegmentModel m;
        SegmentTable table(&m, [] { return nullptr; });
        QCOMPARE(labels(m), QStringList{"rx_per_poll"});
    }
    QSettings().remove("segments");
}

void TstCharts::choicesStoredUnderOldKeysSurvive()
{
    // Series were once stored as "p90", "max", "drops", "timer_cancels": now metric names.
    // Each choice below is the opposite of the default, so only a kept choice passes.
    const QString group = QStringLiteral("tst_charts_old_keys");
    QSettings s;
    s.remove(group);
    s.setValue(group + "/latency/on", QStringList{"p90"});
    s.setValue(group + "/latency/off", QStringList{"max"});
    s.setValue(group + "/events/on", QStringList{"timer_cancels"});
    s.setValue(group + "/events/off", QStringList{"drops"});
    s.sync();
    view_->setSettingsGroup(group);
    view_->appendSamples(run(0.1, 1.0));
    view_->replot();
    QVERIFY(view_->latency()->isChosen("p90"));
    QVERIFY(!view_->latency()->isChosen("max"));
    QVERIFY(view_->events()->isChosen("timer cancels"));
    QVERIFY(!view_->events()->isChosen("drops"));
    s.remove(group);
}

void TstCharts::theLatencyLegendSaysItsSampling()
{
    ChartLegend *legend = view_->legend(static_cast<int>(ChartId::Latency));
    const QString plain = legend->titleText();
    auto sampled = [](double from, double to, std::uint32_t every) {
        std::vector<std::shared_ptr<const Sample>> out;
        for (const auto &s : run(from, to)) {
            auto c = std::make_shared<Sample>(*s);
            c->latency.sampleEvery = every;
            out.push_back(c);
        }
        return out;
    };
    // A stored session is shown through prepare() and adopt(), a live run through appends.
    view_->adopt(ChartsView::prepare(sampled(0, 2, 16), {}));
    QCOMPARE(legend->titleText(), plain + QStringLiteral(" · 1 in 16"));
    // Another run overlaid (dashed) does not relabel this run's series.
    view_->adopt(ChartsView::prepare(sampled(0, 2, 4), QStringLiteral(" (b)")), true);
    QCOMPARE(legend->titleText(), plain + QStringLiteral(" · 1 in 16"));
    view_->appendSamples(sampled(2.1, 3, 1)); // changed live to every frame
    QCOMPARE(legend->titleText(), plain);
    view_->appendSamples(sampled(3.1, 4, 8));
    QCOMPARE(legend->titleText(), plain + QStringLiteral(" · 1 in 8"));
    view_->clear();
    QCOMPARE(legend->titleText(), plain);
}

// Issue 46 item 4: the GUI thread works in bursts (here 25 ms of CPU every 0.25 s: 100 ms/s).
// Per 0.1 s batch that read 0 or 250 ms/s, and the legend's latest value was mostly 0; per
// second, it is what /proc says: about 100.
void TstCharts::guiThreadCpuIsPerSecondNotPerBatch()
{
    GuiThreadMeter meter;
    std::int64_t cpu = 0;
    int values = 0;
    for (int k = 1; k <= 100; ++k) {
        const double t = 0.1 * k;
        if (k % 5 == 0 || k % 5 == 3) cpu += 25'000'000; // at 0.25 s steps, on 0.1 s batches
        const auto v = meter.add(t, cpu);
        if (k <= 10) { // a second after the first reading, at 0.1 s
            QVERIFY(!v);
            continue;
        }
        QVERIFY2(v, qPrintable(QString("t %1").arg(t)));
        QVERIFY2(*v >= 75 && *v <= 125, qPrintable(QString("t %1: %2 ms/s").arg(t).arg(*v)));
        ++values;
    }
    QVERIFY(values >= 90);
    // A new run: its time starts again, and so does the meter.
    QVERIFY(!meter.add(0.1, cpu + 1));
    QVERIFY(!meter.add(0.5, cpu + 2));
    QVERIFY(meter.add(1.2, cpu + 3'000'000));
    QVERIFY(!meter.add(1.2, cpu + 4'000'000)); // the same instant twice
}

QTEST_MAIN(TstCharts)
#include "tst_charts.moc"
