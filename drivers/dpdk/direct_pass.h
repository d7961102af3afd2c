// SPDX-License-Identifier: GPL-2.0-or-later
// A DPDK device's direct pass (engine/datapath/direct_pass.h): rte_eth_rx_burst round robin
// over the ports a chunk at a time, as the staged poll loop harvests, then out of the egress
// ports through the same TX buffer the staged path has: frames of both ports held together, up
// to tx.ring_size (the rest of a chunk dropped as tx_full), everything flushed when
// tx.coalesce_frames wait or when fewer than tx.free_thresh places are left, and drained by the
// poll loop's check tx.coalesce_usecs after frames began to wait. A chunk that reaches
// tx.coalesce_frames on its own, into an empty buffer, goes straight to rte_eth_tx_burst, as
// testpmd's io engine sends it. No frame's Buffer (the mbuf's private area, a cache line of
// its own) is touched: a measured frame is its arrival time, kept until its flush.
#pragma once

#include <rte_mbuf.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "engine/datapath/direct_pass.h"

namespace ringlab::dpdk {

class DpdkDevice;

class DpdkDirectPass final : public DirectPass {
  public:
    static constexpr std::uint32_t kMaxChunk = 4096; // poll.budget's maximum

    explicit DpdkDirectPass(DpdkDevice &dev);

    // While the datapath is stopped (nothing waits): room for tx.ring_size frames.
    void resize(std::uint32_t txRing);
    bool forwards(const LiveParams &live) const override;
    std::uint32_t round(DirectRound &r) override;
    void flush(DirectRound &r, bool leaving) override;
    // Polls the pass has taken since the device was opened (any thread): direct_polls.
    std::uint64_t polls() const { return polls_.load(std::memory_order_relaxed); }

  private:
    // Frames received from one port in one rx_burst: chunk_[start, start + count), out of
    // port `out`, their bytes, and their measured frames: `first`, then every every_.
    struct Run {
        std::uint32_t start, count;
        std::uint16_t out;
        std::uint32_t first;
        std::uint64_t bytes;
    };
    // The frames waiting for one egress port, in order, and their bytes.
    struct PortFrames {
        std::vector<rte_mbuf *> frames;
        std::uint32_t count = 0;
        std::uint64_t bytes = 0;
    };
    // Up to `want` frames, round robin over the ports, as DpdkDevice::harvestPorts() takes a
    // chunk: into chunk_ and runs_. Returns how many.
    std::uint32_t receive(std::uint32_t want, DirectRound &r);
    // The chunk on its way out, as Transmitter::xmit() takes one.
    void post(std::uint32_t k, DirectRound &r);
    // Sends `k` frames out of `out`, counting what the port took and freeing (tx_full) what
    // it refused.
    void send(std::uint16_t out, rte_mbuf **m, std::uint32_t k, std::uint64_t bytes,
              DirectRound &r);
    // Everything waiting goes out, the measured frames completed now.
    void flushAll(DirectRound &r);
    void recordMeasured(const std::int64_t *arrivals, std::uint32_t n, DirectRound &r);

    DpdkDevice &dev_;
    std::vector<rte_mbuf *> chunk_ = std::vector<rte_mbuf *>(kMaxChunk);
    std::vector<Run> runs_ = std::vector<Run>(kMaxChunk);
    std::uint32_t nRuns_ = 0;
    std::uint32_t every_ = 1; // the chunk's sampling
    std::array<PortFrames, 2> port_;
    std::uint32_t pending_ = 0;          // frames waiting, both ports
    std::vector<std::int64_t> measured_; // the arrival of each measured frame waiting
    std::uint32_t nMeasured_ = 0;
    bool active_ = false; // poll thread: taking rounds (its start and end are device events)
    std::atomic<std::uint64_t> polls_{0};
};

} // namespace ringlab::dpdk
