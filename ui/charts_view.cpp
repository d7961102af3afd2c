// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/charts_view.h"

#include <QCoreApplication>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cstring>

#include "ui/chart_legend.h"
#include "ui/series_catalog.h"

namespace ringlab::ui {

namespace {
constexpr double kMinSpanS = 0.5;
constexpr qreal kAligned = 0.01; // px: plots whose edges differ by less share one time axis
} // namespace

ChartsView::ChartsView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *split = split_ = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    for (const ChartDef &def : chartDefs()) {
        auto *chart = new TimeChart(tr(def.title), tr(def.unit), def.logByDefault);
        if (def.rightUnit) chart->addRightAxis(tr(def.rightUnit));
        if (def.stacked) {
            chart->setStacked(true);
            chart->setStackRank(stackRank);
        }
        const ChartId id = def.id;
        chart->setChosenPredicate([id](const QString &key) {
            for (const SeriesDef &s : seriesDefs())
                if (s.chart == id && key == QLatin1String(s.key)) return s.defaultOn;
            if (key.startsWith(QLatin1String(kDeviceKeyPrefix))) {
                const auto d =
                    deviceSeriesFor(key.mid(int(std::strlen(kDeviceKeyPrefix))).toStdString());
                return d && d->chart == id && d->defaultOn; // a whole not stacked: off
            }
            return true; // threads, the GUI thread
        });
        auto *legend = new ChartLegend(chart->title());
        auto *row = new QWidget;
        auto *h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(0);
        h->addWidget(chart, 1);
        h->addWidget(legend);
        split->addWidget(row);
        if (def.onlyWhenUsed) row->hide();
        const int k = static_cast<int>(charts_.size());
        charts_.push_back(chart);
        legends_.push_back(legend);
        rows_.push_back(row);
        connect(chart, &TimeChart::seriesChanged, this, [this, k] { refreshLegend(k); });
        // The layout places each plot after its labels change: line them up again.
        connect(chart->chart(), &QChart::plotAreaChanged, this, &ChartsView::requestAlign,
                Qt::QueuedConnection);
        connect(chart, &TimeChart::hoveredAt, this, [this](double t) { setCrosshair(t); });
        connect(chart, &TimeChart::hoverLeft, this, [this] { setCrosshair(std::nullopt); });
        connect(chart, &TimeChart::zoomRequested, this, &ChartsView::zoom);
        connect(chart, &TimeChart::panRequested, this, &ChartsView::pan);
        connect(chart, &TimeChart::followRequested, this, [this] { setPaused(false); });
        connect(legend, &ChartLegend::hiddenToggled, this,
                [chart](const QString &name) { chart->setHidden(name, !chart->isHidden(name)); });
        connect(legend, &ChartLegend::chosenChanged, this,
                [this, k](const QString &label, bool on) {
                    charts_[k]->setKeyChosen(keyForLabel(k, label), on);
                    saveChoices(k);
                    align();
                });
        connect(legend, &ChartLegend::logScaleToggled, this, [this, k](bool log) {
            charts_[k]->setLogScale(log);
            saveChoices(k);
            align();
        });
        refreshLegend(k);
    }
    charts_.front()->setMarkerLabels(true);
    labelBottomChart();
    // Equal shares of the height (beyond each chart's minimum), whatever each one's size hint:
    // a chart with a longer axis title was given twice the others' (issue 46 item 8).
    for (int k = 0; k < split->count(); ++k)
        split->setStretchFactor(k, 1);
    split->setSizes(QList<int>(split->count(), 1000));
    // Where the charts shown need more height than the window has (five at 1024x640), the
    // stack scrolls: each chart keeps its readable axes, and the window never grows past the
    // screen when a chart is added mid-run.
    scroll_ = new QScrollArea(this);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll_->setWidget(split);
    layout->addWidget(scroll_);
}

namespace {
// Series keys stored before they were metric names ("p99", "drops", "timer_arms", "engine"):
// the metric each one meant, so that a user's choices survive the rename.
QString currentKey(const QString &key)
{
    auto isSeries = [](const QString &k) {
        for (const SeriesDef &def : seriesDefs())
            if (QLatin1String(def.key) == k) return true;
        return false;
    };
    if (isSeries(key) || key.contains(QLatin1Char(':'))) return key; // current, or a thread's
    if (key == QLatin1String("engine")) return QStringLiteral("engine_cpu_ms_per_s");
    for (const QString &k :
         {key + QStringLiteral("_per_s"), QStringLiteral("latency_") + key + QStringLiteral("_us"),
          key + QStringLiteral("_us")})
        if (isSeries(k)) return k;
    return key;
}
} // namespace

