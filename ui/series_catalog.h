// SPDX-License-Identifier: GPL-2.0-or-later
// Every series the four time charts can show, defined once: which chart, its label, axis,
// whether it is shown by default, its fixed colour, and how it is read from a Sample.
// Per-thread series (CPU, wakeups) are families, one series per thread the run has.
#pragma once

#include <QColor>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "engine/datapath/sample.h"

namespace ringlab::ui {

enum class ChartId { Throughput, Cpu, Latency, Events };
inline constexpr int kChartCount = 4;

struct ChartDef {
    ChartId id;
    const char *key; // settings key
    const char *title;
    const char *unit;
    const char *rightUnit; // null: no right axis
    bool logByDefault;
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

// A per-thread family: one series per engine thread, named "THREAD" + suffix.
struct ThreadSeriesDef {
    ChartId chart;
    const char *keyPrefix; // the series' key is prefix + thread name
    const char *suffix;
    double ThreadStat::*field;
};
const std::vector<ThreadSeriesDef> &threadSeriesDefs();

// A device's own figures (Sample::device: the kernel device's counters, who drove each NAPI
// poll), charted by the prefix of their names: one series per figure the run has, keyed
// "device:" + name. Figures that match no row are in the session, not on a chart.
struct DeviceSeriesDef {
    const char *prefix; // of the figure's name
    ChartId chart;
    bool defaultOn;
    const char *label; // the legend: label + what follows the prefix, without "_per_s"
};
const std::vector<DeviceSeriesDef> &deviceSeriesDefs();
inline constexpr const char *kDeviceKeyPrefix = "device:";
struct DeviceSeries {
    ChartId chart;
    bool defaultOn;
    QString key, label;
};
// The series a device's figure is drawn as, if any.
std::optional<DeviceSeries> deviceSeriesFor(const std::string &figure);

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
