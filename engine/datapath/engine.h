// SPDX-License-Identifier: GPL-2.0-or-later
// The engine facade: owns the device, the datapath and the sampler; starts from a parameter
// set, applies changes while running (live at once, restart ones by quiesce, rebuild,
// resume), stops cleanly, and delivers Samples and Events to any number of subscribers.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/common/environment_capture.h"
#include "engine/datapath/datapath.h"
#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/queued_subscriber.h"
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
    // Stops the run (a last sample, then the stop event) and waits until every subscriber has
    // been handed what was published, however long a slow consumer takes.
    void stop();
    // Stops the run as stop() does, without waiting for the subscribers: RunService finishes
    // the recording first, then waits for the others (a stdout its reader left full).
    void halt();
    // Waits until every subscriber has been handed what was published so far.
    void flush();
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
    // The engine's live threads (not counter blocks), for their placement (captureThreads).
    std::vector<ThreadId> threadIds() const;
    // Their placement as the last run stopped (captured by the control thread just before
    // the datapath's threads end); empty before a stop.
    Environment threadPlacement() const;
    // The device's real ports (Device::portFacts), as they are now.
    Environment portFacts() const;
    // A warning event in the run, from `source` (the output closed, a consumer's trouble).
    void warn(const std::string &source, const std::string &message);

    // `s` behind a bounded queue of s->queueCapacity() with its own drain thread (the
    // threading contract is in sample.h's Subscriber and docs/architecture.md).
    void subscribe(std::shared_ptr<Subscriber> s);
    // Hands `s` what is queued for it, ends its drain thread and publishes no more to it.
    void unsubscribe(const std::shared_ptr<Subscriber> &s);
    // Every subscriber's queue, taken from the engine (which publishes no more to them) and
    // still draining: the caller closes them when it is ready to wait.
    std::vector<std::shared_ptr<QueuedSubscriber>> detachSubscribers();

  private:
    void samplerThread(std::stop_token st);
    void publishEvent(const Event &e);
    void publishSample(const std::shared_ptr<const Sample> &s);
    void reportDrops(bool all);
    void publishDeviceEvents();
    DatapathReading read();
    // Builds and starts the datapath for `ps` (datapathMutex_ held); the error, or empty.
    Status rebuild(const ParamSet &ps);
    void stopLocked();                                              // controlMutex_ held
    Status moveThreads(const Placement &from, const Placement &to); // controlMutex_ held
    // apply()'s parts, controlMutex_ held. Each change as a param event at `when`; true when
    // one needs a restart.
    bool announceChanges(const std::vector<Change> &changes, const std::string &source,
                         double when);
    // A warning for each change the device ignores.
    void warnIgnored(const std::vector<Change> &changes, double when);
    // Quiesces, rebuilds and resumes the datapath with params_; when that fails the previous
    // settings come back, and when they cannot be built either the run stops.
    Status restartDatapath(const ParamSet &previous, const std::vector<Change> &changes,
                           const std::string &source);
    // Stops the datapath and builds it with params_ (datapathMutex_ taken); `failure` says
    // why not, and `lost` why `previous`, restored then, could not be built either.
    void rebuildDatapath(const ParamSet &previous, std::string &failure, std::string &lost);
    // The changes announced but never run, recorded undone.
    void announceRollback(const std::vector<Change> &changes);
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

    // Held only to push to the queues (never while a consumer runs) and to change the list.
    // Lock order: controlMutex_ before datapathMutex_ or subscribersMutex_; those two never
    // nest.
    struct Subscription {
        std::shared_ptr<QueuedSubscriber> queue;
        std::uint64_t reportedSamples = 0, reportedEvents = 0; // drops told in warnings
    };
    std::mutex subscribersMutex_;
    std::vector<Subscription> subscribers_;

    Environment placement_; // at the last stop, under controlMutex_
    std::int64_t startNs_ = 0;
    std::atomic<bool> running_{false};
    Waiter samplerWaiter_;
    EngineThread sampler_;
};

} // namespace ringlab