void ChartsView::setSettingsGroup(const QString &group)
{
    settingsGroup_ = group;
    QSettings s;
    for (std::size_t k = 0; k < charts_.size(); ++k) {
        const QString base = group + QLatin1Char('/') + chartDefs()[k].key;
        if (s.contains(base + QStringLiteral("/log")))
            charts_[k]->setLogScale(s.value(base + QStringLiteral("/log")).toBool());
        const QStringList on = s.value(base + QStringLiteral("/on")).toStringList();
        const QStringList off = s.value(base + QStringLiteral("/off")).toStringList();
        for (const QString &key : on)
            charts_[k]->setKeyChosen(currentKey(key), true);
        for (const QString &key : off)
            charts_[k]->setKeyChosen(currentKey(key), false);
    }
}

std::vector<TimeChart *> ChartsView::shownCharts() const
{
    std::vector<TimeChart *> out;
    for (std::size_t k = 0; k < charts_.size(); ++k)
        if (!rows_[k]->isHidden()) out.push_back(charts_[k]);
    return out;
}

void ChartsView::labelBottomChart()
{
    // One time axis: labelled under the bottom chart shown.
    const std::vector<TimeChart *> shown = shownCharts();
    for (TimeChart *c : charts_)
        c->setTimeLabels(c == shown.back());
}

void ChartsView::showUsedCharts()
{
    bool changed = false;
    for (std::size_t k = 0; k < charts_.size(); ++k) {
        if (!chartDefs()[k].onlyWhenUsed) continue;
        const bool used = !charts_[k]->seriesNames().isEmpty();
        if (used == !rows_[k]->isHidden()) continue;
        rows_[k]->setVisible(used);
        changed = true;
    }
    if (!changed) return;
    labelBottomChart();
    // Equal shares again, the new chart's included.
    split_->setSizes(QList<int>(split_->count(), 1000));
    requestAlign();
}

void ChartsView::setForExport()
{
    split_->setHandleWidth(0);
    for (ChartLegend *legend : legends_)
        legend->setControlsVisible(false);
}

void ChartsView::chooseAll()
{
    for (const SeriesDef &def : seriesDefs())
        charts_[static_cast<std::size_t>(def.chart)]->setKeyChosen(QLatin1String(def.key), true);
}

void ChartsView::saveChoices(int k) const
{
    if (settingsGroup_.isEmpty()) return;
    QSettings s;
    const QString base = settingsGroup_ + QLatin1Char('/') + chartDefs()[k].key;
    TimeChart *c = charts_[static_cast<std::size_t>(k)];
    // What was stored for series this session does not have stays as it was.
    QStringList on = s.value(base + QStringLiteral("/on")).toStringList();
    QStringList off = s.value(base + QStringLiteral("/off")).toStringList();
    for (const SeriesDef &def : seriesDefs()) {
        if (static_cast<int>(def.chart) != k) continue;
        const QString key = QLatin1String(def.key);
        const bool chosen = c->chosenNames().contains(QString::fromStdString(def.label));
        // Only the series present can be judged; the others keep what was stored.
        if (!c->seriesNames().contains(QString::fromStdString(def.label))) continue;
        on.removeAll(key);
        off.removeAll(key);
        (chosen ? on : off) << key;
    }
    s.setValue(base + QStringLiteral("/on"), on);
    s.setValue(base + QStringLiteral("/off"), off);
    s.setValue(base + QStringLiteral("/log"), c->logScale());
}

QString ChartsView::keyForLabel(int k, const QString &label) const
{
    for (const SeriesDef &def : seriesDefs())
        if (static_cast<int>(def.chart) == k && QString::fromStdString(def.label) == label)
            return QLatin1String(def.key);
    // A series present in the chart (a thread): its own key.
    const QString key = charts_[static_cast<std::size_t>(k)]->keyOf(label);
    return key.isEmpty() ? label : key;
}

