// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/distribution_charts.h"

#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QCategoryAxis>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "engine/metrics/metric_table.h"

namespace ringlab::ui {

namespace {
const QColor kA(0x4c72b0), kB(0xdd8452);

const std::vector<double> *values(const CompareSide &side, const std::string &label)
{
    auto it = side.values.find(label);
    return it == side.values.end() ? nullptr : &it->second;
}
} // namespace

double quantileOf(std::vector<double> v, double q)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::vector<QPointF> latencyTail(const CompareSide &side, const std::string &prefix)
{
    // The quantile knots of each sample: the percentiles the metric table has for `prefix`
    // (p50 ... the longest). They are present together (a sample without frames has none), so
    // the lists line up.
    std::vector<double> kP;
    std::vector<const std::vector<double> *> q;
    for (const MetricDef *d : quantileMetrics(prefix)) {
        const auto *v = values(side, d->name);
        if (!v || v->empty()) return {};
        kP.push_back(*d->quantile);
        q.push_back(v);
    }
    if (q.size() < 2) return {};
    std::vector<double> weight;
    if (const auto *c = values(side, prefix + "_count"))
        for (double n : *c)
            if (n > 0) weight.push_back(n);
    const std::size_t n = q[0]->size();
    for (const auto *v : q)
        if (v->size() != n) return {};
    if (weight.size() != n) weight.assign(n, 1.0);
    double lo = 1e300, hi = 0, total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        lo = std::min(lo, (*q[0])[i]);
        hi = std::max(hi, (*q.back())[i]);
        total += weight[i];
    }
    if (!(lo > 0) || !(hi >= lo) || total <= 0) return {};
    std::vector<QPointF> out;
    constexpr int kSteps = 120;
    const double step = std::log(hi / lo) / kSteps;
    for (int k = 0; k <= kSteps; ++k) {
        const double x = lo * std::exp(step * k);
        double slower = 0;
        for (std::size_t i = 0; i < n; ++i) {
            // This sample's CDF at x, linear between its knots; below the first: at most that.
            double f = kP[0];
            for (std::size_t j = 0; j < q.size(); ++j) {
                const double qj = (*q[j])[i];
                if (x >= qj) {
                    f = kP[j];
                    continue;
                }
                if (j > 0) {
                    const double qp = (*q[j - 1])[i];
                    if (qj > qp) f = kP[j - 1] + (kP[j] - kP[j - 1]) * (x - qp) / (qj - qp);
                }
                break;
            }
            slower += weight[i] * (1.0 - f);
        }
        const double frac = slower / total;
        if (frac <= 0) break;
        out.emplace_back(x, frac);
    }
    return out;
}

