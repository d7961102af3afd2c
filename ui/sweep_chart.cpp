// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/sweep_chart.h"

#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/common/number_text.h"
#include "engine/metrics/sample_metrics.h"

namespace ringlab::ui {
namespace {

// The better direction of a label, as the sweep's table has it, else from the metric table.
int directionOf(const SweepTable &table, const std::string &label)
{
    for (std::size_t m = 0; m < table.metrics.size() && m < table.directions.size(); ++m)
        if (table.metrics[m] == label) return table.directions[m];
    return betterDirection(label.substr(0, label.find('[')));
}

QString directionText(int direction)
{
    return direction > 0   ? QObject::tr("higher is better")
           : direction < 0 ? QObject::tr("lower is better")
                           : QObject::tr("follows the load, no better side");
}

} // namespace

SweepChart::SweepChart(QWidget *parent) : QChartView(new QChart, parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setMargins(QMargins(4, 4, 4, 4));
    // Beside its caption, the table and the report in a 1024x640 window: taller, its
    // caption was drawn over its legend (issue 46 item 8).
    setMinimumHeight(180);
    connect(chart(), &QChart::plotAreaChanged, this, &SweepChart::fitAxisTitles);
}

void SweepChart::fitAxisTitles()
{
    // Qt Charts elides a rotated title longer than the plot is tall ("latenc…"): the y metric
    // is named in the picker right above the chart, so its title goes rather than be cut.
    for (QAbstractAxis *a : chart()->axes(Qt::Vertical)) {
        const int need = QFontMetrics(a->titleFont()).horizontalAdvance(yName_) + 8;
        const QString want = need <= chart()->plotArea().height() ? yName_ : QString();
        if (a->titleText() != want) a->setTitleText(want);
    }
}

void SweepChart::show(const SweepTable &table, const std::string &x, const std::string &y)
{
    QChart *c = chart();
    c->removeAllSeries();
    for (QAbstractAxis *a : c->axes()) {
        c->removeAxis(a); // hands it back to us: QChart does not delete a removed axis
        delete a;
    }
    xName_ = QString::fromStdString(x);
    yName_ = QString::fromStdString(y);
    dirs_ = {directionOf(table, x), directionOf(table, y)};
    placePoints(table, x, y);
    const auto [ax, ay] = addAxes();
    addErrorBars(ax, ay);
    addPoints(ax, ay);
    describe();
    emit captionChanged(caption_);
}

void SweepChart::placePoints(const SweepTable &table, const std::string &x, const std::string &y)
{
    drawn_.clear();
    frontCount_ = 0;
    // The points that measured both metrics, and where each stands against their front.
    std::vector<std::vector<Estimate>> rows;
    for (const PointResult &p : table.points) {
        const auto ix = p.metrics.find(x), iy = p.metrics.find(y);
        if (ix == p.metrics.end() || iy == p.metrics.end()) continue;
        const Estimate &ex = ix->second, &ey = iy->second;
        Drawn d;
        d.value = QPointF(ex.mean, ey.mean);
        d.xHalf = hasInterval(ex) ? ex.ciHalf : 0;
        d.yHalf = hasInterval(ey) ? ey.ciHalf : 0;
        d.point = p.point.index;
        d.session = p.sessions.empty() ? 0 : p.sessions.front();
        d.values = QString::fromStdString(p.point.text());
        drawn_.push_back(d);
        rows.push_back({ex, ey});
    }
    std::vector<int> by;
    const bool sided = anyDirection();
    const std::vector<int> dirs{dirs_[0], dirs_[1]};
    const std::vector<FrontPlace> places =
        sided ? frontPlaces(rows, dirs, &by) : std::vector<FrontPlace>{};
    for (std::size_t k = 0; k < drawn_.size(); ++k) {
        Drawn &d = drawn_[k];
        d.place = sided ? places[k] : FrontPlace::WithinNoise;
        d.beatenBy = sided && by[k] >= 0 ? drawn_[std::size_t(by[k])].point : -1;
        frontCount_ += sided && d.place == FrontPlace::On;
    }
    // A metric whose every mean is >= 0 (CPU, latency, rates) cannot go below 0: its error
    // bars are cut there, and so is its axis.
    xFloor_ =
        std::all_of(drawn_.begin(), drawn_.end(), [](const Drawn &d) { return d.value.x() >= 0; });
    yFloor_ =
        std::all_of(drawn_.begin(), drawn_.end(), [](const Drawn &d) { return d.value.y() >= 0; });
}

double SweepChart::xLow(const Drawn &d) const
{
    return xFloor_ ? std::max(0.0, d.value.x() - d.xHalf) : d.value.x() - d.xHalf;
}

double SweepChart::yLow(const Drawn &d) const
{
    return yFloor_ ? std::max(0.0, d.value.y() - d.yHalf) : d.value.y() - d.yHalf;
}

std::pair<QValueAxis *, QValueAxis *> SweepChart::addAxes()
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (const Drawn &d : drawn_) {
        xmin = std::min(xmin, xLow(d));
        xmax = std::max(xmax, d.value.x() + d.xHalf);
        ymin = std::min(ymin, yLow(d));
        ymax = std::max(ymax, d.value.y() + d.yHalf);
    }
    auto *ax = new QValueAxis;
    auto *ay = new QValueAxis;
    ax->setLabelFormat(QStringLiteral("%g"));
    ay->setLabelFormat(QStringLiteral("%g"));
    ax->setTitleText(xName_);
    ay->setTitleText(yName_); // fitAxisTitles() drops it where the plot is too short
    if (drawn_.empty()) {
        ax->setRange(0, 1);
        ay->setRange(0, 1);
    } else {
        const double px = std::max((xmax - xmin) * 0.08, std::fabs(xmax) * 0.02 + 1e-9);
        const double py = std::max((ymax - ymin) * 0.08, std::fabs(ymax) * 0.02 + 1e-9);
        ax->setRange(xmin >= 0 ? std::max(0.0, xmin - px) : xmin - px, xmax + px);
        ay->setRange(ymin >= 0 ? std::max(0.0, ymin - py) : ymin - py, ymax + py);
        ax->applyNiceNumbers();
        ay->applyNiceNumbers();
    }
    chart()->addAxis(ax, Qt::AlignBottom);
    chart()->addAxis(ay, Qt::AlignLeft);
    return {ax, ay};
}

