// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/sweep_chart.h"

#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace ringlab::ui {

SweepChart::SweepChart(QWidget *parent) : QChartView(new QChart, parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setMargins(QMargins(4, 4, 4, 4));
    setMinimumHeight(240);
}

void SweepChart::show(const SweepTable &table, const std::string &x, const std::string &y)
{
    QChart *c = chart();
    c->removeAllSeries();
    for (QAbstractAxis *a : c->axes()) {
        c->removeAxis(a); // hands it back to us: QChart does not delete a removed axis
        delete a;
    }
    drawn_.clear();
    frontCount_ = 0;

    auto *others = new QScatterSeries;
    others->setName(tr("point"));
    others->setMarkerSize(9);
    others->setColor(QColor(0x4c, 0x72, 0xb0));
    auto *front = new QScatterSeries;
    front->setName(tr("Pareto front"));
    front->setMarkerSize(13);
    front->setColor(QColor(0xdd, 0x84, 0x52));
    front->setBorderColor(QColor(0x80, 0x30, 0x10));
    auto *frontLine = new QLineSeries;
    frontLine->setName(tr("front"));
    QPen dashed(QColor(0xdd, 0x84, 0x52));
    dashed.setStyle(Qt::DashLine);
    dashed.setWidthF(1.2);
    frontLine->setPen(dashed);

    std::vector<QLineSeries *> bars;
    QPen barPen(QColor(0x60, 0x60, 0x60));
    barPen.setWidthF(1.0);
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    // A metric whose every mean is >= 0 (CPU, latency, rates) cannot go below 0: its error
    // bars are cut there, and so is its axis.
    bool xNonNegative = true, yNonNegative = true;
    for (const auto &p : table.points) {
        if (auto it = p.metrics.find(x); it != p.metrics.end() && it->second.mean < 0)
            xNonNegative = false;
        if (auto it = p.metrics.find(y); it != p.metrics.end() && it->second.mean < 0)
            yNonNegative = false;
    }
    std::vector<QPointF> frontPts;
    for (std::size_t k = 0; k < table.points.size(); ++k) {
        const PointResult &p = table.points[k];
        const auto ix = p.metrics.find(x), iy = p.metrics.find(y);
        if (ix == p.metrics.end() || iy == p.metrics.end()) continue;
        const Estimate &ex = ix->second, &ey = iy->second;
        const QPointF v(ex.mean, ey.mean);
        drawn_.push_back({v, p.point.index, p.sessions.empty() ? 0 : p.sessions.front()});
        (table.front[k] ? front : others)->append(v);
        if (table.front[k]) {
            frontPts.push_back(v);
            ++frontCount_;
        }
        const double hx = ex.batches >= 3 ? ex.ciHalf : 0, hy = ey.batches >= 3 ? ey.ciHalf : 0;
        const double x0 = xNonNegative ? std::max(0.0, ex.mean - hx) : ex.mean - hx;
        const double y0 = yNonNegative ? std::max(0.0, ey.mean - hy) : ey.mean - hy;
        xmin = std::min(xmin, x0);
        xmax = std::max(xmax, ex.mean + hx);
        ymin = std::min(ymin, y0);
        ymax = std::max(ymax, ey.mean + hy);
        for (auto [a, b] : {std::pair{QPointF(x0, ey.mean), QPointF(ex.mean + hx, ey.mean)},
                            std::pair{QPointF(ex.mean, y0), QPointF(ex.mean, ey.mean + hy)}}) {
            if (a == b) continue;
            auto *bar = new QLineSeries;
            bar->append(a);
            bar->append(b);
            bar->setPen(barPen);
            bars.push_back(bar);
        }
    }
    std::sort(frontPts.begin(), frontPts.end(),
              [](const QPointF &a, const QPointF &b) { return a.x() < b.x(); });
    for (const auto &p : frontPts)
        frontLine->append(p);

    auto *ax = new QValueAxis;
    auto *ay = new QValueAxis;
    ax->setLabelFormat(QStringLiteral("%g"));
    ay->setLabelFormat(QStringLiteral("%g"));
    ax->setTitleText(QString::fromStdString(x));
    ay->setTitleText(QString::fromStdString(y));
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
    c->addAxis(ax, Qt::AlignBottom);
    c->addAxis(ay, Qt::AlignLeft);
    for (QLineSeries *bar : bars) {
        c->addSeries(bar);
        bar->attachAxis(ax);
        bar->attachAxis(ay);
    }
    for (QXYSeries *s : std::initializer_list<QXYSeries *>{frontLine, others, front}) {
        c->addSeries(s);
        s->attachAxis(ax);
        s->attachAxis(ay);
    }
    // The error bars are not legend entries.
    for (QLegendMarker *m : c->legend()->markers())
        if (m->series() != others && m->series() != front) m->setVisible(false);
    for (QScatterSeries *s : {others, front})
        connect(s, &QScatterSeries::clicked, this, &SweepChart::clickedAt);
    c->setTitle(drawn_.empty() ? tr("No point has measured both %1 and %2")
                                     .arg(QString::fromStdString(x), QString::fromStdString(y))
                               : tr("%1 points, %2 on the Pareto front (click one to open it)")
                                     .arg(drawn_.size())
                                     .arg(frontCount_));
}

QPointF SweepChart::positionOf(int k) const
{
    return chart()->mapToPosition(drawn_.at(static_cast<std::size_t>(k)).value);
}

void SweepChart::clickedAt(const QPointF &value)
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
    if (best) emit pointClicked(best->point, best->session);
}

} // namespace ringlab::ui
