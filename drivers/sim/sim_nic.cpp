// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/sim/sim_nic.h"

#include <algorithm>

#include "engine/datapath/clock.h"

namespace ringlab::sim {

namespace {
// Preamble, start delimiter and inter-frame gap add 20 bytes of wire time to every frame.
constexpr double kWireOverheadBytes = 20;
// Descriptors ahead whose buffers are prefetched while filling the RX ring.
constexpr std::uint32_t kPrefetchAhead = 16;
// Nanoseconds of wire time per byte at `mbps`.
double wireNsPerByte(double mbps)
{
    return 8e3 / mbps;
}
} // namespace

SimNic::SimNic(const ParamSet &params, const LiveParams &live)
    : live_(live), load_(static_cast<std::uint64_t>(params.integer(TunableId::LoadSeed))),
      probes_(static_cast<std::uint64_t>(params.integer(TunableId::LoadSeed)) * 31 + 7)
{
    reconfigure(params);
}

void SimNic::reconfigure(const ParamSet &params)
{
    rx_ =
        std::make_unique<RxRing>(static_cast<std::uint32_t>(params.integer(TunableId::RxRingSize)));
    tx_ =
        std::make_unique<TxRing>(static_cast<std::uint32_t>(params.integer(TunableId::TxRingSize)));
    linkUp(nowNs());
}

void SimNic::linkUp(std::int64_t nowNs)
{
    started_ = nowNs;
    advancedNs_.store(nowNs, std::memory_order_release);
    frameBytes_ = 0;
    probeHz_ = -1;
    load_.reshape({}, nowNs);
    txWireFreeNs_ = 0;
    followLoad(nowNs);
}

void SimNic::followLoad(std::int64_t nowNs)
{
    const std::int64_t frame = live_.integer(TunableId::LoadFrameBytes);
    const double mbps = static_cast<double>(live_.integer(TunableId::LinkMbps));
    ArrivalShape shape;
    shape.pattern = live_.choice<LoadPattern>(TunableId::LoadPattern);
    const double linePps = mbps * 1e6 / ((static_cast<double>(frame) + kWireOverheadBytes) * 8);
    shape.ratePps = std::min(static_cast<double>(live_.integer(TunableId::LoadRatePps)), linePps);
    shape.onNs = live_.integer(TunableId::LoadBurstOnUs) * 1000;
    shape.offNs = live_.integer(TunableId::LoadBurstOffUs) * 1000;
    frameBytes_ = frame;
    if (!(shape == load_.shape())) {
        // The next arrival follows the last one at the new spacing, so a change neither
        // skips the pending frame nor, after silence, releases a backlog of them.
        const double gap = shape.ratePps > 0 ? 1e9 / shape.ratePps : 0;
        const double from = std::max(load_.last(), static_cast<double>(nowNs) - gap);
        load_.reshape(shape, static_cast<std::int64_t>(std::min(from, static_cast<double>(nowNs))));
    }
    const std::int64_t hz = live_.integer(TunableId::ProbeRateHz);
    if (hz != probeHz_) {
        probeHz_ = hz;
        // Poisson, not evenly spaced: periodic probes lock to the tick of a tick-mode poll
        // thread and measure the phase between the two instead of the wait.
        probes_.reshape({LoadPattern::Poisson, static_cast<double>(hz), 0, 0}, nowNs);
    }
}

void SimNic::advance(std::int64_t nowNs, Counters &c)
{
    followLoad(nowNs);
    const std::uint32_t tail = rx_->tail_.load(std::memory_order_acquire);
    std::uint32_t hw = rx_->hw_.load(std::memory_order_relaxed);
    std::uint64_t offered = 0, missed = 0;
    for (;;) {
        const std::int64_t tl = load_.peek(), tp = probes_.peek();
        const bool probe = tp <= tl;
        const std::int64_t t = probe ? tp : tl;
        if (t > nowNs) break;
        if (hw == tail) {
            // No posted descriptor left in this advance: the rest until now is missed.
            const std::uint64_t n = load_.skipUntil(nowNs) + probes_.skipUntil(nowNs);
            offered += n;
            missed += n;
            break;
        }
        probe ? probes_.pop() : load_.pop();
        ++offered;
        // The buffers a few descriptors on are filled next: fetch them for writing now (only
        // posted ones, whose descriptors the tail's release published).
        if (tail - hw > kPrefetchAhead) __builtin_prefetch(rx_->at(hw + kPrefetchAhead).buf, 1);
        RxDesc &d = rx_->at(hw);
        if (hw != tail && d.postedNs <= t) {
            Buffer *b = d.buf;
            b->len = probe ? kProbeBytes : static_cast<std::uint32_t>(frameBytes_);
            b->probe = probe;
            b->seq = seq_++;
            b->at(Stage::Arrival) = t;
            ++hw;
        } else {
            ++missed;
        }
    }
    rx_->hw_.store(hw, std::memory_order_release);
    if (offered) c.add(CounterId::Offered, offered);
    if (missed) c.add(CounterId::RxMissed, missed);
    advancedNs_.store(nowNs, std::memory_order_release);
}

std::uint32_t SimNic::rxHarvest(Buffer **out, std::uint32_t max, std::int64_t nowNs, Counters &c)
{
    advance(nowNs, c);
    const std::uint32_t hw = rx_->hw_.load(std::memory_order_relaxed);
    const std::uint32_t clean = rx_->clean_.load(std::memory_order_relaxed);
    const std::uint32_t k = std::min(max, hw - clean);
    for (std::uint32_t j = 0; j < k; ++j)
        out[j] = rx_->at(clean + j).buf;
    rx_->clean_.store(clean + k, std::memory_order_release);
    return k;
}

std::uint32_t SimNic::rxDrain(Buffer **out, std::uint32_t max)
{
    return rx_->drain(out, max);
}

std::uint32_t SimNic::txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs)
{
    const std::uint32_t tail = tx_->tail_.load(std::memory_order_relaxed);
    const std::uint32_t free = tx_->size() - (tail - tx_->clean_.load(std::memory_order_acquire));
    const std::uint32_t k = std::min(n, free);
    const double perByte = wireNsPerByte(static_cast<double>(live_.integer(TunableId::LinkMbps)));
    double wire = std::max(txWireFreeNs_, static_cast<double>(nowNs));
    for (std::uint32_t j = 0; j < k; ++j) {
        wire += (bufs[j]->len + kWireOverheadBytes) * perByte;
        const auto done = static_cast<std::int64_t>(wire);
        bufs[j]->stampDone(done);
        tx_->at(tail + j) = TxDesc{bufs[j], done};
    }
    txWireFreeNs_ = wire;
    tx_->tail_.store(tail + k, std::memory_order_release);
    return k;
}

