// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/datapath.h"

#include <algorithm>

#include "engine/datapath/clock.h"

namespace ringlab {

namespace {
// Every 10 ms a housekeeping item runs on the shared work queue, as periodic kernel work
// (vmstat, neighbour GC...) does, so refill and per-packet work share it with something.
constexpr std::int64_t kHousekeepingNs = 10'000'000;
} // namespace

Datapath::Datapath(const ParamSet &params, const LiveParams &live, Device &dev, ThreadRegistry &reg)
    : live_(live), dev_(dev), pool_(sourceFor(dev, params, ownPool_)),
      wq_(reg, static_cast<int>(params.integer(TunableId::WorkqueueThreads))),
      tx_(live, dev, pool_, reg,
          params.choice<HandoffMode>(TunableId::HandoffMode) == HandoffMode::Work &&
              params.choice<WorkQueueKind>(TunableId::HandoffWorkQueue) == WorkQueueKind::Shared &&
              params.integer(TunableId::WorkqueueThreads) > 1,
          params.choice<HandoffMode>(TunableId::HandoffMode) == HandoffMode::Direct),
      handoff_(makeHandoff(
          params.choice<HandoffMode>(TunableId::HandoffMode),
          HandoffDeps{live, pool_, tx_, reg, wq_,
                      static_cast<std::uint32_t>(params.integer(TunableId::HandoffQueueLen)),
                      params.choice<WorkQueueKind>(TunableId::HandoffWorkQueue)})),
      refill_(makeRefiller(params.choice<RefillContext>(TunableId::RefillContext),
                           {live, dev, pool_, reg, wq_})),
      poll_(live, dev, *refill_, *handoff_, tx_, reg,
            params.choice<HandoffMode>(TunableId::HandoffMode) == HandoffMode::Direct
                ? dev.directPass()
                : nullptr)
{
    housekeeping_.ctx = this;
    housekeeping_.fn = [](WorkItem *w) { static_cast<Datapath *>(w->ctx)->housekeeping(); };
}

LatencyStats::Snapshot Datapath::latency() const
{
    LatencyStats::Snapshot s = poll_.passLatency().snapshot();
    s.add(tx_.latency().snapshot());
    // Of the two recorders, one may have been idle since the rate changed.
    s.sampleEvery = static_cast<std::uint32_t>(
        std::max<std::int64_t>(1, live_.integer(TunableId::LatencySampleEvery)));
    return s;
}

BufferSource &Datapath::sourceFor(Device &dev, const ParamSet &params,
                                  std::unique_ptr<BufferPool> &own)
{
    if (BufferSource *s = dev.buffers()) return *s;
    own = std::make_unique<BufferPool>(
        static_cast<std::uint32_t>(params.integer(TunableId::RxPoolBuffers)));
    return *own;
}

Datapath::~Datapath()
{
    stop();
}

void Datapath::housekeeping()
{
    if (running_.load(std::memory_order_acquire)) wq_.queueDelayed(&housekeeping_, kHousekeepingNs);
}

void Datapath::start(Counters &control)
{
    control_ = &control;
    running_.store(true, std::memory_order_release);
    refill_->prime(control);
    dev_.linkUp(nowNs());
    handoff_->start();
    refill_->start();
    poll_.start();
    wq_.queueDelayed(&housekeeping_, kHousekeepingNs);
}

void Datapath::stop()
{
    if (!running_.exchange(false)) return;
    // Upstream first: nothing new enters while the stages behind drain.
    poll_.stop();
    refill_->stop();
    handoff_->stop();
    wq_.stop();
    tx_.stop();
    // What the device can still complete goes out (a DPDK TX buffer is flushed); the rest
    // is handed back below.
    if (control_) tx_.flush(*control_);
    Buffer *bufs[256];
    while (std::uint32_t k = dev_.rxDrain(bufs, 256))
        pool_.release(bufs, k);
    while (std::uint32_t k = dev_.txDrain(bufs, 256))
        pool_.release(bufs, k);
}

} // namespace ringlab
