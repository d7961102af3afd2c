// SPDX-License-Identifier: GPL-2.0-or-later
// Summary of a run: per metric mean, median, min and max over the samples after a warm-up,
// gathered as the samples arrive, in memory that does not grow with the run's length (see
// running_stat.h for the median of long runs).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/datapath/sample.h"
#include "engine/metrics/running_stat.h"

namespace ringlab {

struct RunSummary {
    double duration = 0;                          // seconds covered by all samples
    double warmup = 0;                            // seconds left out
    std::size_t samples = 0;                      // samples used
    std::map<std::string, MetricSummary> metrics; // "rx_pps", "cpu_ms_per_s[poll]", ...
    std::map<std::string, std::uint64_t> totals;  // counter totals over the whole run
    std::vector<std::string> threadNames;
    std::map<std::string, MetricSummary> deviceMetrics; // the device's own (link, traffic)
    std::map<std::string, std::string> deviceUnits;
};

// Samples taken before `warmupS` are left out, unless that would leave none (then the summary
// is of the warm-up's samples, with warmup 0).
class RunSummarizer {
  public:
    explicit RunSummarizer(double warmupS) : warmupS_(warmupS) {}
    void add(const Sample &s);
    RunSummary result() const;
    std::size_t samplesSeen() const { return seen_; }

  private:
    struct Part {
        std::size_t samples = 0;
        std::map<std::string, RunningStat> metrics, device;
        void add(const Sample &s, RunSummarizer &owner);
    };
    double warmupS_;
    std::size_t seen_ = 0;
    Part warmup_, used_;
    double duration_ = 0;
    std::map<std::string, std::uint64_t> totals_; // of the last sample
    std::vector<std::string> threadNames_;
    std::map<std::string, std::string> deviceUnits_;
};

} // namespace ringlab
