// SPDX-License-Identifier: GPL-2.0-or-later
// What the engine needs of a device: burst receive and transmit of buffers, descriptor-level
// refill where the device has it, and interrupts with moderation. The simulated NIC and DPDK
// ethdev ports implement it; the registry in drivers/ creates them by spec.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/common/environment_facts.h"
#include "engine/datapath/buffer_source.h"
#include "engine/datapath/counters.h"
#include "engine/datapath/direct_pass.h"
#include "engine/datapath/histogram.h"
#include "engine/datapath/packet.h"
#include "engine/datapath/thread_stat.h"
#include "engine/datapath/tunables.h"

namespace ringlab {

struct DeviceInfo {
    std::string name;      // e.g. "sim0", "net_null0+net_null1"
    std::string driver;    // e.g. "sim", "net_ring"
    bool descriptorRefill; // rxPost() places buffers in descriptors
    bool interrupts;       // poll.mode=interrupt works
};

// How a device treats a tunable it does not simply honour.
enum class Support {
    Applies, // does what the registry says
    Ignored, // accepted, but has no effect on this device (the reason says why)
    Fixed,   // only the default value (or the values the reason names) can be used
    // This host or driver lacks it (the reason says what is missing): only the default is
    // accepted, and the desktop greys it.
    Unavailable,
};
struct TunableSupport {
    TunableId id;
    Support support;
    std::string reason;
};

// A figure the device measures that has no counter of the engine's: link speed, a traffic
// client's goodput. Recorded under its name like every other metric.
struct DeviceMetric {
    std::string name;
    std::string unit;
    double value = 0;
    bool total = false; // a running total (port packets): summaries take its last value
    // Whether the value can be a running total's: a count that fits 64 bits (not a NaN).
    bool isCount() const { return value >= 0 && value < 1.8e19; }
};

// What the device adds to a sample: cumulative counters it keeps itself (a port's imissed,
// rx_nombuf, errors), round trips measured outside the datapath (ping), and its own metrics.
struct DeviceReading {
    CounterValues counters;
    Histogram::Snapshot rtt;
    bool hasRtt = false;
    std::vector<DeviceMetric> metrics;
    // Threads outside the engine that do its device's work (a NAPI kthread), measured as
    // the engine's own are and shown beside them; not part of the engine's CPU.
    std::vector<ThreadStat> threads;
    std::vector<std::string> events; // happened since the last reading (a client's summary)
    // A device that counts arrivals (kArrivalCounters) only when the driver next touches its
    // ring (the simulated NIC) says up to when its counts go; -1: up to the reading. A stalled
    // poll thread then credits its backlog to the time the frames arrived, not to the sample
    // in which it woke.
    std::int64_t arrivalsUntilNs = -1;
};

// Interrupt mode on a device that waits on a real interrupt source.
enum class IrqWait { Interrupt, Woken, Timeout, Unsupported };

// A device's own support list, completed: a tunable that only another family of devices
// applies (TunableInfo::onlyOn, the kernel groups) is ignored, with the registry's reason,
// unless the list says otherwise.
std::vector<TunableSupport> completeSupport(DeviceFamily family, std::vector<TunableSupport> own);

class Device {
  public:
    virtual ~Device() = default;
    virtual DeviceInfo info() const = 0;

    // What it does with each tunable that it does not simply apply: its own list, and the
    // tunables only other families of devices apply (completeSupport).
    std::vector<TunableSupport> support() const { return completeSupport(family(), ownSupport()); }
    virtual DeviceFamily family() const { return DeviceFamily::Simulated; }
    // Tunables of every device's, or of its family's, that this device treats differently
    // from the registry; the others apply as written.
    virtual std::vector<TunableSupport> ownSupport() const { return {}; }
    // Values this device cannot take, with the reason; called before a start and before a
    // change is applied, so a refusal leaves everything as it was.
    virtual Status check(const ParamSet &) const { return Status::success(); }
    // Control context, after check(), at the start and before a change is published: the
    // settings the device makes outside the engine's own state (a socket's options). A
    // refusal (the kernel's, with the setting, the value and why) leaves the change undone.
    virtual Status apply(const ParamSet &) { return Status::success(); }
    // Whether a change of `p` needs the datapath restarted on this device (port settings
    // that DPDK applies by stop, reconfigure, start), beyond the registry's restart tunables.
    virtual bool needsRestart(TunableId) const { return false; }
    // Buffers the device supplies itself (DPDK: mbufs of its mempool); null: the engine's pool.
    virtual BufferSource *buffers() { return nullptr; }

