// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/direct_pass.h"

#include <algorithm>

#include "drivers/dpdk/dpdk_device.h"
#include "engine/datapath/clock.h"
#include "engine/datapath/transmitter.h"

namespace ringlab::dpdk {

DpdkDirectPass::DpdkDirectPass(DpdkDevice &dev) : dev_(dev) {}

void DpdkDirectPass::resize(std::uint32_t txRing)
{
    buffer_.resize(txRing);
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
    ports_.tx = &r.tx;
    const std::uint32_t every = r.marker.every();
    const TxBufferPolicy policy = TxBufferPolicy::of(dev_.live_);
    // A chunk at a time (Device::chunks), as the staged poll loop harvests and transmits: on a
    // pool of one mbuf per 4 KB page the mbuf heads of 8 frames are still in the first-level
    // cache when their lengths are read (76 Mpps against 59 at 64, docs/experiments.md).
    const std::uint32_t chunk =
        std::clamp<std::uint32_t>(dev_.chunks_.rx, 1, static_cast<std::uint32_t>(chunk_.size()));
    std::uint32_t got = 0;
    while (got < r.budget) {
        const std::uint32_t want = std::min(chunk, r.budget - got);
        const std::uint32_t k = receive(want, r);
        if (k)
            buffer_.post(chunk_.data(), runs_.data(), nRuns_, k, every, policy, r.nowNs, ports_,
                         r.c);
        got += k;
        if (k < want) break;
    }
    if (r.tx.directDrainDue(buffer_.pending() > 0, r.nowNs, r.c)) buffer_.flush(ports_, r.c);
    return got;
}

std::uint32_t DpdkDirectPass::receive(std::uint32_t want, DirectRound &r)
{
    const auto mode = dev_.live_.choice<FwdMode>(TunableId::FwdMode);
    const auto n = dev_.port_.size();
    nRuns_ = 0;
    const std::uint32_t got = dev_.pollPorts(
        want, [this](std::uint32_t at) { return chunk_.data() + at; },
        [&](std::uint16_t idx, rte_mbuf **m, std::uint16_t k, std::uint32_t at) {
            std::uint64_t bytes = 0;
            for (std::uint16_t i = 0; i < k; ++i)
                bytes += m[i]->pkt_len;
            if (mode == FwdMode::Macswap)
                for (std::uint16_t i = 0; i < k; ++i)
                    DpdkDevice::swapMacs(rte_pktmbuf_mtod(m[i], std::uint8_t *),
                                         rte_pktmbuf_data_len(m[i]));
            // Which of them are measured (one load frame in latency.sample_every): all arrived
            // at the poll's reading, and their flush's reading completes them.
            runs_[nRuns_++] = {at, k, DpdkDevice::egressOf(mode, idx, n), r.marker.measuredFrom(k),
                               bytes};
            r.bytes += bytes;
        });
    dev_.seq_ += got;
    if (got) r.c.add(CounterId::Offered, got);
    return got;
}

void DpdkDirectPass::Ports::flushing(const std::int64_t *arrivals, std::uint32_t n)
{
    // Completed now, as the staged path's TX buffer completes when handed to the PMD
    // (txCompletesOnFlush): one clock reading for a flush holding a measured frame.
    if (n) tx->recordDirect(arrivals, n, nowNs());
}

void DpdkDirectPass::Ports::send(std::uint16_t out, rte_mbuf **m, std::uint32_t k,
                                 Device::TxRefused &refused)
{
    for (std::uint32_t from = 0; from < k; from += DpdkDevice::kBurst)
        dev.transmit(
            out, m + from,
            static_cast<std::uint16_t>(std::min<std::uint32_t>(DpdkDevice::kBurst, k - from)),
            refused);
}

void DpdkDirectPass::flush(DirectRound &r, bool leaving)
{
    // What waits goes out at once, as the staged TX buffer's last reclaim (no fire counted:
    // no period ended), and times still waiting to be recorded are recorded.
    ports_.tx = &r.tx;
    buffer_.flush(ports_, r.c);
    r.tx.recordDirect(nullptr, 0, r.nowNs);
    r.tx.directDrainDue(false, r.nowNs, r.c); // the next period starts afresh
    if (active_ && leaving)
        dev_.note("direct pass off: a stage has work per frame, the stages take the frames");
    active_ = false;
}

} // namespace ringlab::dpdk