void SweepChart::addSeries(QXYSeries *s, QValueAxis *ax, QValueAxis *ay)
{
    chart()->addSeries(s);
    s->attachAxis(ax);
    s->attachAxis(ay);
}

void SweepChart::addErrorBars(QValueAxis *ax, QValueAxis *ay)
{
    // Error bars with caps, one line each: the caps are 1 % of the other axis long.
    QPen barPen(QColor(0x50, 0x50, 0x50));
    barPen.setWidthF(1.0);
    const double capX = (ax->max() - ax->min()) * 0.01, capY = (ay->max() - ay->min()) * 0.01;
    for (const Drawn &d : drawn_) {
        const double vx = d.value.x(), vy = d.value.y();
        if (d.xHalf > 0) {
            auto *bar = new QLineSeries;
            bar->setObjectName(xBarName(d.point));
            const double x0 = xLow(d), x1 = vx + d.xHalf;
            bar->append({QPointF(x0, vy - capY), QPointF(x0, vy + capY), QPointF(x0, vy),
                         QPointF(x1, vy), QPointF(x1, vy + capY), QPointF(x1, vy - capY)});
            bar->setPen(barPen);
            addSeries(bar, ax, ay);
        }
        if (d.yHalf > 0) {
            auto *bar = new QLineSeries;
            bar->setObjectName(yBarName(d.point));
            const double y0 = yLow(d), y1 = vy + d.yHalf;
            bar->append({QPointF(vx - capX, y0), QPointF(vx + capX, y0), QPointF(vx, y0),
                         QPointF(vx, y1), QPointF(vx + capX, y1), QPointF(vx - capX, y1)});
            bar->setPen(barPen);
            addSeries(bar, ax, ay);
        }
    }
}

void SweepChart::addPoints(QValueAxis *ax, QValueAxis *ay)
{
    const bool sided = anyDirection();
    // The front as a staircase: from each of its points (in x order) to the next through the
    // corner on the dominated side, so that the line bounds what the front's points beat.
    const QColor orange(0xdd, 0x84, 0x52), darkOrange(0x80, 0x30, 0x10);
    auto *frontLine = new QLineSeries;
    frontLine->setObjectName(frontLineName());
    frontLine->setName(tr("front"));
    QPen linePen(orange);
    linePen.setWidthF(1.6);
    frontLine->setPen(linePen);
    std::vector<QPointF> frontPts;
    for (const Drawn &d : drawn_)
        if (sided && d.place == FrontPlace::On) frontPts.push_back(d.value);
    std::sort(frontPts.begin(), frontPts.end(), [](const QPointF &a, const QPointF &b) {
        return a.x() != b.x() ? a.x() < b.x() : a.y() < b.y();
    });
    frontPts.erase(std::unique(frontPts.begin(), frontPts.end()), frontPts.end());
    if (dirs_[0] != 0 && dirs_[1] != 0)
        for (std::size_t k = 0; k < frontPts.size(); ++k) {
            if (k > 0) {
                const QPointF &a = frontPts[k - 1], &b = frontPts[k];
                frontLine->append(dirs_[0] < 0 ? QPointF(b.x(), a.y()) : QPointF(a.x(), b.y()));
            }
            frontLine->append(frontPts[k]);
        }

    auto *front = new QScatterSeries;
    front->setName(tr("on the front"));
    front->setMarkerSize(13);
    front->setColor(orange);
    front->setBorderColor(darkOrange);
    auto *noise = new QScatterSeries;
    noise->setName(tr("within noise"));
    noise->setMarkerSize(13);
    noise->setColor(Qt::white);
    noise->setBorderColor(orange);
    noise->setPen(QPen(orange, 2.0));
    auto *beaten = new QScatterSeries;
    beaten->setName(tr("beaten"));
    beaten->setMarkerSize(9);
    beaten->setColor(QColor(0x4c, 0x72, 0xb0));
    for (const Drawn &d : drawn_)
        (d.place == FrontPlace::On       ? front
         : d.place == FrontPlace::Beaten ? beaten
                                         : noise)
            ->append(d.value);
    if (!sided) noise->setName(tr("point"));
    for (QXYSeries *s : std::initializer_list<QXYSeries *>{frontLine, beaten, noise, front})
        addSeries(s, ax, ay);
    // The legend names the kinds of point there are; the bars and the line are the caption's.
    for (QLegendMarker *m : chart()->legend()->markers()) {
        auto *s = qobject_cast<QXYSeries *>(m->series());
        m->setVisible((s == front || s == noise || s == beaten) && s->count() > 0);
    }
    for (QScatterSeries *s : {front, noise, beaten}) {
        connect(s, &QScatterSeries::clicked, this, &SweepChart::clickedAt);
        connect(s, &QScatterSeries::hovered, this, &SweepChart::hoveredAt);
    }
}

