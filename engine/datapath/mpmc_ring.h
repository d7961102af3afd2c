// SPDX-License-Identifier: GPL-2.0-or-later
// Bounded multi-producer multi-consumer ring with bulk operations, after DPDK's rte_ring:
// one compare-and-swap reserves a whole bulk, so the cost is per bulk, not per element.
#pragma once

#include <atomic>
#include <cstdint>
#include <sched.h>
#include <vector>

#include "engine/datapath/clock.h"

namespace ringlab {

template <class T> class MpmcRing {
  public:
    explicit MpmcRing(std::uint32_t capacity)
    {
        std::uint32_t size = 1;
        while (size < capacity)
            size <<= 1;
        mask_ = size - 1;
        capacity_ = capacity;
        slots_.resize(size);
    }
    std::uint32_t capacity() const { return capacity_; }
    std::uint32_t count() const
    {
        return prodTail_.load(std::memory_order_acquire) -
               consTail_.load(std::memory_order_acquire);
    }

    // All n or nothing. Returns true when enqueued.
    bool enqueueBulk(const T *items, std::uint32_t n)
    {
        std::uint32_t head = prodHead_.load(std::memory_order_relaxed);
        for (;;) {
            const std::uint32_t free = capacity_ + consTail_.load(std::memory_order_acquire) - head;
            if (n > free) return false;
            if (prodHead_.compare_exchange_weak(head, head + n, std::memory_order_acq_rel,
                                                std::memory_order_relaxed))
                break;
        }
        for (std::uint32_t k = 0; k < n; ++k)
            slots_[(head + k) & mask_] = items[k];
        publish(prodTail_, head, head + n);
        return true;
    }

    // Up to n; returns how many were taken.
    std::uint32_t dequeueBurst(T *items, std::uint32_t n)
    {
        std::uint32_t head = consHead_.load(std::memory_order_relaxed);
        std::uint32_t take = 0;
        for (;;) {
            const std::uint32_t avail = prodTail_.load(std::memory_order_acquire) - head;
            take = n < avail ? n : avail;
            if (take == 0) return 0;
            if (consHead_.compare_exchange_weak(head, head + take, std::memory_order_acq_rel,
                                                std::memory_order_relaxed))
                break;
        }
        for (std::uint32_t k = 0; k < take; ++k)
            items[k] = slots_[(head + k) & mask_];
        publish(consTail_, head, head + take);
        return take;
    }

  private:
    // Tails move in reservation order: wait for earlier reservations to finish first.
    static void publish(std::atomic<std::uint32_t> &tail, std::uint32_t from, std::uint32_t to)
    {
        int spins = 0;
        // Acquire: the earlier reserver's element writes must be visible to whoever acquires ours.
        while (tail.load(std::memory_order_acquire) != from) {
            if (++spins < 64)
                cpuRelax();
            else
                sched_yield(); // the earlier reserver was preempted
        }
        tail.store(to, std::memory_order_release);
    }

    std::vector<T> slots_;
    std::uint32_t mask_ = 0;
    std::uint32_t capacity_ = 0;
    alignas(64) std::atomic<std::uint32_t> prodHead_{0};
    std::atomic<std::uint32_t> prodTail_{0};
    alignas(64) std::atomic<std::uint32_t> consHead_{0};
    std::atomic<std::uint32_t> consTail_{0};
};

} // namespace ringlab