void ChartsView::refreshLegend(int k)
{
    TimeChart *c = charts_[static_cast<std::size_t>(k)];
    ChartLegend *legend = legends_[static_cast<std::size_t>(k)];
    // The menu offers every catalogue series of this chart and every series present.
    QStringList all;
    for (const SeriesDef &def : seriesDefs())
        if (static_cast<int>(def.chart) == k) all << QString::fromStdString(def.label);
    QStringList chosenLabels;
    for (const QString &n : c->seriesNames()) {
        if (c->isDashed(n)) continue; // B of a comparison: A's entry stands for both
        if (!all.contains(n)) all << n;
    }
    for (const QString &label : all) {
        const QString key = keyForLabel(k, label);
        bool chosen = false;
        for (const QString &n : c->seriesNames())
            if (c->keyOf(n) == key && c->isChosen(n)) chosen = true;
        if (!c->seriesNames().contains(label) && !chosen) {
            // Not present yet: the menu shows what it would be.
            for (const SeriesDef &def : seriesDefs())
                if (static_cast<int>(def.chart) == k && QLatin1String(def.key) == key)
                    chosen = def.defaultOn;
        }
        if (chosen) chosenLabels << label;
    }
    legend->setChoices(all, chosenLabels, c->logScale(), !c->stacked());
    QHash<QString, QColor> colors;
    QHash<QString, bool> dashed, hidden;
    // The chart's own series first, in the catalogue's order, then the GUI thread, then the
    // rest (each engine thread) as they came: a legend that scrolls at a small window keeps
    // the totals and the front end's cost in view (issue 46 item 8).
    QStringList names = c->chosenNames();
    auto rank = [&](const QString &n) {
        const QString key = c->keyOf(n);
        int at = 0;
        for (const SeriesDef &def : seriesDefs()) {
            if (static_cast<int>(def.chart) != k) continue;
            if (QLatin1String(def.key) == key) return at;
            ++at;
        }
        return key == QLatin1String(kGuiThreadKey) ? at : at + 1;
    };
    std::stable_sort(names.begin(), names.end(),
                     [&](const QString &a, const QString &b) { return rank(a) < rank(b); });
    if (c->stacked()) { // a stack's legend reads as the stack does: its top first
        names.clear();
        for (const QString &n : c->stackOrder())
            if (c->isChosen(n)) names.prepend(n);
    }
    for (const QString &n : names) {
        colors.insert(n, seriesColor(c->keyOf(n)));
        dashed.insert(n, c->isDashed(n));
        hidden.insert(n, c->isHidden(n));
    }
    legend->setEntries(names, colors, dashed, hidden);
}

void ChartsView::clear()
{
    for (auto *c : charts_)
        c->clearAll();
    end_ = 0;
    period_ = 0;
    recentNext_ = 0;
    plottedEnd_ = -1;
    latencyEvery_ = 1;
    legend(static_cast<int>(ChartId::Latency))->setNote({}, {});
    showUsedCharts();
    setCrosshair(std::nullopt);
    setPaused(false);
    replot();
}

void ChartsView::notePeriod(double interval)
{
    if (!(interval > 0)) return;
    recent_[recentNext_++ % recent_.size()] = interval;
    // The median of the last intervals: a late sample and its short catch-up do not move it.
    std::array<double, kRecentIntervals> v = recent_;
    const auto n = std::min<std::size_t>(recentNext_, v.size());
    std::nth_element(v.begin(), v.begin() + static_cast<long>(n / 2),
                     v.begin() + static_cast<long>(n));
    period_ = v[n / 2];
}

PreparedCharts ChartsView::prepare(const std::vector<std::shared_ptr<const Sample>> &samples,
                                   const QString &suffix)
{
    PreparedCharts out;
    prepareMore(out, samples, suffix);
    return out;
}

