// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/mbuf_pool.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf_pool_ops.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <new>
#include <stdexcept>

#include "drivers/dpdk/eal.h"

namespace ringlab::dpdk {

namespace {
constexpr std::uint32_t kBurst = 64;
constexpr unsigned kPrivSize = RTE_ALIGN(sizeof(Buffer), RTE_MBUF_PRIV_ALIGN);
static_assert(RTE_PKTMBUF_HEADROOM >= 64, "processing writes a header ahead of the frame");
constexpr std::size_t kHugePage = std::size_t{2} << 20;

// An empty pktmbuf pool whose objects are packed back to back, free to cross a page boundary
// (RTE_MEMPOOL_F_NO_IOVA_CONTIG: no IO address; only PMDs that copy frames with the CPU get
// such a pool, DpdkDevice::poolMayBePacked).
// Without the flag DPDK keeps each object within a page: on 4 KB pages every mbuf (2,496 bytes)
// then takes a page of its own and starts at the same offset in it, so a line of every frame
// falls in the same first-level cache set (8 or 12 ways) and each frame misses the first-level
// TLB; packed, 1.6 mbufs share a page, each at its own offset.
rte_mempool *createPackedEmpty(const std::string &name, std::uint32_t buffers, unsigned cache)
{
    rte_mempool *mp = rte_mempool_create_empty(
        name.c_str(), buffers, sizeof(rte_mbuf) + kPrivSize + RTE_MBUF_DEFAULT_BUF_SIZE, cache,
        sizeof(rte_pktmbuf_pool_private), static_cast<int>(rte_socket_id()),
        RTE_MEMPOOL_F_NO_IOVA_CONTIG);
    if (mp && rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), nullptr) != 0) {
        rte_mempool_free(mp);
        return nullptr;
    }
    return mp;
}

// What rte_pktmbuf_pool_create does once a pool is populated: its data room, then each mbuf.
rte_mempool *initPktmbufs(rte_mempool *mp)
{
    rte_pktmbuf_pool_private priv{};
    priv.mbuf_data_room_size = RTE_MBUF_DEFAULT_BUF_SIZE;
    priv.mbuf_priv_size = kPrivSize;
    rte_pktmbuf_pool_init(mp, &priv);
    rte_mempool_obj_iter(mp, rte_pktmbuf_init, nullptr);
    return mp;
}

// Packed on the EAL's memory (its 4 KB pages without hugepages). Null when DPDK refuses.
rte_mempool *createPackedOnEal(const std::string &name, std::uint32_t buffers, unsigned cache)
{
    rte_mempool *mp = createPackedEmpty(name, buffers, cache);
    if (!mp) return nullptr;
    if (const int rc = rte_mempool_populate_default(mp); rc < 0 || mp->populated_size < buffers) {
        rte_errno = rc < 0 ? -rc : ENOMEM;
        rte_mempool_free(mp);
        return nullptr;
    }
    return initPktmbufs(mp);
}

// Packed on anonymous memory the kernel may back with 2 MB transparent huge pages (THP's
// "madvise" mode, Debian's default): a 2 MB page holds 800 mbufs. (The EAL's memory without
// hugepages is a memfd whose offsets are not 2 MB-aligned with its addresses: it cannot get
// huge pages.) Null when DPDK refuses.
rte_mempool *createOnHugePages(const std::string &name, std::uint32_t buffers, unsigned cache,
                               std::unique_ptr<HugeArea> &area)
{
    rte_mempool *mp = createPackedEmpty(name, buffers, cache);
    if (!mp) return nullptr;
    const std::size_t object = std::size_t{mp->header_size} + mp->elt_size + mp->trailer_size;
    const std::size_t len = (buffers * object + kHugePage - 1) / kHugePage * kHugePage;
    // A 2 MB-aligned range inside a mapping one huge page longer.
    void *raw = mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) {
        rte_errno = errno;
        rte_mempool_free(mp);
        return nullptr;
    }
    auto *base = reinterpret_cast<char *>((reinterpret_cast<std::uintptr_t>(raw) + kHugePage - 1) &
                                          ~(kHugePage - 1));
    madvise(base, len, MADV_HUGEPAGE);
    auto mine = std::make_unique<HugeArea>(raw, len + kHugePage, base, len);
    if (rte_mempool_populate_virt(mp, base, len, kHugePage, nullptr, nullptr) < 0 ||
        mp->populated_size < buffers) {
        rte_mempool_free(mp);
        return nullptr;
    }
    area = std::move(mine);
    return initPktmbufs(mp);
}

