// SPDX-License-Identifier: GPL-2.0-or-later
// The rules of a TX buffer, a TX ring that the transmit path flushes to the port itself (a
// DPDK device's, txCompletesOnFlush), written once for every path that holds frames in one:
// the staged path (Transmitter::xmit over the device's queue) and a device's direct pass
// (engine/datapath/pass_tx_buffer.h). tst_tx_paths drives both with the same frames and
// compares every counter and every flush.
//
//   admit:          of a burst, as many frames as there are free places; the rest are dropped
//                   (tx_full), the burst's last frames;
//   due by room:    before a burst is admitted, fewer than tx.free_thresh places free: what
//                   waits is flushed first (a clean, tx_inline_cleans);
//   due by count:   after it, tx.coalesce_frames or more wait: they are flushed now (a clean,
//                   tx_inline_cleans);
//   drain due:      tx.coalesce_usecs after frames began to wait, found by the poll loop's
//                   check at each round (DrainCheck, engine/datapath/drain_check.h).
//
// A flush of an empty buffer is no clean and is not counted.
#pragma once

#include <cstdint>

#include "engine/datapath/live_params.h"

namespace ringlab {

struct TxBufferPolicy {
    std::uint32_t freeThresh = 0;     // tx.free_thresh
    std::uint32_t coalesceFrames = 1; // tx.coalesce_frames (or net_dim's, on the staged path)

    // The tunables in force, without adaptive coalescing.
    static TxBufferPolicy of(const LiveParams &live)
    {
        return {static_cast<std::uint32_t>(live.integer(TunableId::TxFreeThresh)),
                static_cast<std::uint32_t>(live.integer(TunableId::TxCoalesceFrames))};
    }
    static std::uint32_t admit(std::uint32_t n, std::uint32_t free) { return n < free ? n : free; }
    bool dueByRoom(std::uint32_t free) const { return free < freeThresh; }
    bool dueByCount(std::uint32_t pending) const { return pending >= coalesceFrames; }
};

} // namespace ringlab
