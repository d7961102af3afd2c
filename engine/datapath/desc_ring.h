// SPDX-License-Identifier: GPL-2.0-or-later
// RX and TX descriptor rings shared by a driver and a device. Each index has one writer:
//   RX: tail (refill context posts buffers), hw (device fills), clean (poll harvests);
//   TX: tail (transmit), clean (TX clean). Completion times are written by the device when
//   the frame is posted (its wire time is known then).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "engine/datapath/packet.h"

namespace ringlab {

// Up to `max` buffers from `clean` to `tail`, in order; `clean` moves past them.
template <class Desc>
std::uint32_t drainDescriptors(const std::vector<Desc> &desc, std::uint32_t mask,
                               std::atomic<std::uint32_t> &clean,
                               const std::atomic<std::uint32_t> &tail, Buffer **out,
                               std::uint32_t max)
{
    std::uint32_t at = clean.load(std::memory_order_relaxed);
    const std::uint32_t end = tail.load(std::memory_order_acquire);
    std::uint32_t k = 0;
    while (at != end && k < max)
        out[k++] = desc[at++ & mask].buf;
    clean.store(at, std::memory_order_release);
    return k;
}

struct RxDesc {
    Buffer *buf = nullptr;
    std::int64_t postedNs = 0;
};

class RxRing {
  public:
    explicit RxRing(std::uint32_t size) : desc_(size), mask_(size - 1), size_(size) {}
    std::uint32_t size() const { return size_; }
    RxDesc &at(std::uint32_t i) { return desc_[i & mask_]; }

    // Driver side (refill context): descriptors it may post.
    std::uint32_t freeCount() const
    {
        return size_ -
               (tail_.load(std::memory_order_relaxed) - clean_.load(std::memory_order_acquire));
    }
    // Posted and not yet filled by the device.
    std::uint32_t postedCount() const
    {
        return tail_.load(std::memory_order_acquire) - hw_.load(std::memory_order_acquire);
    }
    std::uint32_t post(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs)
    {
        const std::uint32_t tail = tail_.load(std::memory_order_relaxed);
        const std::uint32_t free = size_ - (tail - clean_.load(std::memory_order_acquire));
        const std::uint32_t k = n < free ? n : free;
        for (std::uint32_t j = 0; j < k; ++j)
            desc_[(tail + j) & mask_] = RxDesc{bufs[j], nowNs};
        tail_.store(tail + k, std::memory_order_release); // the doorbell
        return k;
    }
    // Teardown: every buffer still posted or filled, handed back (the ring is then empty).
    std::uint32_t drain(Buffer **out, std::uint32_t max)
    {
        const std::uint32_t k = drainDescriptors(desc_, mask_, clean_, tail_, out, max);
        hw_.store(clean_.load(std::memory_order_relaxed), std::memory_order_release);
        return k;
    }
    std::atomic<std::uint32_t> tail_{0};
    std::atomic<std::uint32_t> hw_{0};
    std::atomic<std::uint32_t> clean_{0};

  private:
    std::vector<RxDesc> desc_;
    std::uint32_t mask_;
    std::uint32_t size_;
};

struct TxDesc {
    Buffer *buf = nullptr;
    std::int64_t doneNs = 0;
};

class TxRing {
  public:
    explicit TxRing(std::uint32_t size) : desc_(size), mask_(size - 1), size_(size) {}
    std::uint32_t size() const { return size_; }
    TxDesc &at(std::uint32_t i) { return desc_[i & mask_]; }
    std::uint32_t pending() const
    {
        return tail_.load(std::memory_order_acquire) - clean_.load(std::memory_order_acquire);
    }
    // Up to `max` posted buffers, in order, whether their transmit is done or not (teardown,
    // or a device whose transmits are done when posted).
    std::uint32_t drain(Buffer **out, std::uint32_t max)
    {
        return drainDescriptors(desc_, mask_, clean_, tail_, out, max);
    }
    std::atomic<std::uint32_t> tail_{0};
    std::atomic<std::uint32_t> clean_{0};

  private:
    std::vector<TxDesc> desc_;
    std::uint32_t mask_;
    std::uint32_t size_;
};

} // namespace ringlab
