// SPDX-License-Identifier: GPL-2.0-or-later
// The engine facade: owns the device, the datapath and the sampler; starts from a parameter
// set, applies changes while running (live at once, restart ones by quiesce, rebuild,
// resume), stops cleanly, and delivers Samples and Events to any number of subscribers.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/datapath/datapath.h"
#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/sample.h"
#include "engine/datapath/sampler.h"
#include "engine/datapath/stress.h"
#include "engine/datapath/thread_registry.h"
#include "engine/datapath/waiter.h"

namespace ringlab {

using DeviceFactory = std::function<std::unique_ptr<Device>(const ParamSet &, const LiveParams &)>;

struct EngineOptions {
    std::int64_t intervalNs = 100'000'000;
    // Always end with a sample taken after the datapath stopped, however short its interval
    // (exact totals; its rates may be diluted). Default: only when it covers >= a tenth of an
    // interval.
    bool finalSample = false;
};

class Engine {
  public:
    // Takes its device from `factory`, which throws when the device cannot be had (an EAL
    // that refuses its arguments, a port that is not there); create() reports that as a
    // Status, and is what programs call.
    Engine(ParamSet initial, DeviceFactory factory, EngineOptions opts = {});
    [[nodiscard]] static Status create(ParamSet initial, const DeviceFactory &factory,
                                       EngineOptions opts, std::unique_ptr<Engine> &out);
    ~Engine();
    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;

    // Builds the datapath on the device and starts it and the sampler. Fails, leaving the
    // engine stopped, when the device refuses the parameters or the datapath's memory,
    // timers or threads cannot be had (the buffer pool's refusal names its size).
    [[nodiscard]] Status start();
    void stop();
    bool running() const;

    // Validates through the registry, then applies. A rejected change leaves every value as
    // it was; the returned message names the tunable, the value and what is allowed.
    Status apply(const Assignments &assignments, const std::string &source);
    ParamSet params() const;
    // When a poll loop last began a pass (nowNs(); 0: none yet): a pass that begins after a
    // change was published reads it (bench/control_latency).
    std::int64_t lastPollPassNs() const;
    DeviceInfo deviceInfo() const;
    // Whether the device takes the current parameters (before start()).
    Status checkDevice() const;
    std::vector<TunableSupport> deviceSupport() const;
    void mark(const std::string &label);

    void subscribe(std::shared_ptr<Subscriber> s);
    void unsubscribe(const std::shared_ptr<Subscriber> &s);

  private:
    void samplerThread(std::stop_token st);
    void publishEvent(const Event &e);
    void publishDeviceEvents();
    DatapathReading read();
    // Builds and starts the datapath for `ps` (datapathMutex_ held); the error, or empty.
    Status rebuild(const ParamSet &ps);
    void stopLocked(); // controlMutex_ held
    double sinceStart() const;

    mutable std::mutex controlMutex_; // serialises start/stop/apply
    ParamSet params_;
    LiveParams live_;
    EngineOptions opts_;
    ThreadRegistry threads_;
    std::unique_ptr<Device> device_;
    StressPool stress_;
    std::shared_ptr<ThreadEntry> control_; // counters of work done under controlMutex_

    std::mutex datapathMutex_; // datapath_ and retired_ against the sampler
    std::unique_ptr<Datapath> datapath_;
    LatencyStats::Snapshot retiredLatency_;
    std::vector<std::string> deviceEvents_; // from the device's readings, to publish

    std::mutex subscribersMutex_;
    std::vector<std::shared_ptr<Subscriber>> subscribers_;

    std::int64_t startNs_ = 0;
    std::atomic<bool> running_{false};
    Waiter samplerWaiter_;
    EngineThread sampler_;
};

} // namespace ringlab