void ChartsView::prepareMore(PreparedCharts &out,
                             const std::vector<std::shared_ptr<const Sample>> &samples,
                             const QString &suffix)
{
    if (samples.empty()) return;
    // Each series' points of the whole batch, with their pyramid: names and lookups once per
    // batch, not once per sample.
    if (out.series.empty())
        for (const SeriesDef &def : seriesDefs())
            out.series.push_back({static_cast<int>(def.chart),
                                  QString::fromStdString(def.label) + suffix,
                                  QLatin1String(def.key),
                                  def.right,
                                  {}});
    const std::size_t fixed = seriesDefs().size();
    // Charted threads seen in this batch, with where their series start in `out` (found by
    // key once per batch when `out` has them already, else added after the others).
    std::vector<std::pair<std::string, std::size_t>> threads;
    const auto threadSeries = [&](const std::string &name) {
        for (const auto &[seen, first] : threads)
            if (seen == name) return first;
        const QString thread = QString::fromStdString(name);
        const ThreadSeriesDef &def0 = threadSeriesDefs().front();
        const QString key0 = QString::fromStdString(def0.keyPrefix) + thread;
        const QString name0 = threadSeriesName(thread, def0) + suffix;
        std::size_t first = fixed;
        while (first < out.series.size() &&
               (out.series[first].key != key0 || out.series[first].name != name0))
            ++first;
        if (first == out.series.size())
            for (const ThreadSeriesDef &def : threadSeriesDefs())
                out.series.push_back({static_cast<int>(def.chart),
                                      threadSeriesName(thread, def) + suffix,
                                      QString::fromStdString(def.keyPrefix) + thread,
                                      false,
                                      {}});
        threads.emplace_back(name, first);
        return first;
    };
    // A device's charted figures, found by name once per batch as the threads are; a figure
    // no row charts is remembered as such. `split`: the sample gives each NAPI's figures.
    struct Figure {
        std::string name;
        bool split;
        std::optional<std::size_t> at;
    };
    std::vector<Figure> figures;
    const auto deviceSeries = [&](const std::string &name,
                                  bool split) -> std::optional<std::size_t> {
        for (const Figure &f : figures)
            if (f.split == split && f.name == name) return f.at;
        std::optional<std::size_t> at;
        if (const auto d = deviceSeriesFor(name, split)) {
            const QString label = d->label + suffix;
            std::size_t k = fixed;
            // By chart too: a whole (the poll totals) is stacked while a sample has no NAPI's
            // parts and an Events line once it has them, under one key and label.
            const int chart = static_cast<int>(d->chart);
            while (k < out.series.size() &&
                   (out.series[k].key != d->key || out.series[k].name != label ||
                    out.series[k].chart != chart))
                ++k;
            if (k == out.series.size()) out.series.push_back({chart, label, d->key, false, {}});
            at = k;
        }
        figures.push_back({name, split, at});
        return at;
    };
    for (const auto &sp : samples) {
        const Sample &s = *sp;
        const double t = s.t;
        out.end = std::max(out.end, t);
        out.latencyEvery = s.latency.sampleEvery;
        if (s.interval > 0) out.intervals.push_back(s.interval);
        // A stall the engine recorded: the lines break before this sample. Never inferred
        // from intervals (a late sample and its short catch-up are ordinary).
        if (s.stall != Stall::None) out.gaps.push_back(t);
        if (s.dropsPerS() > 0) {
            const double from = t - std::max(0.0, s.interval);
            if (!out.drops.empty() && from <= out.drops.back().second + 1e-9)
                out.drops.back().second = t;
            else
                out.drops.emplace_back(from, t);
        }
        std::size_t k = 0;
        for (const SeriesDef &def : seriesDefs()) {
            if (const auto v = def.read(s)) out.series[k].points.push(QPointF(t, *v));
            ++k;
        }
        for (const auto &th : s.threads) {
            if (!isChartedThread(th.name)) continue;
            std::size_t d = threadSeries(th.name);
            for (const ThreadSeriesDef &def : threadSeriesDefs()) {
                if (const auto v = def.metric->readThread(th))
                    out.series[d].points.push(QPointF(t, *v));
                ++d;
            }
        }
        const bool split = std::any_of(s.device.begin(), s.device.end(), [](const DeviceMetric &m) {
            return isPerNapiFigure(m.name);
        });
        for (const DeviceMetric &m : s.device)
            if (const auto at = deviceSeries(m.name, split))
                out.series[*at].points.push(QPointF(t, m.value));
    }
    if (out.intervals.size() > kRecentIntervals)
        out.intervals.erase(out.intervals.begin(),
                            out.intervals.end() - static_cast<long>(kRecentIntervals));
}

