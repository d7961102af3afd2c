// SPDX-License-Identifier: GPL-2.0-or-later
// Every metric the engine records, defined once: its name, unit, which direction is better,
// how it is read from a Sample and written back (reading a stored session), and whether it is
// derived from other metrics. Per-thread metrics are families (one value per thread).
// flattenSample, setSampleMetric, betterDirection and engineMetricNames all read this table.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/datapath/sample.h"

namespace ringlab {

struct MetricDef {
    std::string name;
    std::string unit;
    int better = -1; // +1 higher is better, -1 lower is better, 0 it follows the load
    // Whole-engine metrics: absent from a sample when read returns nullopt.
    std::function<std::optional<double>(const Sample &)> read;
    std::function<void(Sample &, double)> write; // null: derived, nothing to set
    // Per-thread families ("cpu_ms_per_s[poll]"): read and write one thread's figure.
    // Absent for a thread when readThread returns nullopt (a poll gap of a thread that does
    // not poll).
    std::function<std::optional<double>(const ThreadStat &)> readThread;
    std::function<void(ThreadStat &, double)> writeThread;
    bool perThread() const { return static_cast<bool>(readThread); }
};

// In the order samples are flattened: the columns of a CSV export.
const std::vector<MetricDef> &metricTable();
// The definition of a name (without its "[thread]"), or null: a device's own metric.
const MetricDef *findMetric(std::string_view name);

} // namespace ringlab
