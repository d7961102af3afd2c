// SPDX-License-Identifier: GPL-2.0-or-later
// What a DPDK device's poll thread has to report (the direct pass taken or left, PMD power
// management switched): posted as small records into a bounded lock-free queue, worded by
// the reading. The poll thread measures: it neither takes a lock a reader can hold nor
// allocates (docs/architecture.md, the threading rule); should the queue be full (no reading for 64
// events), what does not fit is counted and the next reading says how many were lost.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "engine/datapath/spsc_queue.h"

namespace ringlab::dpdk {

struct PollEvent {
    enum class Kind : std::uint8_t { PassOn, PassOff, PauseOn, PauseOff, PauseFailed };
    Kind kind;
    int lcore = -1;         // PauseOn, PauseFailed
    std::uint16_t port = 0; // PauseFailed: the port index that refused
    int error = 0;          // PauseFailed: the negative errno DPDK returned
};

class PollEvents {
  public:
    // Poll thread.
    void post(const PollEvent &e)
    {
        if (queue_.push(&e, 1) == 0) lost_.fetch_add(1, std::memory_order_relaxed);
    }
    // Any reading thread: the events since the last call, worded; `portNames` by port index.
    void drain(std::vector<std::string> &out, const std::vector<std::string> &portNames);
    static std::string wording(const PollEvent &e, const std::vector<std::string> &portNames);

  private:
    SpscQueue<PollEvent> queue_{64};
    std::atomic<std::uint64_t> lost_{0};
    std::mutex readers_; // one consumer at a time; the poll thread never takes it
};

} // namespace ringlab::dpdk