QString ChartsView::threadSeriesName(const QString &thread, const ThreadSeriesDef &def)
{
    // "refill" + " wakeups" is also the catalogue's refill wakeups (work items or kicks of
    // the refill thread, not its context switches): the thread's series says "thread".
    const QString name = thread + QString::fromStdString(def.suffix);
    for (const SeriesDef &s : seriesDefs())
        if (s.chart == def.chart && QString::fromStdString(s.label) == name)
            return thread + tr(" thread") + QString::fromStdString(def.suffix);
    return name;
}

void PreparedCharts::append(PreparedCharts &&next)
{
    for (auto &s : next.series) {
        auto same = std::find_if(series.begin(), series.end(), [&](const Series &mine) {
            return mine.chart == s.chart && mine.name == s.name;
        });
        if (same == series.end()) {
            series.push_back(std::move(s));
            continue;
        }
        same->points.extend(s.points);
    }
    gaps.insert(gaps.end(), next.gaps.begin(), next.gaps.end());
    drops.insert(drops.end(), next.drops.begin(), next.drops.end());
    intervals.insert(intervals.end(), next.intervals.begin(), next.intervals.end());
    if (intervals.size() > kRecentIntervals)
        intervals.erase(intervals.begin(), intervals.end() - static_cast<long>(kRecentIntervals));
    end = std::max(end, next.end);
    if (next.latencyEvery) latencyEvery = next.latencyEvery;
}

void ChartsView::adopt(PreparedCharts &&prepared, bool dashed)
{
    end_ = std::max(end_, prepared.end);
    // A dashed overlay (another run) does not relabel the chart's own series.
    if (!dashed && prepared.latencyEvery) noteLatencySampling(prepared.latencyEvery);
    for (double interval : prepared.intervals)
        notePeriod(interval);
    for (double t : prepared.gaps)
        for (auto *c : charts_)
            c->addGap(t);
    // Drops mark every chart of the stack; an overlay's (another run's) do not.
    if (!dashed)
        for (const auto &[from, to] : prepared.drops)
            for (auto *c : charts_)
                c->addDropSpan(from, to);
    for (auto &s : prepared.series)
        charts_[static_cast<std::size_t>(s.chart)]->adopt(s.name, std::move(s.points), dashed,
                                                          s.key, s.right);
    showUsedCharts();
}

void ChartsView::add(const std::vector<std::shared_ptr<const Sample>> &samples,
                     const QString &suffix, bool dashed)
{
    adopt(prepare(samples, suffix), dashed);
}

void ChartsView::noteLatencySampling(std::uint32_t every)
{
    if (every == latencyEvery_) return;
    latencyEvery_ = every;
    legend(static_cast<int>(ChartId::Latency))
        ->setNote(latencyEvery_ > 1 ? tr("1 in %1").arg(latencyEvery_) : QString(),
                  tr("Latency is measured on one load frame in %1 (latency.sample_every); "
                     "probes are always measured")
                      .arg(latencyEvery_));
}

void ChartsView::addGuiThreadCpu(double t, double msPerS)
{
    cpu()->append(tr(kGuiThreadLabel), t, msPerS, false, QLatin1String(kGuiThreadKey));
}

void ChartsView::appendSamples(const std::vector<std::shared_ptr<const Sample>> &samples)
{
    add(samples, {}, false);
    requestReplot();
}

void ChartsView::requestReplot()
{
    if (pending_) return;
    const double span = window_ > 0 ? window_ : std::max(end_, 1.0);
    const double width = std::max(100.0, charts_[0]->plotArea().width());
    const double perColumn = 2 * span / width; // TimeChart draws min/max per two pixels
    if (plottedEnd_ < 0 || end_ - plottedEnd_ >= perColumn) {
        replot();
        return;
    }
    pending_ = true;
    const double waitS = std::max(0.05, perColumn - (end_ - plottedEnd_));
    QTimer::singleShot(static_cast<int>(waitS * 1000), this, [this] {
        pending_ = false;
        replot();
    });
}

void ChartsView::appendOverlay(const std::vector<std::shared_ptr<const Sample>> &samples,
                               const QString &suffix, bool dashed)
{
    add(samples, suffix, dashed);
    replot();
}

void ChartsView::addMarker(double t, const QString &label, MarkerKind kind)
{
    for (auto *c : charts_)
        c->addMarker(t, label, kind);
}

void ChartsView::setWindow(double seconds)
{
    window_ = seconds;
    setPaused(false);
    replot();
}

