// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the engine tests: run an engine on the simulated NIC and collect what it
// reports, waiting on conditions rather than on time.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "drivers/sim/sim_nic.h"
#include "engine/engine.h"

namespace ringlab::test {

class Collector final : public Subscriber {
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
    // Waits until at least n samples have arrived (or the timeout passes). True when they did.
    bool waitSamples(std::size_t n, int timeoutMs = 30000)
    {
        std::unique_lock lock(mutex_);
        return cv_.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] { return samples_.size() >= n; });
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
    std::size_t sampleCount() const
    {
        std::lock_guard lock(mutex_);
        return samples_.size();
    }

private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::shared_ptr<const Sample>> samples_;
    std::vector<Event> events_;
};

inline DeviceFactory simFactory(std::uint64_t seed = 1)
{
    return [seed](const ParamSet &p, const LiveParams &live) -> std::unique_ptr<Device> {
        return std::make_unique<sim::SimNic>(p, live, seed);
    };
}

inline ParamSet params(const Assignments &a)
{
    ParamSet ps;
    const Status st = ps.set(a);
    if (!st.ok()) qFatal("bad test parameters: %s", st.error.c_str());
    return ps;
}

// Runs an engine for `samples` intervals of `intervalMs` and returns every sample.
inline std::vector<std::shared_ptr<const Sample>> runFor(const ParamSet &ps, std::size_t samples,
                                                          std::int64_t intervalMs = 100)
{
    Engine engine(ps, simFactory(), EngineOptions{intervalMs * 1'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    engine.start();
    c->waitSamples(samples);
    engine.stop();
    return c->samples();
}

// Mean of a per-sample figure over samples [from, to).
template <class F>
double meanOf(const std::vector<std::shared_ptr<const Sample>> &s, std::size_t from, std::size_t to, F f)
{
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t k = from; k < to && k < s.size(); ++k, ++n) sum += f(*s[k]);
    return n ? sum / static_cast<double>(n) : 0.0;
}

} // namespace ringlab::test
