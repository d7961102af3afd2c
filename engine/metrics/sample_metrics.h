// SPDX-License-Identifier: GPL-2.0-or-later
// A Sample as a flat list of named metrics (name, unit, thread, value): the rows of the
// session database and the columns of a CSV export.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/datapath/sample.h"

namespace ringlab {

struct MetricDef;

// The metric that says on how many load frames the latency figures were measured: one in N
// (latency.sample_every).
inline constexpr std::string_view kLatencySampleEveryMetric = "latency_sample_every";

struct MetricValue {
    std::string name;
    std::string unit;
    std::string thread; // empty for whole-engine metrics
    double value = 0;
    // As a session's rows and reports name it: "rx_pps", "cpu_ms_per_s[poll]".
    std::string label() const { return thread.empty() ? name : name + "[" + thread + "]"; }
};

std::vector<MetricValue> flattenSample(const Sample &s);
// Whether a larger value of this metric is better (throughput) or worse (CPU, latency,
// drops); nullopt-like 0 when neither applies. Returns +1, -1 or 0. A device's own figure
// is worse when larger if it counts a loss (drops, misses, errors, failures, requests left
// unsent or skipped, a squeezed softirq), else neither: more polls by the NAPI kthread, or
// more frames through the netdev, is what a setting does, not a gain or a loss.
int betterDirection(const std::string &name);
// A device's own figure (no engine metric has its name) whose mean over samples means
// something: a rate or a time ("_per_s", "_pps", "_us", "_pct"), not a running total.
bool isDeviceRateFigure(const std::string &name);
// The metrics the reference cases turn on, in reading order: throughput, engine CPU, poll
// wakeups, p99 latency, drops. Reports and comparisons list them first.
const std::vector<std::string> &keyMetrics();
// Every metric the engine itself records, per-thread ones as "cpu_ms_per_s[THREAD]".
std::vector<std::string> engineMetricNames();
// Whether a label ("latency_p99_us", "cpu_ms_per_s[poll]") names one of them.
bool isEngineMetric(const std::string &label);
// The inverse of flattenSample for one metric: sets the field it came from.
void setSampleMetric(Sample &s, const std::string &name, const std::string &thread, double value);
// The same with the metric's definition looked up once for many samples (findMetric(name);
// null: a device's own metric): a table of 2.5 M values is turned into samples without a
// lookup per value.
void setSampleMetric(Sample &s, const MetricDef *def, const std::string &name,
                     const std::string &thread, double value);

} // namespace ringlab
