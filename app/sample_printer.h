// SPDX-License-Identifier: GPL-2.0-or-later
// Prints samples and events as they arrive (a table for people, JSON lines for scripts) and
// gathers the closing summary as they go (flat memory, however long the run). It runs on its
// queue's drain thread (see Subscriber): a reader that stops reading fills the pipe and this
// thread waits in write(), never the engine; lines the queue could not hold meanwhile are
// counted. A write that fails (EPIPE: the reader went away) ends the output: nothing more is
// written, and `onClosed` is called once, so that the run can stop.
#pragma once

#include <atomic>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
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
    // Samples and events the queue dropped while the reader was slow: lines not printed.
    void onDropped(std::uint64_t samples, std::uint64_t events) override;
    std::string queueName() const override { return "stdout"; }

    // Called once, from the thread that wrote, when the output cannot be written any more.
    // Set before the run starts; it must not block.
    void setOnClosed(std::function<void()> onClosed) { onClosed_ = std::move(onClosed); }
    bool closed() const { return closed_.load(); }
    // Why the output closed ("Broken pipe"); empty while it is open.
    std::string closedReason() const;
    // Its errno (EPIPE: the reader went away; ENOSPC, EIO: the output failed); 0 while open.
    int closedErrno() const;
    std::uint64_t droppedLines() const { return droppedLines_.load(); }

    std::size_t sampleCount() const;
    RunSummary summary() const;
    std::shared_ptr<const Sample> latest() const;
    void printSummary(const RunSummary &r);
    // JSON lines: a first record with the profile and every starting value.
    void printParams(const std::string &profile, const ParamSet &ps);
    void printThreads(std::FILE *out) const; // `show threads`

  private:
    void header();
    // After writing: flushes, and ends the output when the write failed.
    void finishWrite();
    OutputFormat fmt_;
    std::FILE *out_;
    mutable std::mutex mutex_;
    RunSummarizer summarizer_;
    std::shared_ptr<const Sample> latest_;
    int rowsSinceHeader_ = 1000;
    std::uint32_t sampleEvery_ = 1; // the latency columns' sampling, said when it changes
    std::function<void()> onClosed_;
    std::atomic<bool> closed_{false};
    std::string closedReason_; // mutex_
    int closedErrno_ = 0;      // mutex_
    std::atomic<std::uint64_t> droppedLines_{0};
};

// "[0->21->16->37->12=86 us]", the Zephyr net stats style.
std::string stageBreakdown(const Sample &s);

} // namespace ringlab
