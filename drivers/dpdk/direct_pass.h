// SPDX-License-Identifier: GPL-2.0-or-later
// A DPDK device's direct pass (engine/datapath/direct_pass.h): received round robin over the
// ports a chunk at a time, as the staged poll loop harvests (PortIo::receive), then out of the
// egress ports through a TX buffer under the staged path's rules
// (engine/datapath/pass_tx_buffer.h, tx_buffer_policy.h), drained by the poll loop's check
// tx.coalesce_usecs after frames began to wait. No frame's Buffer (the mbuf's private area, a
// cache line of its own) is touched.
#pragma once

#include <rte_mbuf.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "drivers/dpdk/port_io.h"
#include "engine/datapath/direct_pass.h"
#include "engine/datapath/pass_tx_buffer.h"

namespace ringlab::dpdk {

class DpdkDevice;

class DpdkDirectPass final : public DirectPass {
  public:
    static constexpr std::uint32_t kMaxChunk = 4096; // poll.budget's maximum

    // `dev`: its poll-round set-up (beginPoll) and events (notePoll); `io`: its ports.
    DpdkDirectPass(DpdkDevice &dev, PortIo &io, const LiveParams &live);

    // While the datapath is stopped (nothing waits): room for tx.ring_size frames.
    void resize(std::uint32_t txRing);
    bool forwards(const LiveParams &live) const override;
    std::uint32_t round(DirectRound &r) override;
    void flush(DirectRound &r, bool leaving) override;
    // Polls the pass has taken since the device was opened (any thread): direct_polls.
    std::uint64_t polls() const { return polls_.load(std::memory_order_relaxed); }

  private:
    // The ports' side of the pass's TX buffer (PassTxBuffer's Port).
    struct Ports {
        using Frame = rte_mbuf *;
        PortIo &io;
        DirectRound *round = nullptr;     // the round's: its latency record and sampling
        std::vector<std::uint64_t> times; // a flush's measured frames' times
        static std::uint32_t bytes(Frame f) { return f->pkt_len; }
        void flushing(const std::int64_t *arrivals, std::uint32_t n);
        void send(std::uint16_t out, Frame *m, std::uint32_t k, Device::TxRefused &refused)
        {
            io.transmitAll(out, m, k, refused);
        }
        static void drop(Frame *m, std::uint32_t k) { rte_pktmbuf_free_bulk(m, k); }
    };
    // Up to `want` frames, round robin over the ports, into chunk_ and runs_. Returns how
    // many.
    std::uint32_t receive(std::uint32_t want, DirectRound &r);

    DpdkDevice &dev_;
    PortIo &io_;
    const LiveParams &live_;
    Ports ports_{io_, nullptr, {}};
    PassTxBuffer<Ports> buffer_;
    std::vector<rte_mbuf *> chunk_ = std::vector<rte_mbuf *>(kMaxChunk);
    std::vector<PassRun> runs_ = std::vector<PassRun>(kMaxChunk);
    std::uint32_t nRuns_ = 0;
    bool active_ = false; // poll thread: taking rounds (its start and end are device events)
    std::atomic<std::uint64_t> polls_{0};
};

} // namespace ringlab::dpdk
