// SPDX-License-Identifier: GPL-2.0-or-later
// One or two DPDK ethdev ports as the engine's device. The PMD owns RX descriptors and
// refills them from the mempool inside rte_eth_rx_burst; the engine's TX ring is a TX buffer
// flushed to the PMD by tx.coalesce_frames or by the coalesce timer (l2fwd's drain timer is
// the DPDK form of stmmac's). Forwarding follows fwd.mode, as testpmd's engines do.
#pragma once

#include <rte_ethdev.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "drivers/dpdk/direct_pass.h"
#include "drivers/dpdk/eal.h"
#include "drivers/dpdk/mbuf_pool.h"
#include "drivers/dpdk/poll_events.h"
#include "drivers/dpdk/port_io.h"
#include "drivers/dpdk/tx_only.h"
#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/spsc_queue.h"

namespace ringlab::dpdk {

// What a device built on DPDK ports adds around them (the lab: namespaces, a traffic
// client). Hooks run on the control thread while the datapath is quiesced.
class PortAddon {
  public:
    virtual ~PortAddon() = default;
    virtual std::string name() const = 0;
    virtual void afterStart() {} // ports are up
    virtual void beforeStop() {} // ports are about to be stopped for a reconfiguration
    virtual void linkUp() {}     // the datapath runs
    virtual void linkDown() {}   // the run has ended
    virtual void read(DeviceReading &) {}
};

struct DpdkOptions {
    std::vector<std::string> ports; // EAL device arguments, one or two
    std::vector<std::string> eal;   // --eal
};

class DpdkDevice final : public Device {
  public:
    static constexpr std::size_t kMaxPorts = 2;

    // Starts the EAL if needed, attaches the ports and brings them up; throws
    // std::runtime_error with a message naming the port and what failed.
    DpdkDevice(const DpdkOptions &opts, const ParamSet &params, const LiveParams &live);
    ~DpdkDevice() override;

    void setAddon(std::unique_ptr<PortAddon> addon);
    const std::vector<PortDescription> &ports() const { return desc_; }

    DeviceInfo info() const override;
    DeviceFamily family() const override { return DeviceFamily::Dpdk; }
    std::vector<TunableSupport> ownSupport() const override;
    Status check(const ParamSet &ps) const override;
    bool needsRestart(TunableId p) const override;
    BufferSource *buffers() override { return pool_.get(); }

    void reconfigure(const ParamSet &params) override;
    void linkUp(std::int64_t nowNs) override;
    void linkDown() override;

    std::uint32_t rxHarvest(Buffer **out, std::uint32_t max, std::int64_t nowNs,
                            Counters &c) override;
    std::uint32_t rxFree() const override { return 0; } // the PMD refills in rx_burst
    std::uint32_t rxPost(Buffer *const *, std::uint32_t, std::int64_t) override { return 0; }
    std::uint32_t rxPosted() const override { return rxRing_; }
    std::uint32_t rxDrain(Buffer **, std::uint32_t) override { return 0; }

    std::uint32_t txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs) override;
    std::uint32_t txReclaim(Buffer **out, std::uint32_t max, std::int64_t nowNs) override;
    bool txRetire(Buffer *const *bufs, std::uint32_t n, TxRefused &refused) override;
    bool txCompletesOnFlush() const override { return true; }
    // On 4 KB pages with one mbuf per page (rx.pool_memory eal_paged, a PCI port's pool),
    // chunks of 8 and 16 keep a chunk within the first-level TLB (2.4x the forwarding rate of
    // 64 and 256). On a packed pool (thp, eal) or the EAL's hugepages the whole budget moves at
    // once, as testpmd's bursts do.
    Chunks chunks() const override { return chunks_; }
    std::uint32_t txPending() const override { return txq_ ? txq_->size() : 0; }
    std::uint32_t txFree() const override { return txq_ ? txq_->capacity() - txq_->size() : 0; }
    std::uint32_t txDrain(Buffer **out, std::uint32_t max) override;

    DirectPass *directPass() override { return &direct_; }

    std::int64_t nextInterruptNs(std::int64_t, std::int64_t, std::int64_t) override { return -1; }
    IrqWait waitRxInterrupt(std::int64_t deadlineNs) override;
    void wakeRxWait() override;
    Environment portFacts() const override;

