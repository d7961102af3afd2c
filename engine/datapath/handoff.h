// SPDX-License-Identifier: GPL-2.0-or-later
// Hand-off from the poll context to processing (kHandoffModes).
#pragma once

#include <memory>

#include "engine/datapath/buffer_source.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/processing.h"
#include "engine/datapath/strategy.h"
#include "engine/datapath/thread_registry.h"
#include "engine/datapath/transmitter.h"
#include "engine/datapath/work_queue.h"

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

using MakeHandoff = std::unique_ptr<Handoff> (*)(const HandoffDeps &);
std::unique_ptr<Handoff> makeDirectHandoff(const HandoffDeps &d);
std::unique_ptr<Handoff> makeFifoHandoff(const HandoffDeps &d);
std::unique_ptr<Handoff> makeWorkHandoff(const HandoffDeps &d);

// handoff.mode's values, in HandoffMode's order.
inline constexpr Strategy<MakeHandoff> kHandoffModes[] = {
    {"direct", "the poll thread processes them itself", &makeDirectHandoff},
    {"fifo", "a bounded lock-free queue drained by a dedicated thread (Zephyr k_fifo)",
     &makeFifoHandoff},
    {"work",
     "one work item per packet on the shared work queue, or a dedicated one (Zephyr k_work)",
     &makeWorkHandoff},
};

std::unique_ptr<Handoff> makeHandoff(HandoffMode mode, const HandoffDeps &deps);

} // namespace ringlab
