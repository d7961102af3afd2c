// SPDX-License-Identifier: GPL-2.0-or-later
// Summary of a run: per metric mean, median, min and max over the samples after a warm-up.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/sample.h"

namespace ringlab {

struct MetricSummary {
    std::size_t n = 0;
    double mean = 0, median = 0, min = 0, max = 0;
};

MetricSummary summarizeValues(std::vector<double> values);

struct RunSummary {
    double duration = 0;                          // seconds covered by all samples
    double warmup = 0;                            // seconds left out
    std::size_t samples = 0;                      // samples used
    std::map<std::string, MetricSummary> metrics; // "rx_pps", "thread.poll.cpu_ms_per_s", ...
    std::map<std::string, std::uint64_t> totals;  // counter totals over the whole run
    std::vector<std::string> threadNames;
    std::map<std::string, MetricSummary> deviceMetrics; // the device's own (link, traffic)
    std::map<std::string, std::string> deviceUnits;
};

// Samples taken before `warmupS` are left out, unless that would leave none.
RunSummary summarizeRun(const std::vector<std::shared_ptr<const Sample>> &samples, double warmupS);

} // namespace ringlab
