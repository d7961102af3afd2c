// SPDX-License-Identifier: GPL-2.0-or-later
// The datapath's I/O on a DPDK device's ports, written once for both ways frames cross it:
// the staged path (DpdkDevice's harvest and TX retire) and the direct pass
// (drivers/dpdk/direct_pass.h). Receive round robin over the ports, a burst at a time, so that
// a busy port cannot starve the other; transmit with bounded retries, what a port refuses
// freed and counted; where fwd.mode sends a frame; macswap's header rewrite; the frames'
// sequence numbers.
//
// The port list is set on the control thread while the datapath is stopped; everything else
// is the poll thread's (transmit: whichever context flushes the TX buffer, one at a time).
#pragma once

#include <rte_ethdev.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/datapath/device.h"
#include "engine/datapath/tunables.h"

namespace ringlab::dpdk {

class PortIo {
  public:
    static constexpr std::uint16_t kBurst = 64; // frames per rte_eth_rx_burst / tx_burst call

    // Control thread, datapath stopped.
    void add(std::uint16_t portId) { ids_.push_back(portId); }
    void clear() { ids_.clear(); }
    const std::vector<std::uint16_t> &ids() const { return ids_; }
    std::size_t size() const { return ids_.size(); }

    // Up to `max` frames, round robin over the ports starting where the last poll stopped, up
    // to kBurst per rte_eth_rx_burst: each burst goes where `into(received so far)` says, and
    // `took(port index, frames, k, received before)` has it. Returns how many; their sequence
    // numbers are taken (takeSeq()) by `took`.
    template <class Into, class Took>
    std::uint32_t receive(std::uint32_t max, Into &&into, Took &&took)
    {
        const auto n = static_cast<std::uint16_t>(ids_.size());
        std::uint32_t got = 0;
        for (std::uint16_t j = 0; j < n && got < max; ++j) {
            const auto idx = static_cast<std::uint16_t>((nextRx_ + j) % n);
            while (got < max) {
                const auto want =
                    static_cast<std::uint16_t>(std::min<std::uint32_t>(kBurst, max - got));
                rte_mbuf **m = into(got);
                const std::uint16_t k = rte_eth_rx_burst(ids_[idx], 0, m, want);
                if (k == 0) break;
                took(idx, m, k, got);
                got += k;
                if (k < want) break;
            }
        }
        nextRx_ = static_cast<std::uint16_t>((nextRx_ + 1) % n);
        return got;
    }
    // The sequence number of the first of the next `n` frames received; moves past them.
    std::uint64_t takeSeq(std::uint32_t n)
    {
        const std::uint64_t first = seq_;
        seq_ += n;
        return first;
    }

    // Up to kBurst frames out of port index `idx`, retried a bounded number of times (as
    // testpmd's --burst-tx-retry-num); what the port refuses is freed and added to `refused`.
    void transmit(std::uint16_t idx, rte_mbuf **m, std::uint16_t k, Device::TxRefused &refused);
    // Any number of frames out of port index `idx`, kBurst at a time.
    void transmitAll(std::uint16_t idx, rte_mbuf **m, std::uint32_t k, Device::TxRefused &refused);

    // fwd.mode's egress: io crosses to the other port (one port: back out of it), the others
    // go back out of the port they came in on.
    static std::uint16_t egressOf(FwdMode mode, std::uint16_t ingress, std::size_t ports)
    {
        return mode == FwdMode::Io && ports > 1 ? static_cast<std::uint16_t>(ingress ^ 1) : ingress;
    }
    // macswap: the frame's source and destination MAC exchanged, if it is long enough to have
    // them.
    static void swapMacs(std::uint8_t *frame, std::uint32_t len);

  private:
    std::vector<std::uint16_t> ids_;
    std::uint16_t nextRx_ = 0;
    std::uint64_t seq_ = 0;
};

} // namespace ringlab::dpdk
