// SPDX-License-Identifier: GPL-2.0-or-later
// A DPDK device's direct pass (engine/datapath/direct_pass.h): rte_eth_rx_burst on each port,
// then out of the egress port through a TX buffer of its own, as l2fwd's rte_eth_tx_buffer:
// flushed at tx.coalesce_frames, drained by the poll loop's check after tx.coalesce_usecs. A
// burst that fills the buffer on its own, into an empty one, goes straight to
// rte_eth_tx_burst, as testpmd's io engine sends it. No frame's Buffer (the mbuf's private
// area, a cache line of its own) is written: a measured frame is its arrival time, kept beside
// the frames until they are flushed.
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
    explicit DpdkDirectPass(DpdkDevice &dev);

    bool forwards(const LiveParams &live) const override;
    std::uint32_t round(DirectRound &r) override;
    void flush(DirectRound &r) override;
    // Polls the pass has taken (any thread): the device's direct_polls.
    std::uint64_t polls() const { return polls_.load(std::memory_order_relaxed); }

  private:
    static constexpr std::uint16_t kBurst = 64;
    static constexpr std::uint32_t kMaxCoalesce = 4096; // tx.coalesce_frames' maximum
    // A port's TX buffer: the frames, their bytes, and the arrival of the measured ones.
    struct TxBuffer {
        std::vector<rte_mbuf *> frames = std::vector<rte_mbuf *>(kMaxCoalesce + kBurst);
        std::vector<std::int64_t> measured = std::vector<std::int64_t>(kMaxCoalesce + kBurst);
        std::uint32_t count = 0, nMeasured = 0;
        std::uint64_t bytes = 0;
    };
    // A received burst on its way out of port `out`.
    void forward(std::uint16_t out, rte_mbuf **m, std::uint16_t k, std::uint64_t bytes,
                 std::uint32_t nMeasured, DirectRound &r);
    // Sends `k` frames out of `out`, records the measured ones, counts what the port took
    // and frees (tx_full) what it refused.
    void send(std::uint16_t out, rte_mbuf **m, std::uint32_t k, std::uint64_t bytes,
              const std::int64_t *measured, std::uint32_t nMeasured, DirectRound &r);
    void flushPort(std::uint16_t out, DirectRound &r);
    bool anyPending() const;

    DpdkDevice &dev_;
    std::array<TxBuffer, 2> tx_;
    bool active_ = false; // poll thread: taking rounds (its start and end are device events)
    std::atomic<std::uint64_t> polls_{0};
};

} // namespace ringlab::dpdk
