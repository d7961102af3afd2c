// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/engine.h"

#include <algorithm>
#include <stdexcept>

#include "engine/datapath/clock.h"
#include "engine/datapath/thread_placement.h"

namespace ringlab {

Engine::Engine(ParamSet initial, DeviceFactory factory, EngineOptions opts)
    : params_(initial), live_(initial), opts_(opts), device_(factory(initial, live_)),
      stress_(live_, threads_), control_(threads_.counterBlock("control"))
{
}

Status Engine::create(ParamSet initial, const DeviceFactory &factory, EngineOptions opts,
                      std::unique_ptr<Engine> &out)
{
    try {
        out = std::make_unique<Engine>(std::move(initial), factory, opts);
        return Status::success();
    } catch (const std::exception &e) { // the device's factory, or memory
        return Status::failure(e.what());
    }
}

Engine::~Engine()
{
    stop();
    for (auto &q : detachSubscribers())
        q->close();
}

bool Engine::running() const
{
    return running_.load(std::memory_order_acquire);
}

std::int64_t Engine::lastPollPassNs() const
{
    std::int64_t last = 0;
    for (const auto &e : threads_.entries())
        if (e->measuresGaps.load(std::memory_order_relaxed))
            last = std::max(last, e->lastPollNs.load(std::memory_order_relaxed));
    return last;
}

ParamSet Engine::params() const
{
    std::lock_guard lock(controlMutex_);
    return params_;
}

DeviceInfo Engine::deviceInfo() const
{
    return device_->info();
}

Status Engine::checkDevice() const
{
    std::lock_guard lock(controlMutex_);
    return device_->check(params_);
}

std::vector<TunableSupport> Engine::deviceSupport() const
{
    return device_->support();
}

double Engine::sinceStart() const
{
    return startNs_ ? static_cast<double>(nowNs() - startNs_) / 1e9 : 0.0;
}

void Engine::subscribe(std::shared_ptr<Subscriber> s)
{
    const std::string name = s->queueName();
    const std::size_t capacity = s->queueCapacity();
    auto q = std::make_shared<QueuedSubscriber>(std::move(s), name, capacity);
    std::lock_guard lock(subscribersMutex_);
    subscribers_.push_back({std::move(q)});
}

void Engine::unsubscribe(const std::shared_ptr<Subscriber> &s)
{
    std::shared_ptr<QueuedSubscriber> gone;
    {
        std::lock_guard lock(subscribersMutex_);
        const auto it = std::find_if(subscribers_.begin(), subscribers_.end(),
                                     [&](const Subscription &x) { return x.queue->inner() == s; });
        if (it == subscribers_.end()) return;
        gone = std::move(it->queue);
        subscribers_.erase(it);
    }
    gone->close(); // outside the lock: its consumer may take its time
}

std::vector<std::shared_ptr<QueuedSubscriber>> Engine::detachSubscribers()
{
    std::vector<std::shared_ptr<QueuedSubscriber>> out;
    std::lock_guard lock(subscribersMutex_);
    for (auto &x : subscribers_)
        out.push_back(std::move(x.queue));
    subscribers_.clear();
    return out;
}

void Engine::flush()
{
    std::vector<std::shared_ptr<QueuedSubscriber>> queues;
    {
        std::lock_guard lock(subscribersMutex_);
        for (const auto &x : subscribers_)
            queues.push_back(x.queue);
    }
    for (const auto &q : queues)
        q->flush();
}

void Engine::publishEvent(const Event &e)
{
    std::lock_guard lock(subscribersMutex_);
    for (auto &x : subscribers_)
        x.queue->onEvent(e);
}

void Engine::publishSample(const std::shared_ptr<const Sample> &s)
{
    std::lock_guard lock(subscribersMutex_);
    for (auto &x : subscribers_)
        x.queue->onSample(s);
}

// Says which subscribers lost samples or events to a full queue: once each has caught up
// (its queue half empty, so that the warning reaches it too), or everything at the end.
void Engine::reportDrops(bool all)
{
    std::vector<std::string> warnings;
    {
        std::lock_guard lock(subscribersMutex_);
        for (auto &x : subscribers_) {
            const std::uint64_t samples = x.queue->droppedSamples() - x.reportedSamples;
            const std::uint64_t events = x.queue->droppedEvents() - x.reportedEvents;
            if (samples + events == 0 || (!all && x.queue->queued() > x.queue->capacity() / 2))
                continue;
            x.reportedSamples += samples;
            x.reportedEvents += events;
            warnings.push_back(x.queue->name() + " fell behind: " + std::to_string(samples) +
                               " samples and " + std::to_string(events) +
                               " events were not delivered to it (its queue holds " +
                               std::to_string(x.queue->capacity()) + ")");
        }
    }
    for (const auto &w : warnings)
        warn("engine", w);
}

void Engine::warn(const std::string &source, const std::string &message)
{
    publishEvent({sinceStart(), "warning", {}, {}, {}, source, message});
}

Status Engine::start()
{
    std::lock_guard lock(controlMutex_);
    if (running()) return Status::success();
    if (auto st = device_->check(params_); !st.ok()) return st;
    if (auto st = device_->apply(params_); !st.ok()) return st;
    if (auto st = checkPlacement(placementOf(params_)); !st.ok()) return st;
    threads_.setPlacement(placementOf(params_)); // each thread takes it as it starts
    {
        std::lock_guard dpLock(datapathMutex_);
        if (auto st = rebuild(params_); !st.ok()) return st;
    }
    // Time 0 is when the datapath runs, not when its building began: a large buffer pool
    // takes a while to fault in (more under ASan), and a run of 2 s is 20 samples.
    startNs_ = nowNs();
    running_.store(true, std::memory_order_release);
    publishEvent({sinceStart(), "start", {}, {}, {}, {}, "device " + device_->info().name});
    const ParamSet defaults;
    for (const auto &sup : device_->support())
        if (sup.support == Support::Ignored && !(params_.value(sup.id) == defaults.value(sup.id)))
            publishEvent({sinceStart(),
                          "warning",
                          std::string(info(sup.id).name),
                          {},
                          {},
                          "device",
                          std::string(info(sup.id).name) + " has no effect on " +
                              device_->info().name + ": " + sup.reason});
    try { // threads that cannot be had: the run ends as it began, with a stop event
        stress_.resize(static_cast<int>(params_.integer(TunableId::StressThreads)));
        sampler_ = EngineThread(threads_, "sampler",
                                [this](std::stop_token st, ThreadEntry &) { samplerThread(st); });
    } catch (const std::exception &e) {
        stopLocked();
        return Status::failure(std::string("cannot start the engine's threads: ") + e.what());
    }
    if (auto failed = threads_.takePlacementFailure(); !failed.empty()) warn("engine", failed);
    return Status::success();
}

void Engine::stop()
{
    halt();
    flush();
}

void Engine::halt()
{
    std::lock_guard lock(controlMutex_);
    stopLocked();
}

void Engine::stopLocked()
{
    if (!running()) return;
    // Where the threads ran, read from outside while they still run (RunService records it).
    placement_ = captureThreads(threadIds());
    // The device's own traffic ends first and what it sent is answered while the datapath
    // still runs (the sampler goes on meanwhile: no datapath lock is held).
    device_->quiesce();
    {
        std::lock_guard dpLock(datapathMutex_);
        if (datapath_) datapath_->stop();
        device_->linkDown();
    }
    stress_.resize(0);
    // The sampler takes a last, partial sample when it stops.
    sampler_.requestStop();
    samplerWaiter_.wake();
    sampler_.stop();
    running_.store(false, std::memory_order_release);
    reportDrops(true);
    publishEvent({sinceStart(), "stop", {}, {}, {}, {}, {}});
    std::lock_guard dpLock(datapathMutex_);
    datapath_.reset();
}

// The datapath's parts throw from their constructors when memory, a timer or a thread
// cannot be had (RAII: a part either holds its resource or does not exist); this is where
// that becomes a Status.
Status Engine::rebuild(const ParamSet &ps)
{
    try {
        device_->reconfigure(ps);
        datapath_ = std::make_unique<Datapath>(ps, live_, *device_, threads_);
        datapath_->start(control_->counters);
        return Status::success();
    } catch (const std::exception &e) {
        datapath_.reset();
        device_->linkDown(); // a datapath that failed to start may have brought it up
        return Status::failure(e.what());
    }
}

DatapathReading Engine::read()
{
    std::lock_guard lock(datapathMutex_);
    DatapathReading r;
    r.latency = retiredLatency_;
    if (datapath_) {
        r.latency.add(datapath_->latency());
        r.poolFree = datapath_->pool().available();
        r.handoffDepth = datapath_->handoffDepth();
        r.rxPosted = device_->rxPosted();
        r.txPending = device_->txPending();
        r.rxModerationUs = datapath_->rxModerationUs();
        r.txCoalesceUs = datapath_->txCoalesceUs();
    }
    device_->read(r.device);
    for (auto &e : r.device.events)
        deviceEvents_.push_back(std::move(e));
    r.device.events.clear();
    return r;
}

void Engine::samplerThread(std::stop_token st)
{
    setTimerSlackNs(1000);
    Sampler sampler(
        threads_, [this] { return read(); }, startNs_, opts_.intervalNs);
    std::int64_t next = startNs_ + opts_.intervalNs;
    for (;;) {
        const bool stopping = st.stop_requested();
        if (!stopping) samplerWaiter_.waitUntil(next);
        const std::int64_t now = nowNs();
        if (st.stop_requested()) {
            // Final partial interval, if it is long enough to mean anything (or when asked
            // for: its totals are exact, taken after the datapath has stopped).
            if (opts_.finalSample || now - (next - opts_.intervalNs) >= opts_.intervalNs / 10) {
                publishSample(sampler.take(now));
            }
            publishDeviceEvents();
            return;
        }
        if (now < next) continue;
        publishSample(sampler.take(now));
        publishDeviceEvents();
        reportDrops(false);
        next += opts_.intervalNs;
        if (next <= now) next = now + opts_.intervalNs; // fell behind: skip, never burst
    }
}

void Engine::publishDeviceEvents()
{
    std::vector<std::string> events;
    {
        std::lock_guard lock(datapathMutex_);
        events.swap(deviceEvents_);
    }
    for (const auto &msg : events)
        publishEvent({sinceStart(), "device", {}, {}, {}, device_->info().name, msg});
}

std::vector<ThreadId> Engine::threadIds() const
{
    std::vector<ThreadId> out;
    for (const auto &e : threads_.entries())
        if (!e->countersOnly && e->tid > 0 && !e->exited.load(std::memory_order_acquire)) {
            ThreadId id{e->name, e->tid, {}};
            for (std::size_t c = 0; c < e->cpuNsOn.size(); ++c)
                if (const auto ns = e->cpuNsOn[c].load(std::memory_order_relaxed); ns > 0) {
                    id.cpuNsOn.resize(c + 1, 0);
                    id.cpuNsOn[c] = ns;
                }
            out.push_back(std::move(id));
        }
    return out;
}

Environment Engine::threadPlacement() const
{
    std::lock_guard lock(controlMutex_);
    return placement_;
}

Environment Engine::portFacts() const
{
    std::lock_guard lock(controlMutex_);
    return device_->portFacts();
}

void Engine::mark(const std::string &label)
{
    publishEvent({sinceStart(), "mark", {}, {}, {}, {}, label});
}

// Live placement: checked, then every running thread moved; all or nothing.
Status Engine::moveThreads(const Placement &from, const Placement &to)
{
    if (to == from) return Status::success();
    if (auto st = checkPlacement(to); !st.ok()) return st;
    if (!running()) return Status::success(); // start() places the threads it starts
    if (auto st = threads_.place(to); !st.ok()) {
        (void)threads_.place(from);
        return st;
    }
    return Status::success();
}

Status Engine::apply(const Assignments &assignments, const std::string &source)
{
    std::lock_guard lock(controlMutex_);
    const ParamSet previous = params_;
    ParamSet next = params_;
    std::vector<Change> changes;
    if (auto st = next.set(assignments, &changes); !st.ok()) return st;
    if (auto st = device_->check(next); !st.ok()) return st;
    if (auto st = moveThreads(placementOf(previous), placementOf(next)); !st.ok()) return st;
    if (auto st = device_->apply(next); !st.ok()) {
        (void)moveThreads(placementOf(next), placementOf(previous));
        return st;
    }
    params_ = next;
    live_.publish(params_);
    const double when = sinceStart(); // one time for the whole batch: one segment boundary
    const bool restart = announceChanges(changes, source, when);
    warnIgnored(changes, when);
    if (!running()) return Status::success();
    if (restart) {
        if (auto st = restartDatapath(previous, changes, source); !st.ok()) return st;
    } else {
        std::lock_guard dpLock(datapathMutex_);
        if (datapath_) datapath_->nudge();
    }
    stress_.resize(static_cast<int>(params_.integer(TunableId::StressThreads)));
    return Status::success();
}

bool Engine::announceChanges(const std::vector<Change> &changes, const std::string &source,
                             double when)
{
    bool restart = false;
    for (const auto &ch : changes) {
        const auto &t = info(ch.id);
        restart |= t.apply == Apply::Restart || device_->needsRestart(ch.id);
        publishEvent({when,
                      "param",
                      std::string(t.name),
                      ParamSet::format(t, ch.before),
                      ParamSet::format(t, ch.after),
                      source,
                      {}});
    }
    return restart;
}

void Engine::warnIgnored(const std::vector<Change> &changes, double when)
{
    const auto support = device_->support();
    for (const auto &ch : changes)
        for (const auto &sup : support)
            if (sup.id == ch.id && sup.support == Support::Ignored)
                publishEvent({when,
                              "warning",
                              std::string(info(ch.id).name),
                              {},
                              {},
                              "device",
                              std::string(info(ch.id).name) + " has no effect on " +
                                  device_->info().name + ": " + sup.reason});
}

Status Engine::restartDatapath(const ParamSet &previous, const std::vector<Change> &changes,
                               const std::string &source)
{
    const std::int64_t t0 = nowNs();
    std::string failure, lost;
    rebuildDatapath(previous, failure, lost);
    if (!lost.empty()) {
        // Neither could be built: there is no datapath to run on, and the run ends here.
        const std::string why = "restart failed: " + failure +
                                "; the previous settings could not be rebuilt either: " + lost +
                                "; the run stopped";
        publishEvent({sinceStart(), "warning", {}, {}, {}, source, why});
        stopLocked();
        flush(); // what the run published reaches its subscribers before the caller reads
        return Status{why};
    }
    if (!failure.empty()) {
        // The changes announced above never ran: record them undone, so segments stay true.
        announceRollback(changes);
        publishEvent({sinceStart(), "warning", {}, {}, {}, source, "restart failed: " + failure});
        return Status{"restart failed: " + failure + "; previous settings restored"};
    }
    const double ms = static_cast<double>(nowNs() - t0) / 1e6;
    char msg[96];
    std::snprintf(msg, sizeof msg, "datapath quiesced, rebuilt and resumed in %.1f ms", ms);
    publishEvent({sinceStart(), "restart", {}, {}, {}, source, msg});
    return Status::success();
}

void Engine::rebuildDatapath(const ParamSet &previous, std::string &failure, std::string &lost)
{
    std::lock_guard dpLock(datapathMutex_);
    datapath_->stop();
    retiredLatency_.add(datapath_->latency());
    datapath_.reset();
    failure = rebuild(params_).error;
    if (!failure.empty()) {
        // The new settings could not be built: go back to the ones that ran, the device's
        // own (socket options, the host's NAPI settings) included.
        params_ = previous;
        live_.publish(params_);
        (void)threads_.place(placementOf(previous)); // checked when it was applied
        if (auto back = device_->apply(previous); !back.ok())
            failure += "; the device's settings could not be put back: " + back.error;
        if (auto again = rebuild(params_); !again.ok()) lost = again.error;
    }
}

void Engine::announceRollback(const std::vector<Change> &changes)
{
    const double back = sinceStart();
    for (const auto &ch : changes) {
        const auto &t = info(ch.id);
        publishEvent({back,
                      "param",
                      std::string(t.name),
                      ParamSet::format(t, ch.after),
                      ParamSet::format(t, ch.before),
                      "rollback",
                      {}});
    }
}

} // namespace ringlab
