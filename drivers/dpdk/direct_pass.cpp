// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/direct_pass.h"

#include <algorithm>

#include "drivers/dpdk/dpdk_device.h"
#include "engine/datapath/clock.h"

namespace ringlab::dpdk {

DpdkDirectPass::DpdkDirectPass(DpdkDevice &dev, PortIo &io, const LiveParams &live)
    : dev_(dev), io_(io), live_(live)
{
}

void DpdkDirectPass::resize(std::uint32_t txRing)
{
    buffer_.resize(txRing);
    ports_.times.assign(txRing, 0); // no allocation on the poll thread
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
        dev_.notePoll({PollEvent::Kind::PassOn});
    }
    polls_.store(polls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    ports_.round = &r;
    const std::uint32_t every = r.marker.every();
    const TxBufferPolicy policy = TxBufferPolicy::of(live_);
    // A chunk at a time (Device::chunks), as the staged poll loop harvests and transmits: on a
    // pool of one mbuf per 4 KB page the mbuf heads of 8 frames are still in the first-level
    // cache when their lengths are read (76 Mpps against 59 at 64, docs/experiments.md).
    const std::uint32_t chunk =
        std::clamp<std::uint32_t>(dev_.chunks().rx, 1, static_cast<std::uint32_t>(chunk_.size()));
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
    // The pass runs without adaptive coalescing (stagesPassFramesThrough): the tunable's.
    buffer_.drainIfDue(r.nowNs, live_.integer(TunableId::TxCoalesceUsecs) * 1000, ports_, r.c);
    return got;
}

std::uint32_t DpdkDirectPass::receive(std::uint32_t want, DirectRound &r)
{
    const auto mode = live_.choice<FwdMode>(TunableId::FwdMode);
    const auto n = io_.size();
    nRuns_ = 0;
    const std::uint32_t got = io_.receive(
        want, [this](std::uint32_t at) { return chunk_.data() + at; },
        [&](std::uint16_t idx, rte_mbuf **m, std::uint16_t k, std::uint32_t at) {
            std::uint64_t bytes = 0;
            for (std::uint16_t i = 0; i < k; ++i)
                bytes += m[i]->pkt_len;
            if (mode == FwdMode::Macswap)
                for (std::uint16_t i = 0; i < k; ++i)
                    PortIo::swapMacs(rte_pktmbuf_mtod(m[i], std::uint8_t *),
                                     rte_pktmbuf_data_len(m[i]));
            // Which of them are measured (one load frame in latency.sample_every): all arrived
            // at the poll's reading, and their flush's reading completes them.
            runs_[nRuns_++] = {at, k, PortIo::egressOf(mode, idx, n), r.marker.measuredFrom(k),
                               bytes};
            r.bytes += bytes;
        });
    io_.takeSeq(got);
    if (got) r.c.add(CounterId::Offered, got);
    return got;
}

void DpdkDirectPass::Ports::flushing(const std::int64_t *arrivals, std::uint32_t n)
{
    // Completed now, as the staged path's TX buffer completes when handed to the PMD
    // (txCompletesOnFlush): one clock reading for a flush holding a measured frame.
    if (n == 0) return;
    const std::int64_t done = nowNs();
    for (std::uint32_t k = 0; k < n; ++k)
        times[k] = static_cast<std::uint64_t>(std::max<std::int64_t>(done - arrivals[k], 0));
    round->latency.recordPassed(times.data(), n, round->marker.every());
}

void DpdkDirectPass::flush(DirectRound &r, bool leaving)
{
    ports_.round = &r;
    buffer_.leave(ports_, r.c);
    if (active_ && leaving) dev_.notePoll({PollEvent::Kind::PassOff});
    active_ = false;
}

} // namespace ringlab::dpdk
