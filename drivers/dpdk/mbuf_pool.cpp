// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/mbuf_pool.h"

#include <rte_errno.h>

#include <new>
#include <stdexcept>

#include "drivers/dpdk/eal.h"

namespace ringlab::dpdk {

namespace {
constexpr std::uint32_t kBurst = 64;
constexpr unsigned kPrivSize = RTE_ALIGN(sizeof(Buffer), RTE_MBUF_PRIV_ALIGN);
static_assert(RTE_PKTMBUF_HEADROOM >= 64, "processing writes a header ahead of the frame");
} // namespace

MbufPool::MbufPool(const std::string &name, std::uint32_t buffers) : size_(buffers)
{
    // The per-lcore cache is at most 512 and must divide into the pool (DPDK's rule of thumb:
    // size / cache > 1.5).
    unsigned cache = 256;
    while (cache > 0 && buffers < cache * 3 / 2)
        cache /= 2;
    mp_ = rte_pktmbuf_pool_create(name.c_str(), buffers, cache, kPrivSize,
                                  RTE_MBUF_DEFAULT_BUF_SIZE, static_cast<int>(rte_socket_id()));
    if (!mp_)
        throw std::runtime_error("mbuf pool " + name + " of " + std::to_string(buffers) +
                                 " buffers: " + rte_strerror(rte_errno) +
                                 " (DPDK memory is -m 512 MB without hugepages; lower "
                                 "rx.pool_buffers or give more with --eal \"-m 1024\")");
    rte_mempool_obj_iter(
        mp_,
        [](rte_mempool *, void *, void *obj, unsigned index) {
            auto *m = static_cast<rte_mbuf *>(obj);
            Buffer *b = new (bufferOf(m)) Buffer();
            b->index = index;
            b->room = m->buf_len - RTE_PKTMBUF_HEADROOM;
        },
        nullptr);
}

MbufPool::~MbufPool()
{
    rte_mempool_free(mp_);
}

std::uint32_t MbufPool::available() const
{
    return rte_mempool_avail_count(mp_);
}

std::uint32_t MbufPool::alloc(Buffer **out, std::uint32_t n)
{
    Eal::registerThread();
    rte_mbuf *m[kBurst];
    std::uint32_t done = 0;
    while (done < n) {
        const std::uint32_t want = n - done < kBurst ? n - done : kBurst;
        if (rte_pktmbuf_alloc_bulk(mp_, m, want) != 0) break; // all or nothing, as DPDK does
        for (std::uint32_t k = 0; k < want; ++k)
            out[done + k] = wrap(m[k], 0);
        done += want;
    }
    return done;
}

void MbufPool::release(Buffer *const *bufs, std::uint32_t n)
{
    Eal::registerThread();
    rte_mbuf *m[kBurst];
    for (std::uint32_t done = 0; done < n;) {
        const std::uint32_t k = n - done < kBurst ? n - done : kBurst;
        for (std::uint32_t j = 0; j < k; ++j)
            m[j] = mbufOf(bufs[done + j]);
        rte_pktmbuf_free_bulk(m, k);
        done += k;
    }
}

} // namespace ringlab::dpdk
