// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/direct_pass.h"

#include <rte_ether.h>

#include <algorithm>
#include <utility>

#include "drivers/dpdk/dpdk_device.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/transmitter.h"

namespace ringlab::dpdk {

DpdkDirectPass::DpdkDirectPass(DpdkDevice &dev) : dev_(dev) {}

bool DpdkDirectPass::forwards(const LiveParams &live) const
{
    const auto mode = live.choice<FwdMode>(TunableId::FwdMode);
    return mode == FwdMode::Io || mode == FwdMode::Macswap;
}

bool DpdkDirectPass::anyPending() const
{
    return tx_[0].count > 0 || tx_[1].count > 0;
}

std::uint32_t DpdkDirectPass::round(DirectRound &r)
{
    dev_.beginPoll();
    if (!active_) {
        active_ = true;
        dev_.note("direct pass on: the device forwards each poll round itself, nothing being done "
                  "per frame between RX and TX; the stage spans collapse into TX");
    }
    polls_.store(polls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    const bool swap = dev_.live_.choice<FwdMode>(TunableId::FwdMode) == FwdMode::Macswap;
    const auto n = static_cast<std::uint16_t>(dev_.port_.size());
    const std::uint32_t every = r.marker.every();
    rte_mbuf *m[kBurst];
    std::uint32_t got = 0;
    // Round robin over the ports, as harvestPorts() does.
    for (std::uint16_t j = 0; j < n && got < r.budget; ++j) {
        const auto idx = static_cast<std::uint16_t>((dev_.nextRx_ + j) % n);
        const auto out = static_cast<std::uint16_t>(swap || n == 1 ? idx : idx ^ 1);
        while (got < r.budget) {
            const auto want =
                static_cast<std::uint16_t>(std::min<std::uint32_t>(kBurst, r.budget - got));
            const std::uint16_t k = rte_eth_rx_burst(dev_.port_[idx], 0, m, want);
            if (k == 0) break;
            std::uint64_t bytes = 0;
            for (std::uint16_t i = 0; i < k; ++i)
                bytes += m[i]->pkt_len;
            if (swap)
                for (std::uint16_t i = 0; i < k; ++i)
                    if (rte_pktmbuf_data_len(m[i]) >= 2 * RTE_ETHER_ADDR_LEN) {
                        auto *eth = rte_pktmbuf_mtod(m[i], rte_ether_hdr *);
                        std::swap(eth->dst_addr, eth->src_addr);
                    }
            // How many of the burst are measured (one load frame in latency.sample_every): all
            // arrived at the poll's reading, and the flush's reading completes them.
            const std::uint32_t first = r.marker.measuredFrom(k);
            const std::uint32_t measured = first < k ? (k - 1 - first) / every + 1 : 0;
            dev_.seq_ += k;
            r.bytes += bytes;
            got += k;
            forward(out, m, k, bytes, measured, r);
            if (k < want) break;
        }
    }
    dev_.nextRx_ = static_cast<std::uint16_t>((dev_.nextRx_ + 1) % n);
    if (got) {
        r.c.add(CounterId::Offered, got);
        r.c.add(CounterId::Processed, got);
    }
    if (r.tx.directDrainDue(anyPending(), r.nowNs, r.c))
        for (std::uint16_t out = 0; out < n; ++out)
            flushPort(out, r);
    return got;
}

void DpdkDirectPass::forward(std::uint16_t out, rte_mbuf **m, std::uint16_t k, std::uint64_t bytes,
                             std::uint32_t nMeasured, DirectRound &r)
{
    TxBuffer &t = tx_[out];
    const auto coalesce =
        static_cast<std::uint32_t>(dev_.live_.integer(TunableId::TxCoalesceFrames));
    if (t.count == 0 && k >= coalesce) { // a flush on its own: no copy into the buffer
        std::int64_t arrivals[kBurst];
        std::fill_n(arrivals, nMeasured, r.nowNs);
        send(out, m, k, bytes, arrivals, nMeasured, r);
        r.c.add(CounterId::TxInlineCleans);
        return;
    }
    std::copy(m, m + k, t.frames.begin() + t.count);
    std::fill_n(t.measured.begin() + t.nMeasured, nMeasured, r.nowNs);
    t.count += k;
    t.nMeasured += nMeasured;
    t.bytes += bytes;
    if (t.count < coalesce) return;
    flushPort(out, r);
    r.c.add(CounterId::TxInlineCleans);
}

void DpdkDirectPass::flushPort(std::uint16_t out, DirectRound &r)
{
    TxBuffer &t = tx_[out];
    if (t.count == 0) return;
    send(out, t.frames.data(), t.count, t.bytes, t.measured.data(), t.nMeasured, r);
    t.count = t.nMeasured = 0;
    t.bytes = 0;
}

void DpdkDirectPass::send(std::uint16_t out, rte_mbuf **m, std::uint32_t k, std::uint64_t bytes,
                          const std::int64_t *measured, std::uint32_t nMeasured, DirectRound &r)
{
    // Completed now, as the staged path's TX buffer completes when handed to the PMD
    // (txCompletesOnFlush): one clock reading for a flush holding a measured frame.
    if (nMeasured) r.tx.recordDirect(measured, nMeasured, nowNs());
    Device::TxRefused refused;
    for (std::uint32_t from = 0; from < k; from += kBurst)
        dev_.transmit(out, m + from,
                      static_cast<std::uint16_t>(std::min<std::uint32_t>(kBurst, k - from)),
                      refused);
    r.c.add(CounterId::TxPackets, k - refused.frames);
    r.c.add(CounterId::TxBytes, bytes - refused.bytes);
    if (refused.frames) r.c.add(CounterId::TxFull, refused.frames);
}

void DpdkDirectPass::flush(DirectRound &r)
{
    const bool pending = anyPending();
    for (std::uint16_t out = 0; out < tx_.size(); ++out)
        flushPort(out, r);
    if (pending) r.c.add(CounterId::TxCleans);
    r.tx.directDrainDue(false, r.nowNs, r.c); // the next period starts afresh
    if (active_) {
        active_ = false;
        dev_.note("direct pass off: the stages take the frames again");
    }
}

} // namespace ringlab::dpdk
