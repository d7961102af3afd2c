// SPDX-License-Identifier: GPL-2.0-or-later
// The direct pass: a poll round forwarded whole by the device, from RX burst to TX burst, when
// no stage between them has anything to do per frame (testpmd's io and macswap engines).
// There the stages' bookkeeping, a Buffer written, stamped and read back per frame over
// several passes, costs more than the forwarding itself; the device's pass moves the frames'
// own handles and touches no Buffer, a measured frame (latency.sample_every) kept as its
// arrival time.
//
// What stays as on the staged path: every counter, exact (offered, RX and TX packets and
// bytes, processed, tx_full, the drain's arms, fires and cleans), the TX buffer flushed at
// tx.coalesce_frames and drained tx.coalesce_usecs after frames began to wait, and the
// latency of the measured frames. What differs: the stage spans collapse, a frame's
// whole time from the poll to its flush falling in "TX posted -> completed" (the TX buffer),
// and the reorder check has nothing to check (one thread, each port in order).
#pragma once

#include <cstdint>

#include "engine/datapath/counters.h"
#include "engine/datapath/latency_stats.h"
#include "engine/datapath/live_params.h"

namespace ringlab {

// One round of the pass, and what it reports back.
struct DirectRound {
    Counters &c;           // the poll thread's block
    SampleMarker &marker;  // which frames are measured, counted across rounds
    LatencyStats &latency; // the pass's measured frames (the poll loop's: one writer)
    std::int64_t nowNs;    // the round's reading: each frame's arrival
    std::uint32_t budget;
    std::uint64_t bytes = 0; // received this round
};

class DirectPass {
  public:
    virtual ~DirectPass() = default;
    // Whether the device forwards in the fwd.mode in force (not txonly, rxonly).
    virtual bool forwards(const LiveParams &live) const = 0;
    // Poll thread: up to r.budget frames received, forwarded and counted; returns how many
    // were received. The first round after the transmitter handed the TX queues over
    // (Transmitter::handOver()) or after flush() starts the pass.
    virtual std::uint32_t round(DirectRound &r) = 0;
    // Poll thread: what waits in its TX buffer goes out now; `leaving`: the stages take the
    // frames from the next round (else the poll thread stops).
    virtual void flush(DirectRound &r, bool leaving) = 0;
};

// Whether the pass is allowed (fwd.direct_pass) and, under the settings in force, no stage between
// RX and TX does anything per frame (every tunable of the registry's frameWorkTunables() at its
// noFrameWorkAt: no processing cost, copy or header, no per-clean cost, no adaptive coalescing)
// and the poll thread drains the TX side itself (a poll loop that does not sleep).
// The hand-off (direct) is a restart setting, checked when the datapath is built. Read per round.
bool stagesPassFramesThrough(const LiveParams &live);

} // namespace ringlab