std::uint32_t SimNic::txReclaim(Buffer **out, std::uint32_t max, std::int64_t nowNs)
{
    std::uint32_t clean = tx_->clean_.load(std::memory_order_relaxed);
    const std::uint32_t tail = tx_->tail_.load(std::memory_order_acquire);
    std::uint32_t k = 0;
    while (clean != tail && k < max && tx_->at(clean).doneNs <= nowNs)
        out[k++] = tx_->at(clean++).buf;
    tx_->clean_.store(clean, std::memory_order_release);
    return k;
}

std::uint32_t SimNic::txDrain(Buffer **out, std::uint32_t max)
{
    return tx_->drain(out, max);
}

std::int64_t SimNic::nextInterruptNs(std::int64_t nowNs, std::int64_t usecs, std::int64_t frames)
{
    followLoad(nowNs);
    ArrivalGenerator load = load_, probes = probes_;
    const std::int64_t first = std::min(load.peek(), probes.peek());
    if (first == kNever) return -1;
    const std::int64_t byTime = first + usecs * 1000;
    for (std::int64_t k = 1;; ++k) {
        const std::int64_t t = std::min(load.peek(), probes.peek());
        if (t >= byTime) return byTime;
        if (k == frames) return t;
        load.peek() <= probes.peek() ? load.pop() : probes.pop();
    }
}

} // namespace ringlab::sim
