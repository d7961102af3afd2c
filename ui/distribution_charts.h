// SPDX-License-Identifier: GPL-2.0-or-later
// A and B of a comparison as distributions rather than two tangled time series: the latency
// tail (the fraction of frames slower than x, from each 100 ms sample's p50, p90, p99, p99.9
// and max, weighted by its frames), and a box per side for a rate: quartiles, whiskers at the
// lowest and highest sample, and the mean the comparison's row states as a marker, so that a
// plot never disagrees with its row (drops at 0 in 98 % of the samples and bursts of 18,000/s:
// a flat box at 0, a whisker to the burst and the mean above the box).
#pragma once

#include <QChartView>
#include <QPointF>
#include <cmath>
#include <vector>

#include "engine/store/session_compare.h"

namespace ringlab::ui {

// Points (x in µs, fraction slower than x), x on a log grid; empty without latency samples.
std::vector<QPointF> latencyTail(const CompareSide &side, const std::string &prefix = "latency");
QChartView *makeTailChart(const CompareSide &a, const CompareSide &b);
// meanA, meanB: the row's means (NaN: the samples' own mean).
QChartView *makeBoxChart(const QString &title, const std::vector<double> &a,
                         const std::vector<double> &b, double meanA = std::nan(""),
                         double meanB = std::nan(""));
// The names of the box chart's mean markers' series ("mean").
inline constexpr const char *kBoxMeanSeries = "mean";
// The value at quantile q (0..1) of `v`, linearly interpolated; v need not be sorted.
double quantileOf(std::vector<double> v, double q);

} // namespace ringlab::ui
