// SPDX-License-Identifier: GPL-2.0-or-later
// One build of the datapath for a set of restart tunables: pool, work queue, TX side,
// hand-off, refill context and poll loop, started and stopped as a unit. A restart tunable
// change tears one down and builds the next.
#pragma once

#include <memory>

#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/device.h"
#include "engine/datapath/handoff.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/poll_loop.h"
#include "engine/datapath/refill.h"
#include "engine/datapath/thread_registry.h"
#include "engine/datapath/transmitter.h"
#include "engine/datapath/work_queue.h"

namespace ringlab {

class Datapath {
  public:
    Datapath(const ParamSet &params, const LiveParams &live, Device &dev, ThreadRegistry &reg);
    ~Datapath();
    Datapath(const Datapath &) = delete;
    Datapath &operator=(const Datapath &) = delete;

    // `control`: the counter block for work the calling thread does (priming the RX ring).
    void start(Counters &control);
    // Quiesce: stop every thread, then hand every buffer back to the pool.
    void stop();
    void nudge() { poll_.nudge(); }

    // The latency of every frame completed: the staged path's (the transmitter's) and the
    // direct pass's (the poll loop's), the sampling the one in force.
    LatencyStats::Snapshot latency() const;
    const BufferSource &pool() const { return pool_; }
    std::uint32_t handoffDepth() const { return handoff_->depth(); }
    std::uint32_t rxModerationUs() const { return poll_.moderationUs(); }
    std::uint32_t txCoalesceUs() const { return tx_.coalesceUs(); }
    std::size_t workQueueDepth() const { return wq_.depth(); }

  private:
    void housekeeping();
    static BufferSource &sourceFor(Device &dev, const ParamSet &params,
                                   std::unique_ptr<BufferPool> &own);

    const LiveParams &live_;
    Device &dev_;
    std::unique_ptr<BufferPool> ownPool_; // when the device supplies no buffers of its own
    BufferSource &pool_;
    WorkQueue wq_;
    Transmitter tx_;
    std::unique_ptr<Handoff> handoff_;
    std::unique_ptr<Refiller> refill_;
    PollLoop poll_;
    WorkItem housekeeping_;
    std::atomic<bool> running_{false};
    Counters *control_ = nullptr; // the control thread's block, from start()
};

} // namespace ringlab
