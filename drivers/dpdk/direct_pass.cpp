// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/direct_pass.h"

#include <algorithm>

#include "drivers/dpdk/dpdk_device.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/transmitter.h"

namespace ringlab::dpdk {

namespace {
// How many of frames `first`, `first + every`, ... lie below `n`.
std::uint32_t measuredBelow(std::uint32_t n, std::uint32_t first, std::uint32_t every)
{
    return first < n ? (n - 1 - first) / every + 1 : 0;
}
} // namespace

DpdkDirectPass::DpdkDirectPass(DpdkDevice &dev) : dev_(dev) {}

void DpdkDirectPass::resize(std::uint32_t txRing)
{
    for (PortFrames &p : port_)
        p.frames.assign(txRing, nullptr);
    measured_.assign(txRing, 0);
}

bool DpdkDirectPass::forwards(const LiveParams &live) const
{
    const auto mode = live.choice<FwdMode>(TunableId::FwdMode);
    return mode == FwdMode::Io || mode == FwdMode::Macswap;
}

std::uint32_t DpdkDirectPass::round(DirectRound &r)
{
    dev_.beginPoll();
    if (!active_) {
        active_ = true;
        r.tx.enterDirect();
        dev_.note("direct pass on: the device forwards each poll round itself, nothing being done "
                  "per frame between RX and TX; the stage spans collapse into TX");
    }
    polls_.store(polls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    const auto mode = dev_.live_.choice<FwdMode>(TunableId::FwdMode);
    const auto n = static_cast<std::uint16_t>(dev_.port_.size());
    const std::uint32_t every = r.marker.every();
    constexpr std::uint16_t kBurst = DpdkDevice::kBurst;
    // A chunk at a time (Device::chunks): on a pool of one mbuf per 4 KB page the burst's mbuf
    // heads share a few first-level cache sets, and 8 at a time are still there when their
    // lengths are read (76 Mpps against 59 at 64, docs/experiments.md).
    const std::uint32_t burst = std::min<std::uint32_t>(dev_.chunks_.rx, kBurst);
    rte_mbuf *m[kBurst];
    std::uint32_t got = 0;
    // Round robin over the ports, as harvestPorts() does.
    for (std::uint16_t j = 0; j < n && got < r.budget; ++j) {
        const auto idx = static_cast<std::uint16_t>((dev_.nextRx_ + j) % n);
        const std::uint16_t out = DpdkDevice::egressOf(mode, idx, n);
        while (got < r.budget) {
            const auto want =
                static_cast<std::uint16_t>(std::min<std::uint32_t>(burst, r.budget - got));
            const std::uint16_t k = rte_eth_rx_burst(dev_.port_[idx], 0, m, want);
            if (k == 0) break;
            std::uint64_t bytes = 0;
            for (std::uint16_t i = 0; i < k; ++i)
                bytes += m[i]->pkt_len;
            if (mode == FwdMode::Macswap)
                for (std::uint16_t i = 0; i < k; ++i)
                    DpdkDevice::swapMacs(rte_pktmbuf_mtod(m[i], std::uint8_t *),
                                         rte_pktmbuf_data_len(m[i]));
            // Which of the burst are measured (one load frame in latency.sample_every): all
            // arrived at the poll's reading, and their flush's reading completes them.
            const std::uint32_t first = r.marker.measuredFrom(k);
            dev_.seq_ += k;
            r.bytes += bytes;
            got += k;
            forward(out, m, k, bytes, first, every, r);
            if (k < want) break;
        }
    }
    dev_.nextRx_ = static_cast<std::uint16_t>((dev_.nextRx_ + 1) % n);
    if (got) {
        r.c.add(CounterId::Offered, got);
        r.c.add(CounterId::Processed, got);
    }
    if (r.tx.directDrainDue(pending_ > 0, r.nowNs, r.c)) flushAll(r);
    return got;
}

void DpdkDirectPass::forward(std::uint16_t out, rte_mbuf **m, std::uint16_t k, std::uint64_t bytes,
                             std::uint32_t first, std::uint32_t every, DirectRound &r)
{
    const auto &live = dev_.live_;
    const auto ring = static_cast<std::uint32_t>(measured_.size());
    const auto coalesce = static_cast<std::uint32_t>(live.integer(TunableId::TxCoalesceFrames));
    // As Transmitter::xmit(): a clean first when fewer than tx.free_thresh places are left.
    if (pending_ > 0 &&
        ring - pending_ < static_cast<std::uint32_t>(live.integer(TunableId::TxFreeThresh))) {
        flushAll(r);
        r.c.add(CounterId::TxInlineCleans);
    }
    if (pending_ == 0 && k >= coalesce && k <= ring) { // a flush on its own: nothing to copy
        std::int64_t arrivals[DpdkDevice::kBurst];
        const std::uint32_t nm = measuredBelow(k, first, every);
        std::fill_n(arrivals, nm, r.nowNs);
        recordMeasured(arrivals, nm, r);
        send(out, m, k, bytes, r);
        r.c.add(CounterId::TxInlineCleans);
        return;
    }
    // What does not fit the ring is dropped, as the staged TX buffer refuses it (tx_full).
    const std::uint32_t fits = std::min<std::uint32_t>(k, ring - pending_);
    if (fits < k) {
        for (std::uint32_t i = fits; i < k; ++i)
            bytes -= m[i]->pkt_len;
        rte_pktmbuf_free_bulk(m + fits, k - fits);
        r.c.add(CounterId::TxFull, k - fits);
    }
    PortFrames &p = port_[out];
    std::copy(m, m + fits, p.frames.begin() + p.count);
    p.count += fits;
    p.bytes += bytes;
    pending_ += fits;
    const std::uint32_t nm = measuredBelow(fits, first, every);
    std::fill_n(measured_.begin() + nMeasured_, nm, r.nowNs);
    nMeasured_ += nm;
    if (pending_ < coalesce) return;
    flushAll(r);
    r.c.add(CounterId::TxInlineCleans);
}

void DpdkDirectPass::flushAll(DirectRound &r)
{
    recordMeasured(measured_.data(), nMeasured_, r);
    nMeasured_ = 0;
    for (std::uint16_t out = 0; out < port_.size(); ++out) {
        PortFrames &p = port_[out];
        if (p.count) send(out, p.frames.data(), p.count, p.bytes, r);
        p.count = 0;
        p.bytes = 0;
    }
    pending_ = 0;
}

void DpdkDirectPass::recordMeasured(const std::int64_t *arrivals, std::uint32_t n, DirectRound &r)
{
    // Completed now, as the staged path's TX buffer completes when handed to the PMD
    // (txCompletesOnFlush): one clock reading for a flush holding a measured frame.
    if (n) r.tx.recordDirect(arrivals, n, nowNs());
}

void DpdkDirectPass::send(std::uint16_t out, rte_mbuf **m, std::uint32_t k, std::uint64_t bytes,
                          DirectRound &r)
{
    Device::TxRefused refused;
    for (std::uint32_t from = 0; from < k; from += DpdkDevice::kBurst)
        dev_.transmit(
            out, m + from,
            static_cast<std::uint16_t>(std::min<std::uint32_t>(DpdkDevice::kBurst, k - from)),
            refused);
    r.c.add(CounterId::TxPackets, k - refused.frames);
    r.c.add(CounterId::TxBytes, bytes - refused.bytes);
    if (refused.frames) r.c.add(CounterId::TxFull, refused.frames);
}

void DpdkDirectPass::flush(DirectRound &r)
{
    flushAll(r); // as the staged TX buffer's last reclaim: a flush, no clean counted
    r.tx.directDrainDue(false, r.nowNs, r.c); // the next period starts afresh
    if (active_) {
        active_ = false;
        dev_.note("direct pass off: the stages take the frames again");
    }
}

} // namespace ringlab::dpdk