QChartView *makeTailChart(const CompareSide &a, const CompareSide &b)
{
    auto *chart = new QChart;
    chart->setTitle(QObject::tr("Latency tail: fraction of frames slower than x"));
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto *x = new QLogValueAxis;
    x->setTitleText(QObject::tr("latency (µs, log)"));
    x->setLabelFormat("%g");
    auto *y = new QLogValueAxis;
    y->setTitleText(QObject::tr("fraction slower"));
    y->setLabelFormat("%g");
    y->setRange(0.0005, 0.5);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double lo = 1e300, hi = 0;
    for (int side = 0; side < 2; ++side) {
        const auto pts = latencyTail(side == 0 ? a : b);
        if (pts.empty()) continue;
        auto *s = new QLineSeries;
        s->setName(side == 0 ? QObject::tr("A") : QObject::tr("B"));
        QPen pen(side == 0 ? kA : kB, 2);
        if (side == 1) pen.setStyle(Qt::DashLine);
        s->setPen(pen);
        for (const QPointF &p : pts)
            if (p.y() >= 0.0005) s->append(p);
        lo = std::min(lo, pts.front().x());
        hi = std::max(hi, pts.back().x());
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    if (hi > 0)
        x->setRange(std::pow(10, std::floor(std::log10(lo))),
                    std::pow(10, std::ceil(std::log10(hi))));
    auto *view = new QChartView(chart);
    view->setToolTip(QObject::tr("From each 100 ms sample's p50, p90, p99, p99.9 and max, "
                                 "weighted by its frames; below a sample's median only the "
                                 "upper half is known"));
    view->setMinimumSize(260, 200);
    return view;
}

QChartView *makeBoxChart(const QString &title, const std::vector<double> &a,
                         const std::vector<double> &b, double meanA, double meanB)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->hide();
    auto *series = new QBoxPlotSeries;
    auto *means = new QScatterSeries;
    means->setName(QString::fromLatin1(kBoxMeanSeries));
    means->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    means->setMarkerSize(9);
    means->setColor(Qt::black);
    means->setBorderColor(Qt::white);
    // The mean may sit near the floor of an axis a burst stretches (drops: mean 76, highest
    // 18,869): its figure is written beside it, as the row gives it.
    means->setPointLabelsVisible(true);
    means->setPointLabelsFormat(QStringLiteral("mean @yPoint"));
    means->setPointLabelsClipping(false);
    double lo = 1e300, hi = -1e300;
    bool negative = false;
    int column = 0;
    for (int side = 0; side < 2; ++side) {
        const auto &v = side == 0 ? a : b;
        if (v.empty()) continue;
        const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
        double mean = side == 0 ? meanA : meanB;
        if (!std::isfinite(mean)) {
            mean = 0;
            for (const double x : v)
                mean += x;
            mean /= static_cast<double>(v.size());
        }
        auto *set = new QBoxSet(side == 0 ? QStringLiteral("A") : QStringLiteral("B"));
        set->setValue(QBoxSet::LowerExtreme, *mn);
        set->setValue(QBoxSet::LowerQuartile, quantileOf(v, 0.25));
        set->setValue(QBoxSet::Median, quantileOf(v, 0.5));
        set->setValue(QBoxSet::UpperQuartile, quantileOf(v, 0.75));
        set->setValue(QBoxSet::UpperExtreme, *mx);
        set->setBrush(side == 0 ? kA.lighter(140) : kB.lighter(140));
        set->setPen(QPen(side == 0 ? kA.darker(120) : kB.darker(120), 1.4));
        lo = std::min({lo, *mn, mean});
        hi = std::max({hi, *mx, mean});
        negative |= *mn < 0 || mean < 0;
        series->append(set);
        means->append(column++, mean);
    }
    chart->addSeries(series);
    chart->createDefaultAxes();
    chart->addSeries(means);
    for (QAbstractAxis *axis : chart->axes())
        means->attachAxis(axis);
    if (auto *y = qobject_cast<QValueAxis *>(chart->axes(Qt::Vertical).value(0)); y && hi >= lo) {
        // A constant (drops at 0): a plain axis around it, not five labels reading "0.0". A
        // metric that is never negative (rates, CPU, latency) has no axis below 0.
        const double pad = hi - lo > 1e-9 ? (hi - lo) * 0.1 : std::max(1.0, std::fabs(hi) * 0.1);
        y->setRange(negative ? lo - pad : std::max(0.0, lo - pad), hi + pad);
        y->applyNiceNumbers();
        if (!negative && y->min() < 0) y->setMin(0);
        const double step = (y->max() - y->min()) / std::max(1, y->tickCount() - 1);
        y->setLabelFormat(step >= 1 ? "%.0f" : step >= 0.1 ? "%.1f" : "%.2f");
    }
    auto *view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setToolTip(QObject::tr("Box: quartiles of the 100 ms samples; whiskers: the lowest and "
                                 "the highest sample; square: the mean the table compares"));
    view->setMinimumSize(150, 160); // two rows and the table fit a 1280x800 screen
    return view;
}

} // namespace ringlab::ui
