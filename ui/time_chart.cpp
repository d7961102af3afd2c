// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/time_chart.h"

#include <QGraphicsLayout>
#include <QGraphicsLineItem>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/plot_layer.h"
#include "ui/series_catalog.h"
#include "ui/value_text.h"

namespace ringlab::ui {

namespace {
constexpr int kMarkerRows = 2;
// Half a label's height above and below the plot: the top and bottom ticks' labels sit
// on its edges.
constexpr int kTopPad = 8;
// Unbroken pieces drawn per series. Beyond this many stalls in view, the last piece joins
// the rest (a pathological session; one with a stall in every other sample).
constexpr std::size_t kMaxPieces = 256;

// 1, 2 or 5 times a power of ten, at least `rough`.
double niceStep(double rough)
{
    if (!(rough > 0) || !std::isfinite(rough)) return 1;
    const double p = std::pow(10, std::floor(std::log10(rough)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= rough * 0.999) return m * p;
    return 10 * p;
}

QPen markerPen(MarkerKind k)
{
    switch (k) {
    case MarkerKind::Mark: {
        QPen p(QColor(0x1565c0), 1.4, Qt::DashLine);
        return p;
    }
    case MarkerKind::Restart:
        return QPen(QColor(0xc62828), 1.6, Qt::SolidLine);
    case MarkerKind::Change:
        break;
    }
    return QPen(QColor(90, 90, 90), 1.0, Qt::DotLine);
}
} // namespace

TimeChart::TimeChart(const QString &title, const QString &unit, bool logScale, QWidget *parent)
    // The chart is given to the view's constructor: QChartView(parent) would make a default
    // chart of its own, which setChart() then releases without deleting (LeakSanitizer: 592 KB
    // per GUI test run).
    : QChartView(new QChart(), parent), title_(title), unit_(unit), log_(logScale)
{
    QChart *c = chart();
    c->legend()->hide(); // the legend is a widget beside the chart (ChartLegend)
    c->setMargins(QMargins(0, kTopPad, 0, 0));
    // No padding of the chart's own layout around the plot, its axes and margins (9 px each
    // side by default): a stack of four then fits a 1024x640 window.
    if (QGraphicsLayout *layout = c->layout()) layout->setContentsMargins(0, 0, 0, 0);
    c->setBackgroundRoundness(0);
    c->setAnimationOptions(QChart::NoAnimation);
    y_ = new QCategoryAxis;
    y_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    y_->setTitleText(log_ ? unit_ + tr(" (log)") : unit_);
    c->addAxis(y_, Qt::AlignLeft);
    // The lines and the time axis are drawn by one item of ours (ui/plot_layer.h says why).
    layer_ = new PlotLayer(c);
    layer_->setGridPen(y_->gridLinePen());
    cross_ = new QGraphicsLineItem(c);
    cross_->setPen(QPen(QColor(40, 40, 40, 150), 1));
    cross_->setZValue(20);
    cross_->hide();
    crossText_ = new QGraphicsSimpleTextItem(c);
    crossText_->setZValue(21);
    crossText_->hide();
    dropBand_ = new QGraphicsPathItem(c);
    dropBand_->setPen(Qt::NoPen);
    dropBand_->setBrush(QColor(0xd6, 0x27, 0x28));
    dropBand_->setZValue(15); // above the series: a drop is never drawn over
    connect(c, &QChart::plotAreaChanged, this, [this] {
        layer_->setPlot(plotArea());
        updateTimeTicks();
        placeMarkers();
        placeDropBand();
        setCrosshair(crossT_); // the plot moved (new axis labels after a zoom): so does it
        fitMinimumHeight();
    });
    // No antialiasing: with thousands of points it costs the GUI thread more than it shows.
    setRenderHint(QPainter::Antialiasing, false);
    setMouseTracking(true);
    fitMinimumHeight();
    setToolTip({});
    setTimeLabels(true);
}

void TimeChart::fitMinimumHeight()
{
    // Qt Charts elides a vertical axis's title to the plot's height ("Mbi…"): the chart is
    // never shorter than its titles, the time axis's labels and the marker rows need. Four
    // charts so sized fit a 1024x640 window.
    int title = 0;
    for (QCategoryAxis *axis : {y_, yRight_})
        if (axis)
            title = std::max(title,
                             QFontMetrics(axis->titleFont()).horizontalAdvance(axis->titleText()));
    // What the chart spends outside its plot (margins, the time axis, Qt's paddings): as
    // measured once laid out, else as estimated from the fonts.
    const int measured = static_cast<int>(std::ceil(height() - plotArea().height()));
    const int around = plotArea().height() > 0 && measured > 0
                           ? measured
                           : chart()->margins().top() + 4 +
                                 (timeLabels_ ? PlotLayer::labelRowHeight(y_->labelsFont()) : 0);
    // And a plot with two labelled ticks unelided: Qt Charts gives each label the axis's
    // height over the ticks and the start value, less its padding ("..." when shorter).
    const int ticks = 3 * (QFontMetrics(y_->labelsFont()).height() + 12) - 6;
    const int wanted = around + std::max(title + 8, ticks);
    if (wanted != minimumHeight()) setMinimumHeight(wanted);
}

void TimeChart::setStacked(bool stacked)
{
    stacked_ = stacked;
    if (stacked_) setLogScale(false); // a stack on a log axis would misstate each band
    replot(from_, to_);
}

void TimeChart::setStackRank(std::function<long(const QString &key)> rank)
{
    stackRank_ = std::move(rank);
    replot(from_, to_);
    emit seriesChanged();
}

QStringList TimeChart::stackOrder() const
{
    QStringList out = order_;
    if (stackRank_)
        std::stable_sort(out.begin(), out.end(), [this](const QString &a, const QString &b) {
            return stackRank_(keyOf(a)) < stackRank_(keyOf(b));
        });
    return out;
}

void TimeChart::setLogScale(bool log)
{
    if (stacked_) log = false;
    if (log == log_) return;
    log_ = log;
    y_->setTitleText(log_ ? unit_ + tr(" (log)") : unit_);
    fitMinimumHeight();
    replot(from_, to_);
    emit seriesChanged();
}

void TimeChart::addRightAxis(const QString &unit)
{
    yRight_ = new QCategoryAxis;
    yRight_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    yRight_->setTitleText(unit);
    chart()->addAxis(yRight_, Qt::AlignRight);
    fitMinimumHeight();
}

void TimeChart::setTicks(QCategoryAxis *axis, double lo, double hi,
                         const std::vector<std::pair<double, QString>> &ticks)
{
    const QStringList labels = axis->categoriesLabels();
    bool same =
        axis->min() == lo && axis->max() == hi && labels.size() == static_cast<int>(ticks.size());
    for (std::size_t k = 0; same && k < ticks.size(); ++k)
        same = labels[static_cast<int>(k)] == ticks[k].second &&
               axis->endValue(ticks[k].second) == ticks[k].first;
    if (same) return;
    for (const QString &l : labels)
        axis->remove(l);
    axis->setStartValue(lo);
    axis->setRange(lo, hi);
    for (const auto &[value, label] : ticks)
        axis->append(label, value);
}

double TimeChart::valueMin() const
{
    return log_ ? std::pow(10, y_->min()) : y_->min();
}

double TimeChart::valueMax() const
{
    return log_ ? std::pow(10, y_->max()) : y_->max();
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

void TimeChart::addGap(double t)
{
    if (gaps_.empty() || t > gaps_.back()) gaps_.push_back(t);
}

TimeChart::Series &TimeChart::seriesFor(const QString &name, bool dashed, const QString &colorKey,
                                        bool right)
{
    auto it = series_.find(name);
    if (it == series_.end()) {
        Series s;
        s.key = colorKey.isEmpty() ? name : colorKey;
        s.right = right && yRight_;
        s.dashed = dashed;
        it = series_.insert(name, s);
        order_ << name;
        emit seriesChanged();
    }
    return *it;
}

void TimeChart::appendPoints(const QString &name, const std::vector<QPointF> &points, bool dashed,
                             const QString &colorKey, bool right)
{
    if (points.empty()) return;
    Points &into = seriesFor(name, dashed, colorKey, right).data;
    for (const QPointF &p : points)
        into.push(p);
}

void TimeChart::adopt(const QString &name, Points &&points, bool dashed, const QString &colorKey,
                      bool right)
{
    if (points.points.empty()) return;
    Points &into = seriesFor(name, dashed, colorKey, right).data;
    if (into.points.empty()) {
        into = std::move(points);
        return;
    }
    if (points.points.front().x() >= into.points.back().x()) {
        for (const QPointF &p : points.points)
            into.push(p);
        return;
    }
    // Points that go back in time (two sources of one name): merged in time order, as the
    // searches over a series need, and the pyramid built again.
    std::vector<QPointF> merged;
    merged.reserve(into.points.size() + points.points.size());
    std::merge(into.points.begin(), into.points.end(), points.points.begin(), points.points.end(),
               std::back_inserter(merged),
               [](const QPointF &a, const QPointF &b) { return a.x() < b.x(); });
    into = {};
    for (const QPointF &p : merged)
        into.push(p);
}

void TimeChart::add(const QString &name, double t, double value, bool dashed,
                    const QString &colorKey, bool right)
{
    if (!std::isfinite(value)) return;
    seriesFor(name, dashed, colorKey, right).data.push(QPointF(t, value));
}

void TimeChart::addMarker(double t, const QString &label, MarkerKind kind)
{
    // Several tunables changed as one (held edits, a profile) are one change: one line, its
    // label naming each of them.
    if (kind == MarkerKind::Change)
        for (Marker &m : markers_)
            if (m.kind == MarkerKind::Change && std::fabs(m.t - t) < 1e-6) {
                m.label += QStringLiteral(", ") + label;
                if (m.text) m.text->setText(m.label);
                placeMarkers();
                return;
            }
    auto *line = new QGraphicsLineItem(chart());
    line->setPen(markerPen(kind));
    line->setZValue(5);
    QGraphicsSimpleTextItem *text = nullptr;
    if (markerLabels_) {
        text = new QGraphicsSimpleTextItem(label, chart());
        QFont f = text->font();
        f.setPointSizeF(f.pointSizeF() * 0.85);
        text->setFont(f);
        text->setBrush(markerPen(kind).color().darker(130));
        text->setZValue(10);
    }
    markers_.push_back({t, label, kind, line, text});
    placeMarkers();
}

void TimeChart::setTimeLabels(bool on)
{
    timeLabels_ = on;
    layer_->setTimeLabels(on, y_->labelsFont(), y_->labelsBrush().color());
    QMargins m = chart()->margins();
    m.setBottom(on ? PlotLayer::labelRowHeight(y_->labelsFont()) : kTopPad);
    chart()->setMargins(m);
    fitMinimumHeight();
}

void TimeChart::setMarkerLabels(bool on)
{
    markerLabels_ = on;
    applyTopMargin();
}

void TimeChart::clearAll()
{
    layer_->setLines({});
    for (auto &m : markers_) {
        delete m.line;
        delete m.text;
    }
    markers_.clear();
    series_.clear();
    order_.clear();
    gaps_.clear();
    drops_.clear();
    placeDropBand();
    emit seriesChanged();
}

bool TimeChart::isChosen(const QString &name) const
{
    auto it = series_.find(name);
    if (it == series_.end()) return false;
    auto k = keyChosen_.find(it->key);
    if (k != keyChosen_.end()) return *k;
    return chosenDefault_ ? chosenDefault_(it->key) : true;
}

void TimeChart::setKeyChosen(const QString &key, bool chosen)
{
    keyChosen_.insert(key, chosen);
    replot(from_, to_);
    emit seriesChanged();
}

void TimeChart::setHidden(const QString &name, bool hidden)
{
    auto it = series_.find(name);
    if (it == series_.end() || it->hidden == hidden) return;
    it->hidden = hidden;
    replot(from_, to_);
    emit seriesChanged();
}

bool TimeChart::isHidden(const QString &name) const
{
    auto it = series_.find(name);
    return it != series_.end() && it->hidden;
}

bool TimeChart::drawnNow(const Series &s) const
{
    if (s.hidden) return false;
    auto k = keyChosen_.find(s.key);
    if (k != keyChosen_.end()) return *k;
    return chosenDefault_ ? chosenDefault_(s.key) : true;
}

int TimeChart::pointCount(const QString &name) const
{
    auto it = series_.find(name);
    return it == series_.end() ? 0 : it->drawn;
}

QList<QPointF> TimeChart::drawnPoints(const QString &name) const
{
    QList<QPointF> out;
    auto it = series_.find(name);
    if (it != series_.end())
        for (const QPolygonF &piece : it->shown)
            out.append(piece);
    return out;
}

double TimeChart::timeTickStep() const
{
    return layer_->timeTicks().step;
}

double TimeChart::timeTickAnchor() const
{
    return layer_->timeTicks().anchor;
}

std::vector<std::pair<QRectF, QString>> TimeChart::timeLabels() const
{
    auto labels = layer_->timeLabels(); // scene coordinates
    for (auto &[rect, text] : labels)
        rect = mapFromScene(rect).boundingRect();
    return labels;
}

int TimeChart::lineCount(const QString &name) const
{
    auto it = series_.find(name);
    return it == series_.end() ? 0 : it->pieces;
}

QStringList TimeChart::seriesNames() const
{
    return order_;
}

QStringList TimeChart::chosenNames() const
{
    QStringList out;
    for (const QString &n : order_)
        if (isChosen(n)) out << n;
    return out;
}

QString TimeChart::keyOf(const QString &name) const
{
    auto it = series_.find(name);
    return it == series_.end() ? QString() : it->key;
}

bool TimeChart::isDashed(const QString &name) const
{
    auto it = series_.find(name);
    return it != series_.end() && it->dashed;
}

std::optional<double> TimeChart::valueAt(const QString &name, double t, double maxAge) const
{
    auto it = series_.find(name);
    return it == series_.end() ? std::nullopt : it->data.valueAt(t, maxAge, gaps_);
}

std::optional<double> TimeChart::lastValue(const QString &name) const
{
    auto it = series_.find(name);
    if (it == series_.end() || it->data.points.empty()) return std::nullopt;
    return it->data.points.back().y();
}

std::vector<std::pair<TimeChart::Series *, QList<QPointF>>> TimeChart::stackedInView(int columns)
{
    std::vector<std::pair<Series *, QList<QPointF>>> shown;
    // A run's own series stack together; a comparison's (dashed) stack on their own.
    for (const bool dashed : {false, true}) {
        SeriesPoints sum; // the running sum in view, unbroken: the gaps cut it when drawn
        for (const QString &name : stackOrder()) {
            const auto it = series_.find(name);
            if (it == series_.end() || it->dashed != dashed) continue;
            Series &s = *it;
            if (!drawnNow(s)) {
                if (s.drawn) draw(s, {});
                continue;
            }
            // Only the window is summed: the cost is the points in view, not the session's.
            sum = stackOn(sum, s.data, from_, to_);
            shown.emplace_back(&s, sum.decimate(from_, to_, columns));
        }
    }
    return shown;
}

void TimeChart::draw(Series &s, const QList<QPointF> &pts, double floor)
{
    // Cut the points into unbroken pieces at the gaps, one line series per piece.
    // On a log axis a zero has no place: it is drawn a decade below the axis's floor, out of
    // view, so that a burst between zeros (drops, timer fires) is a spike rising into the
    // plot, never a lone point that a line series does not draw, and a series at zero is not
    // a line along the floor (a red one would read as the drop band).
    const bool logY = log_ && !s.right;
    std::vector<QPolygonF> pieces;
    auto g = gaps_.begin();
    bool broken = true;
    for (int i = 0; i < pts.size(); ++i) {
        const QPointF &p = pts[i];
        bool cut = broken;
        if (!cut) {
            const double prev = pts[i - 1].x();
            g = std::upper_bound(g, gaps_.end(), prev);
            cut = g != gaps_.end() && *g <= p.x();
        }
        if (cut && pieces.size() < kMaxPieces) pieces.emplace_back();
        pieces.back().append(
            logY ? QPointF(p.x(), p.y() > 0 ? std::max(std::log10(p.y()), floor) : floor - 1) : p);
        broken = false;
    }
    s.drawn = 0;
    for (const auto &piece : pieces)
        s.drawn += static_cast<int>(piece.size());
    s.pieces = static_cast<int>(pieces.size());
    s.shown = std::move(pieces);
}

int TimeChart::tickRoom() const
{
    // Qt Charts truncates a vertical axis's labels to the axis's height over its number of
    // ticks (the start value counts) less twice the label padding: a label to "…" when
    // there are more ticks than text lines fit. Leave each a line and its padding.
    const int perTick = QFontMetrics(y_->labelsFont()).height() + 12;
    return std::clamp(static_cast<int>(plotArea().height() / perTick) - 1, 2, 6);
}

std::vector<std::pair<double, QString>> TimeChart::linearTicks(double lo, double ymax, int room,
                                                               double &hi)
{
    // Values from outside (a database changed by hand, another engine's lines) may be near
    // the largest double: the axis stops at 1e300, where its arithmetic is still finite.
    constexpr double kLargest = 1e300;
    lo = std::max(lo, -kLargest);
    ymax = std::clamp(ymax, lo, kLargest);
    // The finest round step whose ticks fit the room.
    double step = niceStep((std::max(ymax, lo + 1e-9) - lo) / room);
    for (;;) {
        hi = std::max(std::ceil(ymax * 1.02 / step) * step, lo + step);
        const double first = std::ceil(lo / step - 1e-9) * step;
        const double count = std::floor((hi - first) / step + 1e-6) + 1;
        if (!std::isfinite(step) || !std::isfinite(hi) || !std::isfinite(count)) {
            hi = lo + 1;
            return {{lo, tickText(lo, 1)}, {hi, tickText(hi, 1)}};
        }
        if (count <= room) {
            std::vector<std::pair<double, QString>> marks;
            for (double v = first; v <= hi + step * 1e-6; v += step)
                marks.emplace_back(v, tickText(v, step));
            return marks;
        }
        step = niceStep(step * 1.01);
    }
}

void TimeChart::setYRange(double ymin, double ymax)
{
    const int ticks = tickRoom();
    if (ymin > ymax || (!log_ && ymin >= 0 && ymax <= 0)) {
        // Nothing drawn, or only zeros: one plain step, no 0.3/0.5/0.8.
        if (log_)
            setTicks(y_, 0, 1, {{0, QStringLiteral("1")}, {1, QStringLiteral("10")}});
        else
            setTicks(y_, 0, 1, {{0, QStringLiteral("0")}, {1, QStringLiteral("1")}});
        return;
    }
    std::vector<std::pair<double, QString>> marks;
    if (log_) {
        // The decades the data spans, no more: a label a decade while they fit the height,
        // else every second or third decade.
        // Labels from the floor up, every `every` decades, and the top raised to a labelled
        // decade: never fewer than two labels (a lone "1 k" says nothing of the scale).
        int lo = static_cast<int>(std::floor(std::log10(ymin)));
        int hi = static_cast<int>(std::ceil(std::log10(ymax * 1.01)));
        if (hi <= lo) hi = lo + 1;
        const int every = std::max(1, (hi - lo + ticks - 2) / (ticks - 1)); // at most `ticks`
        hi = lo + (hi - lo + every - 1) / every * every;
        for (int d = lo; d <= hi; d += every)
            marks.emplace_back(d, tickText(std::pow(10, d), std::pow(10, std::min(d, 0))));
        setTicks(y_, lo, hi, marks);
        return;
    }
    const double lo = std::min(0.0, ymin);
    double hi = 0;
    marks = linearTicks(lo, ymax, ticks, hi);
    setTicks(y_, lo, hi, marks);
}

void TimeChart::replot(double from, double to)
{
    from_ = from;
    to_ = std::max(to, from + 1e-3);
    // Min and max per two-pixel column: the lines look the same and cost half.
    const int columns = std::max(50, static_cast<int>(plotArea().width() / 2));
    double ymin = 1e300, ymax = -1e300, rmax = 0;
    // The points first, then the axis's range, then the lines: on a log axis the zeros are
    // drawn below the floor the range gives.
    std::vector<std::pair<Series *, QList<QPointF>>> shown;
    if (stacked_) {
        shown = stackedInView(columns);
    } else {
        for (auto it = series_.begin(); it != series_.end(); ++it) {
            Series &s = *it;
            if (!drawnNow(s)) {
                if (s.drawn) draw(s, {});
                continue;
            }
            shown.emplace_back(&s, s.data.decimate(from_, to_, columns));
        }
    }
    for (const auto &[sp, pts] : shown) {
        const Series &s = *sp;
        for (const auto &p : pts)
            if (p.x() >= from_ && p.x() <= to_ && !(log_ && !s.right && p.y() <= 0)) {
                if (s.right) {
                    rmax = std::max(rmax, p.y());
                    continue;
                }
                ymin = std::min(ymin, p.y());
                ymax = std::max(ymax, p.y());
            }
    }
    const double floor = log_ && ymin <= ymax ? std::floor(std::log10(ymin)) : 0;
    for (auto &[s, pts] : shown)
        draw(*s, pts, floor);
    if (yRight_ && rmax <= 0) {
        setTicks(yRight_, 0, 1, {{0, QStringLiteral("0")}, {1, QStringLiteral("1")}});
    } else if (yRight_) {
        double hi = 0;
        const auto marks = linearTicks(0, rmax, tickRoom(), hi);
        setTicks(yRight_, 0, hi, marks);
    }
    updateTimeTicks();
    setYRange(ymin, ymax);
    layer_->setTimeRange(from_, to_);
    layer_->setValueRange(y_->min(), y_->max());
    if (yRight_) layer_->setRightRange(yRight_->min(), yRight_->max());
    std::vector<PlotLayer::Line> lines;
    for (const QString &name : stacked_ ? stackOrder() : order_) {
        const auto it = series_.constFind(name);
        if (it == series_.constEnd() || it->shown.empty()) continue;
        const Series &s = *it;
        const QColor color = seriesColor(s.key);
        QPen pen(color);
        pen.setWidthF(1.6);
        if (s.dashed) pen.setStyle(Qt::DashLine);
        QBrush fill = Qt::NoBrush;
        if (stacked_ && !s.dashed) {
            // The band in a light shade of the series' colour, its top edge in the colour.
            fill = QColor::fromRgbF(0.45f * color.redF() + 0.55f, 0.45f * color.greenF() + 0.55f,
                                    0.45f * color.blueF() + 0.55f);
            pen.setWidthF(1.2);
        }
        lines.push_back({pen, s.right, s.shown, fill});
    }
    // A stack is painted from its top down, each band's fill covering the one above's below
    // it; a comparison's unfilled lines go over the bands.
    if (stacked_) {
        const auto unfilled = std::stable_partition(lines.begin(), lines.end(), [](const auto &l) {
            return l.fill.style() != Qt::NoBrush;
        });
        std::reverse(lines.begin(), unfilled);
    }
    layer_->setLines(std::move(lines));
    placeMarkers();
    placeDropBand();
}

void TimeChart::addDropSpan(double from, double to)
{
    if (!(from <= to)) return; // NaN or reversed: nothing to draw
    if (!drops_.empty() && from <= drops_.back().second + 1e-9 && from >= drops_.back().first) {
        drops_.back().second = std::max(drops_.back().second, to);
        return;
    }
    drops_.emplace_back(from, to);
    if (drops_.size() > 1 && drops_[drops_.size() - 2].first > from)
        std::sort(drops_.begin(), drops_.end());
}

void TimeChart::placeDropBand()
{
    // The spans in view, at least kDropBandMinWidth pixels each, merged where they meet on
    // screen: the path holds at most one rectangle per few pixels of the plot's width.
    dropRects_.clear();
    const QRectF pa = plotArea();
    if (pa.width() > 0) {
        auto it = std::lower_bound(drops_.begin(), drops_.end(), from_,
                                   [](const auto &span, double t) { return span.second < t; });
        for (; it != drops_.end() && it->first <= to_; ++it) {
            qreal x0 = xForTime(std::max(it->first, from_)),
                  x1 = xForTime(std::min(it->second, to_));
            if (x1 - x0 < kDropBandMinWidth) {
                const qreal mid = (x0 + x1) / 2;
                x0 = std::max(pa.left(), mid - kDropBandMinWidth / 2);
                x1 = std::min(pa.right(), x0 + kDropBandMinWidth);
                x0 = x1 - kDropBandMinWidth;
            }
            if (!dropRects_.isEmpty() && x0 <= dropRects_.back().right() + 1) {
                dropRects_.back().setRight(std::max(dropRects_.back().right(), x1));
                continue;
            }
            dropRects_.append(QRectF(x0, pa.bottom() - kDropBandHeight, x1 - x0, kDropBandHeight));
        }
    }
    QPainterPath path;
    for (const QRectF &r : dropRects_)
        path.addRect(r);
    dropBand_->setPath(path);
    dropBand_->setToolTip(tr("Frames were dropped in the samples under this band"));
}

void TimeChart::updateTimeTicks()
{
    // Round ticks on the time axis: 0, 5, 10 s, about one per 80 pixels, on multiples of
    // the step, with the decimals the step needs.
    const double step = niceStep((to_ - from_) / std::max(2.0, plotArea().width() / 80));
    const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
    layer_->setTimeTicks({std::floor(from_ / step) * step, step, std::clamp(decimals, 0, 9)});
    layer_->setTimeRange(from_, to_);
}

// The plot's edges are fractional (the axis labels' widths are), the chart's margins whole
// pixels: the whole part of an inset goes into the margins, the fraction into the chart's
// layout (qreal contents margins), so stacked plots share their edges exactly (issue 46 item 8).
namespace {
QMarginsF layoutMargins(const QChart *c)
{
    qreal l = 0, t = 0, r = 0, b = 0;
    if (const QGraphicsLayout *layout = c->layout()) layout->getContentsMargins(&l, &t, &r, &b);
    return {l, t, r, b};
}
} // namespace

qreal TimeChart::leftNeeded() const
{
    // What the chart's own layout gives the left axis: the plot's left edge without our insets.
    return plotArea().left() - chart()->margins().left() - layoutMargins(chart()).left();
}

qreal TimeChart::rightNeeded() const
{
    return chart()->size().width() - plotArea().right() - chart()->margins().right() -
           layoutMargins(chart()).right();
}

void TimeChart::setInsets(qreal left, qreal right)
{
    const qreal l = std::max<qreal>(0, left - leftNeeded()),
                r = std::max<qreal>(0, right - rightNeeded());
    const int wholeL = static_cast<int>(std::floor(l)), wholeR = static_cast<int>(std::floor(r));
    QMargins m = chart()->margins();
    QMarginsF f = layoutMargins(chart());
    if (m.left() == wholeL && m.right() == wholeR && qFuzzyCompare(1 + f.left(), 1 + l - wholeL) &&
        qFuzzyCompare(1 + f.right(), 1 + r - wholeR))
        return;
    if (m.left() != wholeL || m.right() != wholeR) {
        m.setLeft(wholeL);
        m.setRight(wholeR);
        chart()->setMargins(m);
    }
    if (QGraphicsLayout *layout = chart()->layout())
        layout->setContentsMargins(l - wholeL, f.top(), r - wholeR, f.bottom());
}

void TimeChart::applyTopMargin()
{
    QMargins m = chart()->margins();
    m.setTop(markerLabels_ ? kMarkerRows * QFontMetrics(font()).height() + 4 : kTopPad);
    chart()->setMargins(m);
    fitMinimumHeight();
}

qreal TimeChart::xForTime(double t) const
{
    const QRectF plot = chart()->plotArea();
    return plot.left() + (t - from_) / (to_ - from_) * plot.width();
}

double TimeChart::timeAt(qreal x) const
{
    const QRectF plot = chart()->plotArea();
    return from_ + (x - plot.left()) / std::max(1.0, plot.width()) * (to_ - from_);
}

void TimeChart::placeMarkers()
{
    const QRectF plot = chart()->plotArea();
    std::vector<const Marker *> visible;
    for (auto &m : markers_) {
        const bool inside = m.t >= from_ && m.t <= to_;
        m.line->setVisible(inside);
        if (m.text) m.text->setVisible(false);
        if (!inside) continue;
        // Within the plot until its label is placed: then from the label's row down.
        const qreal x = xForTime(m.t);
        m.line->setLine(x, plot.top(), x, plot.bottom());
        if (m.text && markerLabels_) visible.push_back(&m);
    }
    // Labels in rows above the plot: each goes to the first row where it touches no label
    // placed before it and no marker line runs through it, and where its own line, from its
    // row down, runs through no label placed before it; right of its line, else left of it.
    // With no room, only its line is drawn (in the plot) and the label shows on hover.
    // A user's marks go first, then restarts, then changes: a change never takes a mark's
    // place. Within a kind, earlier first.
    hiddenLabels_ = 0;
    auto rank = [](MarkerKind k) {
        return k == MarkerKind::Mark ? 0 : k == MarkerKind::Restart ? 1 : 2;
    };
    std::stable_sort(visible.begin(), visible.end(), [&](const Marker *a, const Marker *b) {
        return rank(a->kind) != rank(b->kind) ? rank(a->kind) < rank(b->kind) : a->t < b->t;
    });
    struct Label {
        qreal x0, x1;
        int row;
    };
    std::vector<Label> labels;
    std::vector<std::pair<qreal, int>> lines; // a labelled marker's x, the row its line starts
    const qreal rowH = QFontMetrics(font()).height();
    const qreal right = chart()->size().width() - 2;
    constexpr qreal kGap = 6, kLineClear = 2;
    auto fits = [&](qreal x0, qreal x1, qreal lineX, int r) {
        for (const Label &l : labels)
            if ((l.row == r && x0 < l.x1 + kGap && x1 + kGap > l.x0) ||
                (l.row > r && lineX > l.x0 - kLineClear && lineX < l.x1 + kLineClear))
                return false;
        for (const auto &[x, row] : lines)
            if (row <= r && x > x0 - kLineClear && x < x1 + kLineClear) return false;
        return true;
    };
    for (const Marker *m : visible) {
        const qreal w = m->text->boundingRect().width();
        const qreal lx = xForTime(m->t);
        bool placed = false;
        for (int r = 0; r < kMarkerRows && !placed; ++r)
            for (const qreal x : {lx + 3, lx - 3 - w}) {
                if (x < 0 || x + w > right || !fits(x, x + w, lx, r)) continue;
                const qreal top = 2 + r * rowH;
                m->text->setPos(x, top);
                m->text->setVisible(true);
                m->line->setLine(lx, top, lx, plot.bottom());
                labels.push_back({x, x + w, r});
                lines.emplace_back(lx, r);
                placed = true;
                break;
            }
        if (!placed) ++hiddenLabels_;
    }
}

QList<QLineF> TimeChart::markerLines() const
{
    QList<QLineF> out;
    for (const auto &m : markers_)
        if (m.line->isVisible())
            out << QLineF(m.line->mapToScene(m.line->line().p1()),
                          m.line->mapToScene(m.line->line().p2()));
    return out;
}

QList<QRectF> TimeChart::markerLabelRects() const
{
    QList<QRectF> out;
    for (const auto &m : markers_)
        if (m.text && m.text->isVisible()) out << m.text->sceneBoundingRect();
    return out;
}

QStringList TimeChart::markerLabels() const
{
    QStringList out;
    for (const auto &m : markers_)
        out << m.label;
    return out;
}

bool TimeChart::markerLabelDrawn(const QString &label) const
{
    for (const auto &m : markers_)
        if (m.label == label && m.text && m.text->isVisible()) return true;
    return false;
}

int TimeChart::hiddenMarkerLabels() const
{
    return hiddenLabels_;
}

void TimeChart::setCrosshair(std::optional<double> t)
{
    crossT_ = t;
    const QRectF plot = chart()->plotArea();
    if (!t || *t < from_ || *t > to_) {
        cross_->hide();
        crossText_->hide();
        return;
    }
    const qreal x = xForTime(*t);
    cross_->setLine(x, plot.top(), x, plot.bottom());
    cross_->show();
    crossText_->setText(QStringLiteral("%1 s").arg(*t, 0, 'f', 1));
    const qreal w = crossText_->boundingRect().width();
    crossText_->setPos(x + w + 4 > plot.right() ? x - w - 3 : x + 3, plot.bottom() - 16);
    crossText_->show();
}

void TimeChart::resizeEvent(QResizeEvent *e)
{
    QChartView::resizeEvent(e);
    placeMarkers();
}

void TimeChart::mouseMoveEvent(QMouseEvent *e)
{
    const QPointF pos = e->position();
    if (dragX_) {
        const qreal dx = pos.x() - *dragX_;
        dragX_ = static_cast<int>(pos.x());
        emit panRequested(-dx / std::max(1.0, plotArea().width()) * (to_ - from_));
        return;
    }
    const QRectF plot = plotArea();
    if (pos.x() < plot.left() || pos.x() > plot.right()) {
        emit hoverLeft();
        return;
    }
    emit hoveredAt(timeAt(pos.x()));
    // A marker under the pointer: its label, whether or not it was drawn.
    for (const auto &m : markers_)
        if (m.line->isVisible() && std::fabs(xForTime(m.t) - pos.x()) <= 4) {
            QToolTip::showText(e->globalPosition().toPoint(),
                               QStringLiteral("%1 s: %2").arg(m.t, 0, 'f', 1).arg(m.label), this);
            return;
        }
    QToolTip::hideText();
}

void TimeChart::mousePressEvent(QMouseEvent *e)
{
    if (e->button() == Qt::LeftButton && plotArea().contains(e->position()))
        dragX_ = static_cast<int>(e->position().x());
    e->accept();
}

void TimeChart::mouseReleaseEvent(QMouseEvent *e)
{
    dragX_.reset();
    e->accept();
}

void TimeChart::mouseDoubleClickEvent(QMouseEvent *e)
{
    emit followRequested();
    e->accept();
}

void TimeChart::wheelEvent(QWheelEvent *e)
{
    const double steps = e->angleDelta().y() / 120.0;
    if (steps == 0) return;
    emit zoomRequested(timeAt(e->position().x()), std::pow(0.8, steps));
    e->accept();
}

void TimeChart::leaveEvent(QEvent *e)
{
    QChartView::leaveEvent(e);
    emit hoverLeft();
}

} // namespace ringlab::ui
