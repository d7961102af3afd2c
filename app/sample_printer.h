// SPDX-License-Identifier: GPL-2.0-or-later
// Prints samples and events as they arrive (a table for people, JSON lines for scripts) and
// keeps the samples for the closing summary.
#pragma once

#include <cstdio>
#include <mutex>
#include <vector>

#include "engine/sample.h"
#include "engine/summary.h"
#include "engine/tunables.h"

namespace ringlab {

enum class OutputFormat { Table, Jsonl };

class SamplePrinter final : public Subscriber {
  public:
    SamplePrinter(OutputFormat fmt, std::FILE *out) : fmt_(fmt), out_(out) {}
    void onSample(const std::shared_ptr<const Sample> &s) override;
    void onEvent(const Event &e) override;

    std::vector<std::shared_ptr<const Sample>> samples() const;
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
    std::vector<std::shared_ptr<const Sample>> samples_;
    int rowsSinceHeader_ = 1000;
};

// "[0->21->16->37->12=86 us]", the Zephyr net stats style.
std::string stageBreakdown(const Sample &s);

} // namespace ringlab
