// SPDX-License-Identifier: GPL-2.0-or-later
// The simulated NIC. Its state advances lazily to "now" whenever the driver touches a ring,
// so it has no thread and costs the host nothing of its own: arrivals since the last advance
// fill posted descriptors in order, or are missed when none is posted; transmits complete
// after their wire time at link.mbps; interrupts follow irq.usecs / irq.frames moderation.
#pragma once

#include <atomic>
#include <memory>

#include "drivers/sim/arrivals.h"
#include "engine/datapath/desc_ring.h"
#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"

namespace ringlab::sim {

class SimNic : public Device { // not final: tests derive a device that fails on demand
  public:
    static constexpr std::uint32_t kProbeBytes = 98; // an ICMP echo in Ethernet

    SimNic(const ParamSet &params, const LiveParams &live); // traffic seeded by load.seed

    DeviceInfo info() const override { return {"sim0", "sim", true, true}; }
    Status check(const ParamSet &ps) const override
    {
        if (ps.choice<PollMode>(TunableId::PollMode) == PollMode::PmdPause)
            return Status{"poll.mode: \"pmd_pause\" cannot apply on the simulated NIC: it is "
                          "DPDK's PMD power management (allowed: busy, sleep, tick, interrupt)"};
        return Status::success();
    }
    std::vector<TunableSupport> ownSupport() const override
    {
        return {{TunableId::FwdMode, Support::Ignored, "the simulated NIC reflects every frame"}};
    }
    void reconfigure(const ParamSet &params) override;
    void linkUp(std::int64_t nowNs) override;

    std::uint32_t rxHarvest(Buffer **out, std::uint32_t max, std::int64_t nowNs,
                            Counters &c) override;
    std::uint32_t rxFree() const override { return rx_->freeCount(); }
    std::uint32_t rxPost(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs) override
    {
        return rx_->post(bufs, n, nowNs);
    }
    std::uint32_t rxPosted() const override { return rx_->postedCount(); }
    std::uint32_t rxDrain(Buffer **out, std::uint32_t max) override;

    std::uint32_t txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs) override;
    std::uint32_t txReclaim(Buffer **out, std::uint32_t max, std::int64_t nowNs) override;
    std::uint32_t txPending() const override { return tx_->pending(); }
    std::uint32_t txFree() const override { return tx_->size() - tx_->pending(); }
    std::uint32_t txDrain(Buffer **out, std::uint32_t max) override;

    std::int64_t nextInterruptNs(std::int64_t nowNs, std::int64_t usecs,
                                 std::int64_t frames) override;

  private:
    void followLoad(std::int64_t nowNs); // picks up live changes of the load tunables
    void advance(std::int64_t nowNs, Counters &c);
    void read(DeviceReading &r) override
    {
        r.arrivalsUntilNs = advancedNs_.load(std::memory_order_acquire);
    }

    const LiveParams &live_;
    std::unique_ptr<RxRing> rx_;
    std::unique_ptr<TxRing> tx_;
    ArrivalGenerator load_;
    ArrivalGenerator probes_;
    std::int64_t frameBytes_ = 0;
    std::int64_t probeHz_ = -1;
    std::uint64_t seq_ = 0;
    double txWireFreeNs_ = 0; // when the TX wire is next idle (transmit context)
    std::int64_t started_ = 0;
    // Arrivals are counted up to here (written by the poll thread, read by the sampler).
    alignas(64) std::atomic<std::int64_t> advancedNs_{0};
};

} // namespace ringlab::sim
