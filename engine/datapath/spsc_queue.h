// SPDX-License-Identifier: GPL-2.0-or-later
// Bounded single-producer single-consumer queue (the fifo hand-off). Indices are cached on
// each side so the common case touches no shared cache line.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace ringlab {

template <class T> class SpscQueue {
  public:
    explicit SpscQueue(std::uint32_t capacity)
    {
        std::uint32_t size = 1;
        while (size < capacity)
            size <<= 1;
        slots_.resize(size);
        mask_ = size - 1;
        capacity_ = capacity;
    }
    std::uint32_t capacity() const { return capacity_; }

    // Producer: enqueues up to n, returns how many fit.
    std::uint32_t push(const T *items, std::uint32_t n)
    {
        const std::uint32_t tail = tail_.load(std::memory_order_relaxed);
        std::uint32_t free = capacity_ - (tail - headCache_);
        if (free < n) {
            headCache_ = head_.load(std::memory_order_acquire);
            free = capacity_ - (tail - headCache_);
        }
        const std::uint32_t k = n < free ? n : free;
        for (std::uint32_t j = 0; j < k; ++j)
            slots_[(tail + j) & mask_] = items[j];
        tail_.store(tail + k, std::memory_order_release);
        return k;
    }

    // Consumer: dequeues up to n.
    std::uint32_t pop(T *items, std::uint32_t n)
    {
        const std::uint32_t head = head_.load(std::memory_order_relaxed);
        std::uint32_t avail = tailCache_ - head;
        if (avail < n) {
            tailCache_ = tail_.load(std::memory_order_acquire);
            avail = tailCache_ - head;
        }
        const std::uint32_t k = n < avail ? n : avail;
        for (std::uint32_t j = 0; j < k; ++j)
            items[j] = slots_[(head + j) & mask_];
        head_.store(head + k, std::memory_order_release);
        return k;
    }

    std::uint32_t size() const
    {
        return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_acquire);
    }
    bool empty() const
    {
        return tail_.load(std::memory_order_acquire) == head_.load(std::memory_order_acquire);
    }

  private:
    std::vector<T> slots_;
    std::uint32_t mask_ = 0;
    std::uint32_t capacity_ = 0;
    alignas(64) std::atomic<std::uint32_t> tail_{0};
    std::uint32_t headCache_ = 0; // producer's copy
    alignas(64) std::atomic<std::uint32_t> head_{0};
    std::uint32_t tailCache_ = 0; // consumer's copy
};

} // namespace ringlab
