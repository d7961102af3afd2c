// SPDX-License-Identifier: GPL-2.0-or-later
// The closing summary of a run, gathered from every sample on a queue of its own (issue 45,
// item 7): its drain thread only adds to flat running statistics, so it keeps up whatever
// standard output's reader does, and the summary a stalled reader finally gets covers every
// sample the engine took, not only those its own queue could hold.
#pragma once

#include <mutex>

#include "engine/datapath/sample.h"
#include "engine/metrics/summary.h"

namespace ringlab {

class SummaryCollector final : public Subscriber {
  public:
    explicit SummaryCollector(double warmupS) : summarizer_(warmupS) {}
    void onSample(const std::shared_ptr<const Sample> &s) override
    {
        std::lock_guard lock(mutex_);
        summarizer_.add(*s);
    }
    void onEvent(const Event &) override {}
    std::string queueName() const override { return "summary"; }
    RunSummary summary() const
    {
        std::lock_guard lock(mutex_);
        return summarizer_.result();
    }
    std::size_t samplesSeen() const // the warm-up's included
    {
        std::lock_guard lock(mutex_);
        return summarizer_.samplesSeen();
    }

  private:
    mutable std::mutex mutex_;
    RunSummarizer summarizer_;
};

} // namespace ringlab
