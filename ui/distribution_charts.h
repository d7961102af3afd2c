// SPDX-License-Identifier: GPL-2.0-or-later
// A and B of a comparison as distributions rather than two tangled time series: the latency
// tail (the fraction of frames slower than x, from each 100 ms sample's p50, p90, p99, p99.9
// and max, weighted by its frames), and a box per side for a rate (quartiles, whiskers at the
// 5th and 95th percentiles of the samples).
#pragma once

#include <QChartView>
#include <QPointF>
#include <vector>

#include "engine/store/session_compare.h"

namespace ringlab::ui {

// Points (x in µs, fraction slower than x), x on a log grid; empty without latency samples.
std::vector<QPointF> latencyTail(const CompareSide &side, const std::string &prefix = "latency");
QChartView *makeTailChart(const CompareSide &a, const CompareSide &b);
QChartView *makeBoxChart(const QString &title, const std::vector<double> &a,
                         const std::vector<double> &b);
// The value at quantile q (0..1) of `v`, linearly interpolated; v need not be sorted.
double quantileOf(std::vector<double> v, double q);

} // namespace ringlab::ui