    void read(DeviceReading &r) override;

    // Poll thread, at each round (the staged harvest's, the direct pass's): its lcore, and PMD
    // power management as poll.mode says.
    void beginPoll();
    // Poll thread: an event for the next reading (the direct pass taken or left), posted
    // without a lock (PollEvents).
    void notePoll(const PollEvent &e) { pollEvents_.post(e); }

  private:
    struct PortStats {
        std::uint64_t ipackets = 0, opackets = 0, ibytes = 0, obytes = 0;
        std::uint64_t imissed = 0, nombuf = 0, ierrors = 0, oerrors = 0;
        void add(const PortStats &o);
    };
    void open(const DpdkOptions &opts, const ParamSet &params);
    std::uint32_t harvestPorts(Buffer **out, std::uint32_t max, std::int64_t nowNs);
    // Poll thread: turns DPDK's PMD power management on the queues on (for this thread's
    // lcore) or off, with the ports stopped meanwhile, as DPDK requires.
    void switchPowerManagement(bool on);
    void disablePowerManagement();
    void configurePorts(const ParamSet &ps);
    void startPorts();
    void stopPorts();
    PortStats stats(std::size_t k) const;
    bool isVirtual(std::size_t k) const;
    bool allVirtual() const;      // no PCI port among them
    bool poolMayBePacked() const; // every port's PMD copies frames (no IO address read)
    std::string portList() const;
    // Control thread: an event for the next reading (a pool built).
    void note(std::string text);

    // What the ports were last configured with: a restart that changes none of it leaves
    // them running.
    struct PortConfig {
        std::int64_t rxRing = 0, txRing = 0, pool = 0, rxFreeThresh = 0, txFreeThresh = 0,
                     poolMemory = 0;
        friend bool operator==(const PortConfig &, const PortConfig &) = default;
    };
    static PortConfig portConfig(const ParamSet &ps);
    // Frees what the RX queues hold (before the ports stop or go).
    void drainRx();

    const LiveParams &live_;
    PortConfig configured_;
    PortIo io_; // the ports, and the datapath's I/O on them
    // Ports this device put in promiscuous mode (it was off): put back at every stop, so that
    // an af_packet or tap port's kernel interface is left as it was found.
    std::vector<bool> promiscOurs_;
    std::vector<PortDescription> desc_;
    std::vector<bool> attached_;
    std::unique_ptr<MbufPool> pool_;
    std::vector<std::unique_ptr<MbufPool>> retired_; // after a failed reconfiguration
    std::unique_ptr<SpscQueue<Buffer *>> txq_;       // the engine's TX buffer
    std::unique_ptr<PortAddon> addon_;
    TxOnlySource txonly_;
    std::uint32_t rxRing_ = 0;
    std::uint32_t poolSize_ = 0;
    PoolMemory poolMemory_ = PoolMemory::Thp;
    Chunks chunks_{8, 16}; // by the pool's pages (chunks()), set with the pool
    bool started_ = false;
    bool rxIntr_ = false;
    bool irqWoke_ = false;  // poll thread: the last wait ended on an RX interrupt
    int triggerSignal_ = 0; // a PMD that reads only after its queue's signal (net_tap)
    // PMD power management (poll.mode=pmd_pause), owned by the poll thread.
    int pmgmtLcore_ = -1;            // the lcore it is enabled for, or -1
    bool pmgmtFailed_ = false;       // do not retry until poll.mode changes
    std::mutex notesMutex_;          // notes_
    std::vector<std::string> notes_; // the control thread's events for the next reading
    PollEvents pollEvents_;          // the poll thread's
    // Transmit stays out while the poll thread restarts the ports (per burst, not per frame).
    std::atomic<bool> txHold_{false};
    std::atomic<int> txBusy_{0};
    int wakeFd_ = -1;
    int poolGeneration_ = 0;
    DpdkDirectPass direct_{*this, io_, live_};

    // Port statistics survive reconfiguration (which resets some PMDs' counters).
    std::array<PortStats, kMaxPorts> base_{};
    std::array<PortStats, kMaxPorts> last_{};
    std::int64_t lastReadNs_ = 0;
};

} // namespace ringlab::dpdk