void SweepChart::describe()
{
    QChart *c = chart();
    const int withoutInterval = static_cast<int>(std::count_if(
        drawn_.begin(), drawn_.end(), [](const Drawn &d) { return d.xHalf == 0 || d.yHalf == 0; }));
    if (drawn_.empty()) {
        c->setTitle(tr("No point has measured both %1 and %2").arg(xName_, yName_));
        caption_.clear();
    } else if (!anyDirection()) {
        c->setTitle(tr("%1 points").arg(drawn_.size()));
        caption_ = tr("Neither metric has a better side: no front. Bars: 95 % intervals.");
    } else {
        const int noiseCount =
            static_cast<int>(std::count_if(drawn_.begin(), drawn_.end(), [](auto &d) {
                return d.place == FrontPlace::WithinNoise;
            }));
        c->setTitle(tr("%1 point(s): %2 on the Pareto front, %3 within its noise")
                        .arg(drawn_.size())
                        .arg(frontCount_)
                        .arg(noiseCount));
        const QString directions =
            dirs_[0] == dirs_[1]
                ? tr("Both: %1.").arg(directionText(dirs_[0]))
                : tr("x: %1; y: %2.").arg(directionText(dirs_[0]), directionText(dirs_[1]));
        caption_ = tr("Front (filled, staircase): no other point has means as good on both "
                      "axes and better on one. Hollow: off the front on the means, within the "
                      "noise (95 %). Small blue: beaten, significantly. Bars: 95 % intervals. %1")
                       .arg(directions);
        if (withoutInterval > 0)
            caption_ += QLatin1Char(' ') + tr("No bar where a point has too few repeats or "
                                              "batches for an interval: %1 of %2 points.")
                                               .arg(withoutInterval)
                                               .arg(drawn_.size());
    }
}

QPointF SweepChart::positionOf(int k) const
{
    return chart()->mapToPosition(drawn_.at(static_cast<std::size_t>(k)).value);
}

const SweepChart::Drawn *SweepChart::nearest(const QPointF &value) const
{
    const Drawn *best = nullptr;
    double bestD = INFINITY;
    const QPointF at = chart()->mapToPosition(value); // nearest on screen, not in units
    for (const auto &d : drawn_) {
        const QPointF p = chart()->mapToPosition(d.value);
        const double dd = std::hypot(p.x() - at.x(), p.y() - at.y());
        if (dd < bestD) {
            bestD = dd;
            best = &d;
        }
    }
    return best;
}

void SweepChart::clickedAt(const QPointF &value)
{
    if (const Drawn *d = nearest(value)) emit pointClicked(d->point, d->session);
}

void SweepChart::hoveredAt(const QPointF &value, bool on)
{
    const Drawn *d = on ? nearest(value) : nullptr;
    if (!d) {
        QToolTip::hideText();
        return;
    }
    auto withCi = [](double mean, double half) {
        return half > 0 ? QString::fromStdString(shortNumber(mean)) + QStringLiteral(" ± ") +
                              QString::fromStdString(shortNumber(half))
                        : QString::fromStdString(shortNumber(mean)) + tr(" (no interval)");
    };
    const QString place =
        d->place == FrontPlace::On ? tr("on the front")
        : d->place == FrontPlace::WithinNoise
            ? tr("off the front: point %1's means are better, within the noise").arg(d->beatenBy)
            : tr("beaten by point %1").arg(d->beatenBy);
    QToolTip::showText(QCursor::pos(),
                       tr("point %1: %2\n%3: %4\n%5: %6\n%7")
                           .arg(d->point)
                           .arg(d->values, xName_, withCi(d->value.x(), d->xHalf), yName_,
                                withCi(d->value.y(), d->yHalf), place),
                       this);
}

} // namespace ringlab::ui