// How much of the mapping holding `addr` the kernel backs with huge pages: its AnonHugePages
// (/proc/self/smaps), in bytes; -1 when it cannot be read.
std::int64_t hugeBytes(const void *addr)
{
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<std::uintptr_t>(addr);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        unsigned long from = 0, to = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &from, &to) == 2 && line.find(':') > 10) {
            inside = from <= at && at < to;
            continue;
        }
        long kb = 0;
        if (inside && std::sscanf(line.c_str(), "AnonHugePages: %ld kB", &kb) == 1)
            return std::int64_t{kb} * 1024;
    }
    return -1;
}

} // namespace

MbufPool::MbufPool(const std::string &name, std::uint32_t buffers, PoolMemory memory)
    : size_(buffers)
{
    // The per-lcore cache is at most 512 and must divide into the pool (DPDK's rule of thumb:
    // size / cache > 1.5).
    unsigned cache = 256;
    while (cache > 0 && buffers < cache * 3 / 2)
        cache /= 2;
    // With hugepages the EAL's memory is on them, in DPDK's layout, whatever was asked.
    const bool ealHuge = rte_eal_has_hugepages() != 0;
    const bool huge = memory == PoolMemory::Thp && !ealHuge;
    packed_ = !ealHuge && memory != PoolMemory::EalPaged;
    if (huge)
        mp_ = createOnHugePages(name, buffers, cache, area_);
    else if (packed_)
        mp_ = createPackedOnEal(name, buffers, cache);
    else
        mp_ = rte_pktmbuf_pool_create(name.c_str(), buffers, cache, kPrivSize,
                                      RTE_MBUF_DEFAULT_BUF_SIZE, static_cast<int>(rte_socket_id()));
    if (!mp_ && huge)
        throw std::runtime_error("mbuf pool " + name + " of " + std::to_string(buffers) +
                                 " buffers on transparent huge pages: " + rte_strerror(rte_errno) +
                                 " (lower rx.pool_buffers, or set rx.pool_memory eal)");
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
    // Every mbuf was written above: the kernel has chosen each page's size by now.
    onHugePages_ = area_ ? hugeBytes(area_->base) > 0 : rte_eal_has_hugepages() != 0;
}

HugeArea::~HugeArea()
{
    munmap(mapping, mappingLen);
}

std::string MbufPool::describe() const
{
    const std::string head =
        "mbuf pool " + std::string(mp_->name) + ": " + std::to_string(size_) + " mbufs";
    if (rte_eal_has_hugepages()) return head + " on the EAL's hugepages";
    if (!area_)
        return head + (packed_ ? " packed on the EAL's 4 KB pages"
                               : " on the EAL's 4 KB pages, one mbuf per page");
    const auto mb = [](std::int64_t b) { return std::to_string(b >> 20) + " MB"; };
    const std::int64_t huge = hugeBytes(area_->base);
    std::string s = head + " packed on " + mb(static_cast<std::int64_t>(area_->len)) +
                    " advised for 2 MB transparent huge pages, ";
    if (huge < 0) return s + "backing unknown (/proc/self/smaps unreadable)";
    s += mb(huge) + " of it on huge pages";
    if (huge == 0) s += " (see /sys/kernel/mm/transparent_hugepage/enabled)";
    return s;
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
