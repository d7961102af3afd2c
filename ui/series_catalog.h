// SPDX-License-Identifier: GPL-2.0-or-later
// Every series the time charts can show, defined once: which chart, its label, axis,
// whether it is shown by default, its fixed colour, and how it is read from a Sample.
// Per-thread series (CPU, wakeups) are families, one series per thread the run has.
#pragma once

#include <QColor>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "engine/datapath/sample.h"
#include "engine/metrics/metric_table.h"

namespace ringlab::ui {

// The charts of the stack, top to bottom. Polls is the kernel device's: shown only when a
// run has its figures.
enum class ChartId { Throughput, Cpu, Latency, Events, Polls };
inline constexpr int kChartCount = 5;

struct ChartDef {
    ChartId id;
    const char *key; // settings key
    const char *title;
    const char *unit;
    const char *rightUnit; // null: no right axis
    bool logByDefault;
    // Series drawn as stacked areas on a linear axis (parts of one whole); never log.
    bool stacked = false;
    // Shown only while it has a series (a device's own chart).
    bool onlyWhenUsed = false;
};
const std::vector<ChartDef> &chartDefs();

struct SeriesDef {
    ChartId chart;
    const char *key;   // stable: settings, colours
    std::string label; // shown in the legend and used as the series' name
    bool right = false;
    bool defaultOn = true;
    std::function<std::optional<double>(const Sample &)> read; // nullopt: not in this sample
};
const std::vector<SeriesDef> &seriesDefs();

// A charted per-thread family of the metric table: one series per engine thread, named
// "THREAD" + suffix, keyed prefix + thread name ("cpu:poll": the family's name up to its
// first '_', as saved settings have it).
struct ThreadSeriesDef {
    ChartId chart;
    std::string keyPrefix;
    std::string suffix; // the table's legend
    const MetricDef *metric;
};
const std::vector<ThreadSeriesDef> &threadSeriesDefs();

// A device's own figures (Sample::device: the kernel device's counters, who drove each NAPI
// poll), charted by the prefix of their names: one series per figure the run has, keyed
// "device:" + name. Figures that match no row are in the session, not on a chart.
struct DeviceSeriesDef {
    // Of the figure's name; for a row `perNapi`, of what follows "kernel_napiID_" (the
    // figures of one NAPI of several, drivers/kernel/poll_attribution.h).
    const char *prefix;
    bool perNapi;
    ChartId chart;
    bool defaultOn;
    // The legend: label + what follows the prefix, without "_per_s" ("napi ID " before it
    // for a row perNapi).
    const char *label;
    // In a stacked chart, a whole that the sample also gives in parts (each NAPI's): drawn
    // on `wholeChart` instead, so that the stack counts each frame once.
    bool whole = false;
    ChartId wholeChart = ChartId::Events;
};
const std::vector<DeviceSeriesDef> &deviceSeriesDefs();
inline constexpr const char *kDeviceKeyPrefix = "device:";
struct DeviceSeries {
    ChartId chart;
    bool defaultOn;
    QString key, label;
};
// The series a device's figure is drawn as, if any. `split`: the same sample has figures of
// rows perNapi (the whole is then not stacked).
std::optional<DeviceSeries> deviceSeriesFor(const std::string &figure, bool split = false);
// Where a device's series lies in a stack (ChartDef::stacked), bottom first: by NAPI (the
// totals first), then by poll source in the kernel's order (softirq, timer, busy, kthread,
// other).
long stackRank(const QString &key);
// Whether a figure is one of a row perNapi (a sample that has one is `split`).
bool isPerNapiFigure(const std::string &figure);

// The desktop's own GUI thread, a CPU series of its own (live runs only).
inline constexpr const char *kGuiThreadKey = "gui";
inline constexpr const char *kGuiThreadLabel = "GUI thread";

// The fixed colour of a series key. Threads (a thread's name, or "gui", "engine") have
// colours no other series uses; every other key has its own.
QColor seriesColor(const QString &key);
bool isThreadColorKey(const QString &key);
// Threads the charts do not show: the measuring thread is not the driver's.
bool isChartedThread(const std::string &name);

} // namespace ringlab::ui
