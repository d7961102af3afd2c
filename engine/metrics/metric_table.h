// SPDX-License-Identifier: GPL-2.0-or-later
// Every metric the engine records, defined once: its name, unit, kind, which direction is
// better, its label and meaning for people, where a sample line holds it, how it is read from
// a Sample and written back (reading a line or a stored session), whether it is derived from
// other metrics, and how people see it (its chart, colour and legend in the desktop, its place
// in the printed summary and in the segment table). Per-thread metrics are families (one value
// per thread).
// flattenSample, the sample line (toJson, sampleFromJson), GET /metrics, the run summary, the
// desktop's charts and segment columns and docs/metrics.md (`ringlab-engine metrics
// --markdown`) all read this table: a new metric is one entry here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/datapath/sample.h"

namespace ringlab {

enum class MetricKind : std::uint8_t {
    Rate,       // per second over the interval
    Gauge,      // a level at the end of the interval, or a share of it
    Percentile, // of the interval's latency distribution (with its mean and maximum)
    Count,      // of the interval's events (the packets a latency distribution holds)
    Ratio,      // one rate over another
};
std::string_view metricKindName(MetricKind k);

// The desktop's time charts, top to bottom (ui/series_catalog draws them).
enum class MetricChart : std::uint8_t { None, Throughput, Cpu, Latency, Events };

// A column the desktop's segment table offers: the metric's mean per segment, for a family one
// thread's.
struct SegmentColumn {
    int rank;                  // offered in ascending rank: the reference cases' metrics first
    bool on;                   // shown before anyone chooses
    std::string_view thread{}; // a family's thread ("poll"), else empty
};

// How people see a metric. The defaults: on no chart, not in the printed summary, no segment
// column (still in every line, session, export and GET /metrics).
struct MetricView {
    MetricChart chart = MetricChart::None;
    bool shown = false; // drawn when a run opens; else one click in the legend
    bool right = false; // on the chart's right axis (its legend then gives the unit)
    // Where the chart's title says the rest ("p99"); else the label. A family's: what follows
    // each thread's name (" wakeups"; the CPU chart's series are the threads' names alone).
    std::string_view legend{};
    // Its colour, 0xRRGGBB: one per charted metric. A family's series take their thread's.
    std::optional<std::uint32_t> rgb{};
    int summary = 0; // the printed run summary lists by group, ascending; 0: not listed
    // Its place among the metrics `compare` ranks when none are named (a family: every thread
    // both sides have); 0: only when named.
    int compare = 0;
    // Its place among a sweep's metrics when none are named (its table's columns and the
    // front's objectives); 0: only when named.
    int sweep = 0;
    std::vector<SegmentColumn> segment{};
};

struct MetricDef {
    std::string name;
    std::string unit;
    MetricKind kind = MetricKind::Gauge;
    int better = -1;   // +1 higher is better, -1 lower is better, 0 it follows the load
    std::string label; // for people: legends, columns, the run summary
    // Where a sample line holds it: a dotted path ("throughput.rx_pps"); for a per-thread
    // family, the key in each thread's object. Empty: derived, its sources are in the line.
    std::string line;
    bool whole = false;    // a whole number (a count, a level of buffers or microseconds)
    bool optional = false; // left out of a line when it has no value; else written as 0
    // What it measures, for people: docs/metrics.md, and the HELP of its Prometheus gauge.
    std::string help;
    // Exposed by GET /metrics as a gauge of this name (in base units: seconds for "us"); empty:
    // the exposition has it otherwise (counters, histograms) or not at all.
    std::string prometheus;
    // Whole-engine metrics: absent from a sample when read returns nullopt.
    std::function<std::optional<double>(const Sample &)> read;
    std::function<void(Sample &, double)> write; // null: derived, nothing to set
    // Per-thread families ("cpu_ms_per_s[poll]"): read and write one thread's figure.
    // Absent for a thread when readThread returns nullopt (a poll gap of a thread that does
    // not poll).
    std::function<std::optional<double>(const ThreadStat &)> readThread;
    std::function<void(ThreadStat &, double)> writeThread;
    MetricView view{};
    // A latency quantile's fraction: the share of frames at or below it (0.5 for p50, 1 for
    // the longest); the knots of a distribution drawn from the figures (ui's latency tail).
    std::optional<double> quantile{};
    bool perThread() const { return static_cast<bool>(readThread); }
    bool derived() const { return !write && !writeThread; }
};

// In the order samples are flattened: the columns of a CSV export.
const std::vector<MetricDef> &metricTable();
// The definition of a name (without its "[thread]"), or null: a device's own metric.
const MetricDef *findMetric(std::string_view name);
// A compact heading for a column, a legend or a printed row: the label and the unit as people
// write them ("engine CPU ms/s", "drops/s", "latency p99 µs"; a ratio's label says its unit);
// a thread's figure names the thread ("poll thread wakeups/s").
std::string metricHeading(const MetricDef &d, std::string_view thread = {});
// The charted metrics of a chart, in table order (not the families).
std::vector<const MetricDef *> chartedMetrics(MetricChart c);
// The charted per-thread families, a series per thread each, in table order.
std::vector<const MetricDef *> chartedFamilies();
// The metrics the printed run summary lists, in its order (families where their group is).
std::vector<const MetricDef *> summaryMetrics();
// The metrics a rank column of the view places (&MetricView::compare, &MetricView::sweep:
// above 0), in ascending rank, table order among equals.
std::vector<const MetricDef *> rankedMetrics(int MetricView::*column);
// The quantiles a latency's figures hold ("latency", "rtt": the names' prefix), ascending.
std::vector<const MetricDef *> quantileMetrics(std::string_view prefix);
// "higher", "lower" or "neither" (it follows the load): MetricDef::better in words.
std::string_view metricDirection(int better);
// docs/metrics.md: every metric with its unit, kind, direction, line field and meaning.
std::string metricsMarkdown();
// The definition of a name that must be one (a name written in the program): aborts naming it
// otherwise, so that a misspelt name fails at its first use, in every test that reaches it.
const MetricDef &metric(std::string_view name);

} // namespace ringlab
