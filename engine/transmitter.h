// SPDX-License-Identifier: GPL-2.0-or-later
// The TX side: transmit onto the device's TX ring, the coalesce timer (a real timerfd) with
// its arming policy, and the txclean thread that reclaims completed frames on a timer fire
// or when tx.coalesce_frames are pending.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "engine/buffer_source.h"
#include "engine/device.h"
#include "engine/latency_stats.h"
#include "engine/live_params.h"
#include "engine/thread_registry.h"

namespace ringlab {

class Transmitter {
  public:
    // `concurrent`: several threads may transmit at once (per-packet work with several
    // workers); a lock then serialises the TX ring, as the kernel's TX lock does. It is a
    // mutex, not a spinlock: here the holder can be preempted, in the kernel it cannot.
    Transmitter(const LiveParams &live, Device &dev, BufferSource &pool, ThreadRegistry &reg,
                bool concurrent);
    ~Transmitter();
    Transmitter(const Transmitter &) = delete;
    Transmitter &operator=(const Transmitter &) = delete;

    // Transmit context. Frames that do not fit are dropped (tx_full) and freed.
    void xmit(Buffer *const *bufs, std::uint32_t n, Counters &c);
    void stop();
    // After stop(): reclaims what has completed, counting in `c` (the caller's block).
    void flush(Counters &c) { reclaim(c); }
    const LatencyStats &latency() const { return latency_; }

  private:
    void cleanThread(std::stop_token st, ThreadEntry &self);
    // Reclaims completed frames unless another context is doing so; returns how many.
    std::uint32_t reclaim(Counters &c);
    void armTimer(Counters &c);
    void cancelTimer(Counters &c);
    void kick();

    const LiveParams &live_;
    Device &dev_;
    BufferSource &pool_;
    const bool concurrent_;
    const bool flushInline_; // tx.coalesce_frames flushes in the transmit context
    std::mutex lock_;
    std::uint64_t lastSeq_ = 0;
    bool anySeq_ = false;
    int timerFd_ = -1;
    int kickFd_ = -1;
    std::atomic<bool> timerArmed_{false};
    // 0 or 1. An integer for fetch_or: xmit() reads it with a read-modify-write (see there).
    std::atomic<unsigned> cleanScheduled_{0};
    std::atomic_flag reclaiming_ =
        ATOMIC_FLAG_INIT; // one reclaimer at a time: latency has one writer
    LatencyStats latency_;
    EngineThread clean_;
};

} // namespace ringlab