void ChartsView::setPaused(bool paused)
{
    if (paused == paused_) return;
    if (paused) {
        viewFrom_ = charts_[0]->from();
        viewTo_ = charts_[0]->to();
    }
    paused_ = paused;
    emit pausedChanged(paused_);
    replot();
}

void ChartsView::showWhole()
{
    viewFrom_ = 0;
    viewTo_ = std::max(end_, 1.0);
    if (!paused_) {
        paused_ = true;
        emit pausedChanged(true);
    }
    replot();
}

void ChartsView::zoom(double aroundT, double factor)
{
    setPaused(true);
    const double span = viewTo_ - viewFrom_;
    const double maxSpan = std::max(end_, 1.0) * 1.2;
    const double next = std::clamp(span * factor, kMinSpanS, std::max(kMinSpanS, maxSpan));
    const double share = span > 0 ? (aroundT - viewFrom_) / span : 0.5;
    viewFrom_ = aroundT - share * next;
    viewTo_ = viewFrom_ + next;
    replot();
}

void ChartsView::pan(double dt)
{
    setPaused(true);
    viewFrom_ += dt;
    viewTo_ += dt;
    replot();
}

void ChartsView::replot()
{
    if (!isVisible()) { // a hidden view does no work; it catches up when shown
        dirty_ = true;
        return;
    }
    dirty_ = false;
    plottedEnd_ = end_;
    double from = 0, to = std::max(end_, 1.0);
    if (paused_) {
        from = viewFrom_;
        to = viewTo_;
    } else if (window_ > 0) {
        // A short run fills the window from the left; a long one scrolls.
        to = std::max(end_, window_);
        from = std::max(0.0, to - window_);
        if (end_ < window_) to = window_;
    }
    for (auto *c : charts_) {
        c->replot(from, to);
        c->setCrosshair(crossT_); // at its time on the new axis
    }
    align();
    refreshValues();
}

bool ChartsView::settle()
{
    // To a hundredth of a pixel: the insets carry the labels' fractional widths.
    auto aligned = [this] {
        const QRectF first = charts_.front()->plotArea();
        for (auto *c : shownCharts())
            if (std::abs(c->plotArea().left() - first.left()) >= kAligned ||
                std::abs(c->plotArea().right() - first.right()) >= kAligned)
                return false;
        return true;
    };
    // Each round: the layouts take the new margins, then the stack agrees again.
    auto layOut = [this] {
        QCoreApplication::sendPostedEvents();
        for (auto *c : charts_)
            if (QGraphicsLayout *l = c->chart()->layout()) l->activate();
    };
    layOut();
    for (int round = 0; round < 8 && !aligned(); ++round) {
        align();
        layOut();
    }
    return aligned();
}

void ChartsView::requestAlign()
{
    if (alignPending_) return;
    alignPending_ = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            alignPending_ = false;
            align();
        },
        Qt::QueuedConnection);
}

void ChartsView::align()
{
    qreal left = 0, right = 0;
    for (auto *c : shownCharts()) {
        left = std::max(left, c->leftNeeded());
        right = std::max(right, c->rightNeeded());
    }
    for (auto *c : charts_)
        c->setInsets(left, right);
}

void ChartsView::setCrosshair(std::optional<double> t)
{
    crossT_ = t;
    for (auto *c : charts_)
        c->setCrosshair(t);
    refreshValues();
}

void ChartsView::refreshValues()
{
    // At the crosshair, or else the newest values in view.
    // A value stands until the next sample is due, with the lateness the engine still calls
    // on time; a series that stopped (a thread that ended) shows nothing after that.
    const double maxAge = period_ > 0 ? kStallPeriods * period_ * 1.01 : 1.0;
    for (std::size_t k = 0; k < charts_.size(); ++k) {
        TimeChart *c = charts_[k];
        QHash<QString, std::optional<double>> values;
        for (const QString &n : c->chosenNames()) {
            if (crossT_)
                values.insert(n, c->valueAt(n, *crossT_, maxAge));
            else
                values.insert(n, c->valueAt(n, std::min(c->to(), end_), maxAge));
        }
        legends_[k]->setValues(values, c->unit());
    }
}

void ChartsView::showEvent(QShowEvent *e)
{
    QWidget::showEvent(e);
    if (dirty_) replot();
}

} // namespace ringlab::ui
