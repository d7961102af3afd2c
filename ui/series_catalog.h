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
