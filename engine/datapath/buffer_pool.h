// SPDX-License-Identifier: GPL-2.0-or-later
// Fixed-size pool of preallocated packet buffers. Allocation and release are bulk operations
// on a lock-free ring; an allocation that finds the pool empty fails and is counted by the
// caller.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/datapath/buffer_source.h"
#include "engine/datapath/mpmc_ring.h"
#include "engine/datapath/packet.h"

namespace ringlab {

class BufferPool final : public BufferSource {
  public:
    static constexpr std::uint32_t kDataRoom = 9216; // fits a 9018-byte jumbo frame
    // Bytes ahead of every frame, for headers a driver prepends (ocelot's injection header).
    static constexpr std::uint32_t kHeadroom = 64;
    // What a buffer keeps in memory: the page its headroom is on (the frame's bytes are never
    // written by the simulated NIC, so the rest of its room is address space only).
    static constexpr std::uint64_t kResidentPerBuffer = 4096;

    explicit BufferPool(std::uint32_t buffers);
    ~BufferPool();
    BufferPool(const BufferPool &) = delete;
    BufferPool &operator=(const BufferPool &) = delete;

    std::uint32_t size() const override { return static_cast<std::uint32_t>(buffers_.size()); }
    std::uint32_t available() const override { return free_.count(); }
    std::uint32_t alloc(Buffer **out, std::uint32_t n) override
    {
        return free_.dequeueBurst(out, n);
    }
    void release(Buffer *const *bufs, std::uint32_t n) override;

  private:
    // `buffers`, or throws when their resident pages would take more than half of the memory
    // this machine has available.
    static std::uint32_t affordable(std::uint32_t buffers);

    std::uint8_t *memory_ = nullptr;
    std::size_t bytes_ = 0;
    std::vector<Buffer> buffers_;
    MpmcRing<Buffer *> free_;
};

} // namespace ringlab
