// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/direct_pass.h"

#include <algorithm>
#include <cassert>

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
    assert(pending_ == 0);
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
    every_ = r.marker.every();
    // A chunk at a time (Device::chunks), as the staged poll loop harvests and transmits: on a
    // pool of one mbuf per 4 KB page the mbuf heads of 8 frames are still in the first-level
    // cache when their lengths are read (76 Mpps against 59 at 64, docs/experiments.md).
    const std::uint32_t chunk =
        std::clamp<std::uint32_t>(dev_.chunks_.rx, 1, static_cast<std::uint32_t>(chunk_.size()));
    std::uint32_t got = 0;
    while (got < r.budget) {
        const std::uint32_t want = std::min(chunk, r.budget - got);
        const std::uint32_t k = receive(want, r);
        if (k) post(k, r);
        got += k;
        if (k < want) break;
    }
    if (r.tx.directDrainDue(pending_ > 0, r.nowNs, r.c)) flushAll(r);
    return got;
}

std::uint32_t DpdkDirectPass::receive(std::uint32_t want, DirectRound &r)
{
    const auto mode = dev_.live_.choice<FwdMode>(TunableId::FwdMode);
    const auto n = static_cast<std::uint16_t>(dev_.port_.size());
    std::uint32_t got = 0;
    nRuns_ = 0;
    // Round robin over the ports, starting where the last chunk stopped (harvestPorts()).
    for (std::uint16_t j = 0; j < n && got < want; ++j) {
        const auto idx = static_cast<std::uint16_t>((dev_.nextRx_ + j) % n);
        while (got < want) {
            const auto burst =
                static_cast<std::uint16_t>(std::min<std::uint32_t>(DpdkDevice::kBurst, want - got));
            rte_mbuf **m = chunk_.data() + got;
            const std::uint16_t k = rte_eth_rx_burst(dev_.port_[idx], 0, m, burst);
            if (k == 0) break;
            std::uint64_t bytes = 0;
            for (std::uint16_t i = 0; i < k; ++i)
                bytes += m[i]->pkt_len;
            if (mode == FwdMode::Macswap)
                for (std::uint16_t i = 0; i < k; ++i)
                    DpdkDevice::swapMacs(rte_pktmbuf_mtod(m[i], std::uint8_t *),
                                         rte_pktmbuf_data_len(m[i]));
            // Which of them are measured (one load frame in latency.sample_every): all arrived
            // at the poll's reading, and their flush's reading completes them.
            runs_[nRuns_++] = {got, k, DpdkDevice::egressOf(mode, idx, n), r.marker.measuredFrom(k),
                               bytes};
            r.bytes += bytes;
            got += k;
            if (k < burst) break;
        }
    }
    dev_.nextRx_ = static_cast<std::uint16_t>((dev_.nextRx_ + 1) % n);
    dev_.seq_ += got;
    if (got) r.c.add(CounterId::Offered, got);
    return got;
}

void DpdkDirectPass::post(std::uint32_t k, DirectRound &r)
{
    const auto &live = dev_.live_;
    r.c.add(CounterId::Processed, k);
    const auto ring = static_cast<std::uint32_t>(measured_.size());
    const auto coalesce = static_cast<std::uint32_t>(live.integer(TunableId::TxCoalesceFrames));
    // A clean first when fewer than tx.free_thresh places are left.
    if (pending_ > 0 &&
        ring - pending_ < static_cast<std::uint32_t>(live.integer(TunableId::TxFreeThresh))) {
        flushAll(r);
        r.c.add(CounterId::TxInlineCleans);
    }
    if (pending_ == 0 && k >= coalesce && k <= ring) {
        // Flushed as soon as posted: straight to the ports, nothing copied.
        std::uint32_t nm = 0;
        for (std::uint32_t i = 0; i < nRuns_; ++i)
            nm += measuredBelow(runs_[i].count, runs_[i].first, every_);
        std::fill_n(measured_.begin(), nm, r.nowNs);
        recordMeasured(measured_.data(), nm, r);
        for (std::uint32_t i = 0; i < nRuns_; ++i)
            send(runs_[i].out, chunk_.data() + runs_[i].start, runs_[i].count, runs_[i].bytes, r);
        r.c.add(CounterId::TxInlineCleans);
        return;
    }
    // What does not fit the ring is dropped, the chunk's last frames, as the staged TX buffer
    // refuses them (tx_full); a dropped frame is not measured.
    const std::uint32_t fits = std::min(k, ring - pending_);
    for (std::uint32_t i = 0; i < nRuns_ && runs_[i].start < fits; ++i) {
        const Run &run = runs_[i];
        const std::uint32_t kept = std::min(run.count, fits - run.start);
        std::uint64_t bytes = run.bytes;
        for (std::uint32_t f = kept; f < run.count; ++f)
            bytes -= chunk_[run.start + f]->pkt_len;
        PortFrames &p = port_[run.out];
        std::copy_n(chunk_.data() + run.start, kept, p.frames.begin() + p.count);
        p.count += kept;
        p.bytes += bytes;
        const std::uint32_t nm = measuredBelow(kept, run.first, every_);
        std::fill_n(measured_.begin() + nMeasured_, nm, r.nowNs);
        nMeasured_ += nm;
    }
    if (fits < k) {
        rte_pktmbuf_free_bulk(chunk_.data() + fits, k - fits);
        r.c.add(CounterId::TxFull, k - fits);
    }
    pending_ += fits;
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

void DpdkDirectPass::flush(DirectRound &r, bool leaving)
{
    // What waits goes out at once, as the staged TX buffer's last reclaim (no fire counted:
    // no period ended), and times still waiting to be recorded are recorded.
    flushAll(r);
    r.tx.recordDirect(nullptr, 0, r.nowNs);
    r.tx.directDrainDue(false, r.nowNs, r.c); // the next period starts afresh
    if (active_ && leaving)
        dev_.note("direct pass off: a stage has work per frame, the stages take the frames");
    active_ = false;
}

} // namespace ringlab::dpdk
