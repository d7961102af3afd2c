// SPDX-License-Identifier: GPL-2.0-or-later
// Event counters. Each engine thread owns one Counters block and is its only writer; the
// sampler reads every block and sums. Increments are plain load + store (no locked RMW).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace ringlab {

enum class CounterId : std::uint8_t {
    Offered,   // frames the device generated (load + probes)
    RxPackets, // harvested from the RX ring
    RxBytes,
    Processed, // finished the processing stage
    TxPackets, // completed on the wire and cleaned
    TxBytes,
    RxMissed,    // arrival found no posted RX buffer
    AllocFail,   // buffer pool empty when refilling
    TxFull,      // TX ring full at transmit, or refused by the port at flush (DPDK)
    HandoffFull, // hand-off queue full
    Polls,
    EmptyPolls,
    Interrupts,
    RefillWakeups, // refill thread woken / refill work queued
    RefillPosted,  // buffers posted to the RX ring
    WorkItems,     // work items executed by the work queue
    TimerArms,
    TimerCancels,
    TimerFires,
    TxCleans,       // TX clean passes
    TxCleanKicks,   // TX NAPI scheduled by an interrupt-marked frame (tx.coalesce_frames)
    TxInlineCleans, // transmit-path passes that reclaimed completions (tx.free_thresh)
    Reordered,      // packets processed out of arrival order
    RxErrors,       // frames the port received in error (DPDK ierrors)
    TxErrors,       // frames the port failed to send (DPDK oerrors)
    HandoffTakes,   // takes from the hand-off: fifo dequeues, per-packet work items run
    DimSteps,       // moderation profile changes by net_dim (irq.adaptive, tx.coalesce_adaptive)
    Count
};
inline constexpr std::size_t kCounterCount = static_cast<std::size_t>(CounterId::Count);

// Counted by the device as frames arrive (offered, missed for want of a descriptor).
inline constexpr CounterId kArrivalCounters[] = {CounterId::Offered, CounterId::RxMissed};

// Every cause of a lost frame, in the order reports list them. "drops" is their sum.
inline constexpr CounterId kDropCauses[] = {CounterId::RxMissed, CounterId::AllocFail,
                                            CounterId::TxFull,   CounterId::HandoffFull,
                                            CounterId::RxErrors, CounterId::TxErrors};
constexpr bool isDropCause(CounterId c)
{
    for (CounterId d : kDropCauses)
        if (d == c) return true;
    return false;
}

std::string_view counterName(CounterId c);
// One line on what it counts (Prometheus HELP, documentation).
std::string_view counterHelp(CounterId c);

struct alignas(64) Counters {
    std::array<std::atomic<std::uint64_t>, kCounterCount> v{};

    void add(CounterId c, std::uint64_t n = 1)
    {
        auto &slot = v[static_cast<std::size_t>(c)];
        slot.store(slot.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    std::uint64_t get(CounterId c) const
    {
        return v[static_cast<std::size_t>(c)].load(std::memory_order_relaxed);
    }
};

// A plain snapshot, for sums and differences.
struct CounterValues {
    std::array<std::uint64_t, kCounterCount> v{};
    std::uint64_t operator[](CounterId c) const { return v[static_cast<std::size_t>(c)]; }
    void addFrom(const Counters &c)
    {
        for (std::size_t k = 0; k < kCounterCount; ++k)
            v[k] += c.v[k].load(std::memory_order_relaxed);
    }
    void addFrom(const CounterValues &c)
    {
        for (std::size_t k = 0; k < kCounterCount; ++k)
            v[k] += c.v[k];
    }
};

} // namespace ringlab
