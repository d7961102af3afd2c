// SPDX-License-Identifier: GPL-2.0-or-later
// Hand-off from the poll context to processing:
//   direct - the poll thread processes and transmits itself;
//   fifo   - a bounded lock-free queue drained by a dedicated thread (Zephyr k_fifo);
//   work   - one work item per packet on a work queue (Zephyr k_work): the shared one, or a
//            dedicated queue per traffic class.
#pragma once

#include <memory>

#include "engine/buffer_source.h"
#include "engine/live_params.h"
#include "engine/processing.h"
#include "engine/thread_registry.h"
#include "engine/transmitter.h"
#include "engine/work_queue.h"

namespace ringlab {

class Handoff {
  public:
    virtual ~Handoff() = default;
    virtual void start() {}
    virtual void stop() {}
    // Poll context. Every buffer is either processed and transmitted, or dropped and freed.
    virtual void deliver(Buffer *const *bufs, std::uint32_t n, Counters &c) = 0;
    virtual std::uint32_t depth() const { return 0; }
};

struct HandoffDeps {
    const LiveParams &live;
    BufferSource &pool;
    Transmitter &tx;
    ThreadRegistry &reg;
    WorkQueue &wq;
    std::uint32_t queueLen;
    WorkQueueKind workQueue; // work mode: shared or a dedicated queue
};

std::unique_ptr<Handoff> makeHandoff(HandoffMode mode, const HandoffDeps &deps);

} // namespace ringlab