    // Called while the datapath is quiesced: rebuild rings for the restart tunables.
    virtual void reconfigure(const ParamSet &params) = 0;
    // Link up: traffic starts arriving from `nowNs`. Called once the RX ring is primed.
    virtual void linkUp(std::int64_t nowNs) = 0;
    // The run is ending and the datapath still runs: stop the traffic the device makes itself
    // (the kernel lab's client) and let what it sent be answered, for a bounded time, so that
    // nothing sent is left unanswered by the stop. Control context; may block that long.
    virtual void quiesce() {}
    // The run has ended: the datapath has stopped and every buffer is back. Not called for a
    // restart, which only reconfigures.
    virtual void linkDown() {}

    // RX, poll context: brings the device up to `nowNs` and takes up to `max` filled buffers.
    // Device-side events (offered frames, rx_missed) are counted in `c`.
    virtual std::uint32_t rxHarvest(Buffer **out, std::uint32_t max, std::int64_t nowNs,
                                    Counters &c) = 0;
    // RX, refill context: free descriptors, and posting buffers into them.
    virtual std::uint32_t rxFree() const = 0;
    virtual std::uint32_t rxPost(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs) = 0;
    virtual std::uint32_t rxPosted() const = 0;
    // Buffers still in the RX ring, handed back on teardown.
    virtual std::uint32_t rxDrain(Buffer **out, std::uint32_t max) = 0;

    // TX, transmit context: returns how many were accepted (the rest: ring full).
    virtual std::uint32_t txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs) = 0;
    // TX, clean context: completed buffers, in order.
    virtual std::uint32_t txReclaim(Buffer **out, std::uint32_t max, std::int64_t nowNs) = 0;
    // What a port refused of the frames handed to it in txRetire() (freed, not sent).
    struct TxRefused {
        std::uint32_t frames = 0;
        std::uint64_t bytes = 0;
    };
    // TX, clean context, after txReclaim's buffers are recorded: a device whose transmit
    // completes on the wire only now (a DPDK TX buffer flushed to the PMD) takes them here
    // and returns true, with `refused` what the port would not take: a drop (tx_full), not
    // sent. Their latency is still recorded, as DPDK's latencystats records every frame
    // handed to rte_eth_tx_burst. False: the caller returns them to the buffer source.
    virtual bool txRetire(Buffer *const *, std::uint32_t, TxRefused &refused)
    {
        refused = {};
        return false;
    }
    // True when a transmit completes as soon as txRetire() hands it over (a DPDK TX buffer):
    // tx.coalesce_frames then flushes in the transmit context, as l2fwd's rte_eth_tx_buffer
    // does, instead of waking the clean thread. Its frames' completion is then the clean's
    // reading (Transmitter::reclaim passes it to LatencyStats::record) and the device writes
    // no Stage::TxDone; a device that returns false stamps it (Buffer::stampDone).
    virtual bool txCompletesOnFlush() const { return false; }
    // How many frames move through the stages together. A poll round harvests and hands on
    // up to rxChunk() frames at a time, and a TX clean reclaims up to txChunk() at a time, so
    // that a chunk's buffers are still in the first-level cache and TLB on the next pass
    // (docs/experiments.md, "A chunk at a time"). The simulated NIC's buffers are packed:
    // the whole poll budget at once costs it less.
    struct Chunks {
        std::uint32_t rx = 4096; // poll.budget's maximum: one chunk per round
        std::uint32_t tx = 256;
    };
    virtual Chunks chunks() const { return {}; }
    virtual std::uint32_t txPending() const = 0;
    virtual std::uint32_t txFree() const = 0;
    // Buffers still in the TX ring, handed back on teardown.
    virtual std::uint32_t txDrain(Buffer **out, std::uint32_t max) = 0;

    // A device that can forward a poll round whole when the stages between RX and TX have
    // nothing to do per frame (engine/datapath/direct_pass.h); null: it cannot.
    virtual DirectPass *directPass() { return nullptr; }

    // Interrupt mode: the time the device raises its next RX interrupt under this moderation
    // (rx-usecs, rx-frames), or -1 when no frame is due. Poll context.
    virtual std::int64_t nextInterruptNs(std::int64_t nowNs, std::int64_t usecs,
                                         std::int64_t frames) = 0;
    // Interrupt mode on a real interrupt source: re-enables the RX interrupt and blocks until
    // it fires, wakeRxWait() is called or the deadline (< 0: none) passes.
    virtual IrqWait waitRxInterrupt(std::int64_t) { return IrqWait::Unsupported; }
    virtual void wakeRxWait() {}

    // Sampler context: what the device measures itself.
    virtual void read(DeviceReading &) {}

    // Control context, once its ports are attached: the port.* facts of each real port
    // (engine/common/port_facts.h); none for a simulated device.
    virtual Environment portFacts() const { return {}; }
};

} // namespace ringlab
