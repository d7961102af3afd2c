// SPDX-License-Identifier: GPL-2.0-or-later
// What the engine needs of a device: burst receive and transmit of buffers, descriptor-level
// refill where the device has it, and interrupts with moderation. The simulated NIC and DPDK
// ethdev ports implement it.
#pragma once

#include <cstdint>
#include <string>

#include "engine/counters.h"
#include "engine/packet.h"
#include "engine/tunables.h"

namespace ringlab {

struct DeviceInfo {
    std::string name;      // e.g. "sim0"
    std::string driver;    // e.g. "sim", "net_ring"
    bool descriptorRefill; // rxPost() places buffers in descriptors
    bool interrupts;       // nextInterruptNs() is meaningful
};

class Device {
  public:
    virtual ~Device() = default;
    virtual DeviceInfo info() const = 0;

    // Called while the datapath is quiesced: rebuild rings for the restart tunables.
    virtual void reconfigure(const ParamSet &params) = 0;
    // Link up: traffic starts arriving from `nowNs`. Called once the RX ring is primed.
    virtual void linkUp(std::int64_t nowNs) = 0;

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
    virtual std::uint32_t txPending() const = 0;
    virtual std::uint32_t txFree() const = 0;
    // Buffers still in the TX ring, handed back on teardown.
    virtual std::uint32_t txDrain(Buffer **out, std::uint32_t max) = 0;

    // Interrupt mode: the time the device raises its next RX interrupt given moderation, or
    // -1 when no frame is due. Poll context.
    virtual std::int64_t nextInterruptNs(std::int64_t nowNs) = 0;
};

} // namespace ringlab
