// SPDX-License-Identifier: GPL-2.0-or-later
// A subscriber that keeps every sample and event and lets a caller wait for a count: used
// by tests, benchmarks and scripts that drive the engine in-process.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/datapath/engine.h"
#include "engine/datapath/sample.h"

namespace ringlab {

class SampleCollector final : public Subscriber {
  public:
    void onSample(const std::shared_ptr<const Sample> &s) override
    {
        std::lock_guard lock(mutex_);
        samples_.push_back(s);
        cv_.notify_all();
    }
    void onEvent(const Event &e) override
    {
        std::lock_guard lock(mutex_);
        events_.push_back(e);
        cv_.notify_all();
    }
    std::string queueName() const override { return "collector"; }
    // Waits until at least n samples have arrived; false if the timeout passed first.
    bool waitSamples(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(60))
    {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, timeout, [&] { return samples_.size() >= n; });
    }
    std::vector<std::shared_ptr<const Sample>> samples() const
    {
        std::lock_guard lock(mutex_);
        return samples_;
    }
    std::vector<Event> events() const
    {
        std::lock_guard lock(mutex_);
        return events_;
    }

  private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::shared_ptr<const Sample>> samples_;
    std::vector<Event> events_;
};

// Starts an engine, waits for `samples` samples, stops it and returns them all. Throws when
// they did not all come within a minute: a caller never reads samples that are not there.
inline std::vector<std::shared_ptr<const Sample>> runEngine(const ParamSet &ps,
                                                            const DeviceFactory &factory,
                                                            std::size_t samples,
                                                            std::int64_t intervalNs)
{
    Engine engine(ps, factory, EngineOptions{intervalNs});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    if (auto st = engine.start(); !st.ok()) throw std::runtime_error("runEngine: " + st.error);
    const bool all = c->waitSamples(samples);
    engine.stop();
    auto got = c->samples();
    if (!all)
        throw std::runtime_error("runEngine: " + std::to_string(got.size()) + " of " +
                                 std::to_string(samples) + " samples in a minute");
    return got;
}

} // namespace ringlab
