// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's buffers as DPDK mbufs: each mbuf of the port's mempool carries the engine's
// Buffer (timestamps, work item) in its private area, so a packet crosses the datapath with
// no copy and no lookup, and the PMD refills its RX ring from the same pool.
#pragma once

#include <rte_mbuf.h>

#include <memory>
#include <string>

#include "engine/datapath/buffer_source.h"
#include "engine/datapath/tunables.h"

namespace ringlab::dpdk {

inline Buffer *bufferOf(rte_mbuf *m)
{
    return static_cast<Buffer *>(rte_mbuf_to_priv(m));
}
inline rte_mbuf *mbufOf(Buffer *b)
{
    return reinterpret_cast<rte_mbuf *>(reinterpret_cast<std::uint8_t *>(b) - sizeof(rte_mbuf));
}
// Points the Buffer at the mbuf's frame (the PMD has just filled or the engine has built it).
inline Buffer *wrap(rte_mbuf *m, std::uint16_t port)
{
    Buffer *b = bufferOf(m);
    b->data = rte_pktmbuf_mtod(m, std::uint8_t *);
    b->len = rte_pktmbuf_data_len(m);
    b->port = port;
    b->probe = false;
    return b;
}

// Memory of a pool on transparent huge pages: the mapping, and the 2 MB-aligned range in it.
// Unmapped when destroyed, after the mempool on it.
struct HugeArea {
    HugeArea(void *m, std::size_t ml, char *b, std::size_t l)
        : mapping(m), mappingLen(ml), base(b), len(l)
    {
    }
    ~HugeArea();
    HugeArea(const HugeArea &) = delete;
    HugeArea &operator=(const HugeArea &) = delete;
    void *mapping;
    std::size_t mappingLen;
    char *base;
    std::size_t len;
};

class MbufPool final : public BufferSource {
  public:
    // Throws std::runtime_error naming the pool and DPDK's reason. `memory` (rx.pool_memory)
    // counts only without hugepages: with them the pool is the EAL's, in DPDK's layout.
    MbufPool(const std::string &name, std::uint32_t buffers, PoolMemory memory);
    ~MbufPool() override;
    MbufPool(const MbufPool &) = delete;
    MbufPool &operator=(const MbufPool &) = delete;

    rte_mempool *mempool() const { return mp_; }
    // Whether its mbufs sit on huge pages: its own advised memory as the kernel backs it, or
    // the EAL's hugepages.
    bool onHugePages() const { return onHugePages_; }
    // Whether its mbufs are packed back to back (rx.pool_memory thp or eal without hugepages)
    // rather than each within a 4 KB page of its own (eal_paged, or a PCI port's pool).
    bool packed() const { return packed_; }
    // Its size and memory, and how much of that the kernel backs with huge pages.
    std::string describe() const;
    std::uint32_t size() const override { return size_; }
    std::uint32_t available() const override;
    std::uint32_t alloc(Buffer **out, std::uint32_t n) override;
    void release(Buffer *const *bufs, std::uint32_t n) override;

  private:
    rte_mempool *mp_ = nullptr;
    std::unique_ptr<HugeArea> area_; // the pool's own memory (rx.pool_memory thp)
    bool onHugePages_ = false;
    bool packed_ = false;
    std::uint32_t size_ = 0;
};

} // namespace ringlab::dpdk
