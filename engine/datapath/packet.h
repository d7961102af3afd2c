// SPDX-License-Identifier: GPL-2.0-or-later
// A packet buffer and the work item embedded in it (as Zephyr embeds k_work in net_pkt).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ringlab {

struct WorkItem;
using WorkFn = void (*)(WorkItem *);

struct WorkItem {
    WorkFn fn = nullptr;
    void *ctx = nullptr;
    void *arg = nullptr;
    WorkItem *next = nullptr;
    std::atomic<bool> pending{false};
    std::int64_t dueNs = 0; // for delayed work
    // Once fn has returned the work queue does not touch the item again (unless it was
    // queued again meanwhile), so fn may end the item's life, as a kernel work function may.
};

// Stage boundaries a packet's timestamps mark, in order.
enum class Stage : std::uint8_t {
    Arrival,
    Harvest,
    HandoffDone,
    Processed,
    TxPosted,
    TxDone,
    Count
};
inline constexpr std::size_t kStageCount = static_cast<std::size_t>(Stage::Count);

// What the datapath touches per frame (frame, order, length, kind, the arrival and harvest
// stamps) and the stamps of a batch holding a measured frame (hand-off, processed, posted)
// lie in the first cache line: a frame costs the poll and clean threads one line of its
// buffer, not two (the work hand-off's item, below, is the exception it needs). The TX
// completion stamp lies beyond it: a device that times its own completion (the simulated
// NIC's wire time) writes it on measured frames only; a DPDK frame's completion is the TX
// clean's reading, passed to LatencyStats::record, and never stamped. On the EAL's 4 KB
// pages every DPDK buffer sits on a page of its own at the same offset: a second line per
// frame is a second first-level cache set, shared by every frame in flight (8 ways on the
// AMD EPYC VM, 12 on the Intel Xeon one).
struct alignas(64) Buffer {
    std::uint8_t *data = nullptr; // the frame; at least 64 bytes of headroom lie before it
    std::uint64_t seq = 0;        // arrival order, stamped by the device
    std::uint32_t len = 0;        // frame length
    std::uint16_t port = 0;       // ingress port of a multi-port device
    bool probe = false;
    // Measured (latency and stage spans): marked at harvest, every probe and one load frame
    // in latency.sample_every (SampleMarker). Stages skip the clock and the stamps for a batch
    // with no measured frame. Frames that no poll loop marked are measured.
    bool sampled = true;
    std::array<std::int64_t, kStageCount> ts{};
    // Touched only by set-up (room, index) and the work hand-off.
    std::uint32_t room = 0;  // bytes of data
    std::uint32_t index = 0; // in the pool
    WorkItem work;

    std::int64_t &at(Stage s) { return ts[static_cast<std::size_t>(s)]; }
    std::int64_t at(Stage s) const { return ts[static_cast<std::size_t>(s)]; }
    // The TX completion stamp of a device that times its own completion (SimNic::txPost),
    // read only for measured frames (LatencyStats::record without a reading) and so written
    // only on them: it is the one stamp beyond the first cache line.
    void stampDone(std::int64_t ns)
    {
        if (sampled) at(Stage::TxDone) = ns;
    }
};
static_assert(offsetof(Buffer, sampled) < offsetof(Buffer, ts) && offsetof(Buffer, data) < 64,
              "the per-frame fields lead the first cache line");
static_assert(offsetof(Buffer, ts) +
                      sizeof(std::int64_t) * static_cast<std::size_t>(Stage::TxDone) <=
                  64,
              "a frame's per-packet fields and every stamp but the completion fit one cache line");

} // namespace ringlab
