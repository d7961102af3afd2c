// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/handoff.h"

#include "engine/datapath/spsc_queue.h"
#include "engine/datapath/waiter.h"

namespace ringlab {

static_assert(kHandoffModes[static_cast<int>(HandoffMode::Work)].name == "work" &&
                  std::size(kHandoffModes) == static_cast<std::size_t>(HandoffMode::Work) + 1,
              "kHandoffModes follows HandoffMode");
namespace {

class DirectHandoff final : public Handoff {
  public:
    explicit DirectHandoff(const HandoffDeps &d) : d_(d), proc_(d.live) {}
    void deliver(Buffer *const *bufs, std::uint32_t n, Counters &c) override
    {
        d_.tx.xmit(bufs, n, c, proc_.process(bufs, n));
    }

  private:
    HandoffDeps d_;
    Processor proc_;
};

class FifoHandoff final : public Handoff {
  public:
    explicit FifoHandoff(const HandoffDeps &d) : d_(d), queue_(d.queueLen) {}
    ~FifoHandoff() override { stop(); }
    void start() override
    {
        thread_ = EngineThread(d_.reg, "rx-fifo", [this](std::stop_token st, ThreadEntry &self) {
            Processor proc(d_.live);
            // handoff.batch at a time (Zephyr: one net_pkt per k_fifo_get). Small batches:
            // what waits is counted in the queue's depth, not in a batch already taken out.
            constexpr std::uint32_t kMaxBatch = 1024; // the tunable's maximum
            Buffer *bufs[kMaxBatch];
            while (!st.stop_requested()) {
                const auto batch =
                    static_cast<std::uint32_t>(d_.live.integer(TunableId::HandoffBatch));
                const std::uint32_t k = queue_.pop(bufs, batch < kMaxBatch ? batch : kMaxBatch);
                if (k == 0) {
                    waiter_.waitUntil(-1);
                    continue;
                }
                self.counters.add(CounterId::HandoffTakes);
                d_.tx.xmit(bufs, k, self.counters, proc.process(bufs, k));
            }
        });
    }
    void stop() override
    {
        thread_.requestStop();
        waiter_.wake();
        thread_.stop();
        Buffer *bufs[256];
        while (std::uint32_t k = queue_.pop(bufs, 256))
            d_.pool.release(bufs, k);
    }
    std::uint32_t depth() const override { return queue_.size(); }
    void deliver(Buffer *const *bufs, std::uint32_t n, Counters &c) override
    {
        const std::uint32_t k = queue_.push(bufs, n);
        if (k < n) {
            c.add(CounterId::HandoffFull, n - k);
            d_.pool.release(bufs + k, n - k);
        }
        waiter_.wake(); // a system call only when the consumer sleeps
    }

  private:
    HandoffDeps d_;
    SpscQueue<Buffer *> queue_;
    Waiter waiter_;
    EngineThread thread_;
};

class WorkHandoff final : public Handoff {
  public:
    // dedicated: a queue of its own with one worker (Zephyr's per-traffic-class RX queue);
    // shared: the shared work queue (kworker). Zephyr's queue also k_yield()s after each
    // item, which lets only threads of its priority run; sched_yield() here would hand the
    // CPU to every process on the machine, so the worker does not yield: the scheduler
    // shares the CPU between the engine's threads, as for the refill contexts.
    WorkHandoff(const HandoffDeps &d, WorkQueueKind kind)
        : d_(d),
          own_(kind == WorkQueueKind::Dedicated ? std::make_unique<WorkQueue>(d.reg, 1, "rx_q")
                                                : nullptr),
          wq_(own_ ? *own_ : d.wq)
    {
    }
    ~WorkHandoff() override { stop(); }
    void stop() override
    {
        if (own_) own_->stop();
    }
    void deliver(Buffer *const *bufs, std::uint32_t n, Counters &c) override
    {
        const std::uint64_t inFlight =
            queued_.load(std::memory_order_relaxed) - started_.load(std::memory_order_acquire);
        std::uint32_t room =
            inFlight >= d_.queueLen ? 0 : d_.queueLen - static_cast<std::uint32_t>(inFlight);
        for (std::uint32_t k = 0; k < n; ++k) {
            Buffer *b = bufs[k];
            if (room == 0) {
                c.add(CounterId::HandoffFull);
                d_.pool.release(&b, 1);
                continue;
            }
            --room;
            queued_.store(queued_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
            b->work.ctx = this;
            b->work.arg = b;
            b->work.fn = &WorkHandoff::run;
            wq_.queue(&b->work);
        }
    }
    std::uint32_t depth() const override
    {
        // started_ first: it never passes queued_, so the difference cannot wrap.
        const std::uint64_t started = started_.load(std::memory_order_acquire);
        return static_cast<std::uint32_t>(queued_.load(std::memory_order_acquire) - started);
    }

  private:
    static void run(WorkItem *w)
    {
        auto *self = static_cast<WorkHandoff *>(w->ctx);
        auto *b = static_cast<Buffer *>(w->arg);
        // The packet has left the queue once a worker has it: count it out before it is
        // transmitted, since from then on the buffer can be recycled at any moment.
        self->started_.fetch_add(1, std::memory_order_release);
        currentCounters().add(CounterId::HandoffTakes);
        thread_local std::unique_ptr<Processor> proc;
        if (!proc) proc = std::make_unique<Processor>(self->d_.live);
        self->d_.tx.xmit(&b, 1, currentCounters(), proc->process(&b, 1));
    }

    HandoffDeps d_;
    std::unique_ptr<WorkQueue> own_;
    WorkQueue &wq_;
    std::atomic<std::uint64_t> queued_{0};  // written by the poll thread only
    std::atomic<std::uint64_t> started_{0}; // by the workers
};

} // namespace

std::unique_ptr<Handoff> makeDirectHandoff(const HandoffDeps &d)
{
    return std::make_unique<DirectHandoff>(d);
}

std::unique_ptr<Handoff> makeFifoHandoff(const HandoffDeps &d)
{
    return std::make_unique<FifoHandoff>(d);
}

std::unique_ptr<Handoff> makeWorkHandoff(const HandoffDeps &d)
{
    return std::make_unique<WorkHandoff>(d, d.workQueue);
}

std::unique_ptr<Handoff> makeHandoff(HandoffMode mode, const HandoffDeps &deps)
{
    const auto k = static_cast<std::size_t>(mode);
    return k < std::size(kHandoffModes) ? kHandoffModes[k].make(deps) : nullptr;
}

} // namespace ringlab
