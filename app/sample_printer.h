// SPDX-License-Identifier: GPL-2.0-or-later
// Prints samples and events as they arrive (a table for people, JSON lines for scripts) and
// gathers the closing summary as they go (flat memory, however long the run).
#pragma once

#include <cstdio>
#include <mutex>
#include <vector>

#include "engine/datapath/sample.h"
#include "engine/datapath/tunables.h"
#include "engine/metrics/summary.h"

namespace ringlab {

enum class OutputFormat { Table, Jsonl };

class SamplePrinter final : public Subscriber {
  public:
    SamplePrinter(OutputFormat fmt, std::FILE *out, double warmupS)
        : fmt_(fmt), out_(out), summarizer_(warmupS)
    {
    }
    void onSample(const std::shared_ptr<const Sample> &s) override;
    void onEvent(const Event &e) override;

    std::size_t sampleCount() const;
    RunSummary summary() const;
    std::shared_ptr<const Sample> latest() const;
    void printSummary(const RunSummary &r);
    // JSON lines: a first record with the profile and every starting value.
    void printParams(const std::string &profile, const ParamSet &ps);
    void printThreads(std::FILE *out) const; // `show threads`

  private:
    void header();
    OutputFormat fmt_;
    std::FILE *out_;
    mutable std::mutex mutex_;
    RunSummarizer summarizer_;
    std::shared_ptr<const Sample> latest_;
    int rowsSinceHeader_ = 1000;
};

// "[0->21->16->37->12=86 us]", the Zephyr net stats style.
std::string stageBreakdown(const Sample &s);

} // namespace ringlab
