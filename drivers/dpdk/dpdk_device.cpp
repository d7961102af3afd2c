// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/dpdk_device.h"

#include "engine/common/words.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_power_pmd_mgmt.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "engine/datapath/clock.h"

namespace ringlab::dpdk {

namespace {
// The device whose poll thread this is (set at each harvest): that thread restarts the
// ports itself, so its own transmits need no guard against a restart.
thread_local const void *pollingDevice = nullptr;

[[noreturn]] void fail(const std::string &what)
{
    throw std::runtime_error(what);
}

} // namespace

void DpdkDevice::PortStats::add(const PortStats &o)
{
    ipackets += o.ipackets;
    opackets += o.opackets;
    ibytes += o.ibytes;
    obytes += o.obytes;
    imissed += o.imissed;
    nombuf += o.nombuf;
    ierrors += o.ierrors;
    oerrors += o.oerrors;
}

DpdkDevice::DpdkDevice(const DpdkOptions &opts, const ParamSet &params, const LiveParams &live)
    : live_(live)
{
    try {
        open(opts, params);
    } catch (...) {
        // Whatever was attached goes: the same names must work on the next try.
        for (auto id : io_.ids())
            Eal::detach(id);
        io_.clear();
        if (wakeFd_ >= 0) close(wakeFd_);
        wakeFd_ = -1;
        throw;
    }
}

void DpdkDevice::open(const DpdkOptions &opts, const ParamSet &params)
{
    if (opts.ports.empty() || opts.ports.size() > kMaxPorts)
        fail("a DPDK device has one or two ports (dpdk:PORT or dpdk:PORT+PORT), not " +
             std::to_string(opts.ports.size()));
    std::vector<std::string> pci;
    for (const auto &p : opts.ports)
        if (isPciAddress(p.substr(0, p.find(',')))) pci.push_back(p.substr(0, p.find(',')));
    if (auto st = Eal::init(pci, opts.eal); !st.ok()) fail(st.error);
    for (const auto &p : opts.ports) {
        std::uint16_t id = 0;
        if (auto st = Eal::attach(p, id); !st.ok()) fail(st.error); // the destructor detaches
        io_.add(id);
        attached_.push_back(true);
        promiscOurs_.push_back(false);
        desc_.push_back(Eal::describe(id));
    }
    wakeFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    reconfigure(params);
}

DpdkDevice::~DpdkDevice()
{
    disablePowerManagement();
    if (addon_ && started_) addon_->beforeStop();
    addon_.reset();
    if (started_) drainRx();
    for (std::size_t k = 0; k < io_.size(); ++k) {
        if (promiscOurs_[k]) rte_eth_promiscuous_disable(io_.ids()[k]); // as it was found
        Eal::detach(io_.ids()[k]);
    }
    txq_.reset();
    pool_.reset(); // after the ports: their queues held mbufs of it
    retired_.clear();
    if (wakeFd_ >= 0) close(wakeFd_);
}

void DpdkDevice::setAddon(std::unique_ptr<PortAddon> addon)
{
    addon_ = std::move(addon);
    if (addon_ && started_) addon_->afterStart();
}

std::string DpdkDevice::portList() const
{
    std::vector<std::string> names;
    for (const auto &d : desc_)
        names.push_back(d.name);
    return joinWords(names, "+");
}

DeviceInfo DpdkDevice::info() const
{
    std::vector<std::string> drivers;
    for (const auto &d : desc_)
        if (std::find(drivers.begin(), drivers.end(), d.driver) == drivers.end())
            drivers.push_back(d.driver);
    return {addon_ ? addon_->name() : portList(), joinWords(drivers, "+"), false, rxIntr_};
}

Environment DpdkDevice::portFacts() const
{
    Environment env;
    for (const auto id : io_.ids())
        Eal::describeFacts(id, env);
    return env;
}

bool DpdkDevice::isVirtual(std::size_t k) const
{
    return !isPciAddress(desc_[k].name);
}

bool DpdkDevice::allVirtual() const
{
    for (std::size_t k = 0; k < desc_.size(); ++k)
        if (!isVirtual(k)) return false;
    return true;
}

namespace {
// PMDs that move frames in and out of mbufs with the CPU (no device reads an mbuf's IO
// address), so their pool may be packed (rx.pool_memory thp, eal: RTE_MEMPOOL_F_NO_IOVA_CONTIG,
// objects without an IO address). Any other port, a PCI NIC or a vdev over one (bonding,
// failsafe) or one a device reads from (af_xdp's zero copy), gets DPDK's layout.
constexpr std::string_view kCopyingPmds[] = {"net_null", "net_ring", "net_tap", "net_af_packet",
                                             "net_pcap"};
} // namespace

bool DpdkDevice::poolMayBePacked() const
{
    for (const auto &d : desc_)
        if (std::find(std::begin(kCopyingPmds), std::end(kCopyingPmds), d.driver) ==
            std::end(kCopyingPmds))
            return false;
    return !desc_.empty();
}

std::vector<TunableSupport> DpdkDevice::ownSupport() const
{
    const std::string drv = desc_.empty() ? "the PMD" : desc_[0].driver;
    const bool virt = allVirtual();
    std::vector<TunableSupport> s;
    const std::string loadWhy = "traffic comes from the port; load.* shapes what the engine "
                                "generates only with fwd.mode=txonly";
    for (TunableId p : {TunableId::LoadRatePps, TunableId::LoadFrameBytes, TunableId::LoadPattern,
                        TunableId::LoadBurstOnUs, TunableId::LoadBurstOffUs})
        s.push_back({p, Support::Ignored, loadWhy});
    s.push_back({TunableId::LinkMbps, Support::Ignored,
                 "the link speed is the port's (" +
                     std::to_string(desc_.empty() ? 0 : desc_[0].speedMbps) + " Mbit/s)"});
    s.push_back({TunableId::LoadSeed, Support::Ignored, "real traffic has no seed"});
    s.push_back({TunableId::ProbeRateHz, Support::Ignored,
                 "no synthetic probes on real ports; the lab measures round trips with ping"});
    for (TunableId p : {TunableId::IrqUsecs, TunableId::IrqFrames, TunableId::IrqAdaptive})
        s.push_back({p, Support::Ignored,
                     "interrupt moderation is the NIC's own (ethtool -C); " + drv +
                         " has no moderation knob through ethdev"});
    s.push_back({TunableId::RefillContext, Support::Fixed,
                 "only inline: a DPDK PMD refills its RX ring from the mempool inside "
                 "rte_eth_rx_burst"});
    for (TunableId p : {TunableId::RefillBatch, TunableId::RefillRetryMs})
        s.push_back({p, Support::Ignored,
                     "the PMD refills inside rte_eth_rx_burst; refill.threshold is its "
                     "rx_free_thresh"});
    if (rte_eal_has_hugepages())
        s.push_back({TunableId::RxPoolMemory, Support::Ignored,
                     "the EAL has hugepages: the mbuf pool is on them"});
    else if (!poolMayBePacked())
        s.push_back({TunableId::RxPoolMemory, Support::Ignored,
                     drv +
                         " may have a device read its mbufs by IO address: the pool is the "
                         "EAL's memory in DPDK's layout (eal_paged); thp and eal need a PMD "
                         "that copies frames (" +
                         joinWords(std::vector<std::string>(std::begin(kCopyingPmds),
                                                            std::end(kCopyingPmds)),
                                   ", ") +
                         ")"});
    if (virt) {
        s.push_back({TunableId::RefillThreshold, Support::Ignored,
                     "applied as rx_free_thresh, which " + drv + " ignores (virtual PMDs do)"});
        s.push_back({TunableId::TxFreeThresh, Support::Ignored,
                     "applied as tx_free_thresh, which " + drv + " ignores (virtual PMDs do)"});
        s.push_back({TunableId::RxRingSize, Support::Ignored,
                     "applied as nb_rx_desc, which " + drv +
                         " ignores (it has no descriptor "
                         "ring)"});
    }
    if (!rxIntr_)
        s.push_back({TunableId::PollMode, Support::Fixed,
                     drv + " has no RX interrupts: busy, sleep, tick and pmd_pause only "
                           "(interrupt mode needs net_tap, virtio or a PCI NIC)"});
    return s;
}

Status DpdkDevice::check(const ParamSet &ps) const
{
    const std::string on = " on dpdk:" + portList();
    if (ps.choice<RefillContext>(TunableId::RefillContext) != RefillContext::Inline)
        return Status{"refill.context: \"" + ps.text(TunableId::RefillContext) + "\" cannot apply" +
                      on +
                      ": a DPDK PMD refills its RX ring inside rte_eth_rx_burst (allowed: inline)"};
    if (ps.choice<PollMode>(TunableId::PollMode) == PollMode::Interrupt && !rxIntr_)
        return Status{"poll.mode: \"interrupt\" cannot apply" + on + ": " +
                      (desc_.empty() ? std::string("the port") : desc_[0].driver) +
                      " has no RX interrupts (allowed: busy, sleep, tick, pmd_pause)"};
    if (ps.choice<PollMode>(TunableId::PollMode) == PollMode::PmdPause && addon_)
        return Status{"poll.mode: \"pmd_pause\" cannot apply on " + addon_->name() +
                      ": enabling DPDK's power management restarts the ports, and a TAP port "
                      "cannot restart while its interface is in a namespace (allowed: busy, "
                      "sleep, tick, interrupt)"};
    if (ps.choice<FwdMode>(TunableId::FwdMode) == FwdMode::Txonly &&
        ps.integer(TunableId::LoadFrameBytes) > 1518)
        return Status{"load.frame_bytes: " + ps.text(TunableId::LoadFrameBytes) +
                      " is too large for fwd.mode=txonly" + on +
                      " (allowed: 64..1518 bytes, one mbuf)"};
    for (const auto &d : desc_) {
        if (d.maxRxDesc && ps.integer(TunableId::RxRingSize) > d.maxRxDesc)
            return Status{"rx.ring_size: " + ps.text(TunableId::RxRingSize) + " is more than " +
                          d.name + " allows (allowed: up to " + std::to_string(d.maxRxDesc) + ")"};
        if (d.maxTxDesc && ps.integer(TunableId::TxRingSize) > d.maxTxDesc)
            return Status{"tx.ring_size: " + ps.text(TunableId::TxRingSize) + " is more than " +
                          d.name + " allows (allowed: up to " + std::to_string(d.maxTxDesc) + ")"};
    }
    return Status::success();
}

bool DpdkDevice::needsRestart(TunableId p) const
{
    // Queue settings: DPDK takes them at queue setup, with the port stopped.
    return p == TunableId::RefillThreshold || p == TunableId::TxFreeThresh;
}

DpdkDevice::PortStats DpdkDevice::stats(std::size_t k) const
{
    PortStats s;
    rte_eth_stats st{};
    if (rte_eth_stats_get(io_.ids()[k], &st) != 0) return s;
    s.ipackets = st.ipackets;
    s.opackets = st.opackets;
    s.ibytes = st.ibytes;
    s.obytes = st.obytes;
    s.imissed = st.imissed;
    s.nombuf = st.rx_nombuf;
    s.ierrors = st.ierrors;
    s.oerrors = st.oerrors;
    return s;
}

void DpdkDevice::drainRx()
{
    // What the RX queues still hold goes back to its pool before the ports stop: a ring PMD
    // (net_ring) keeps its ring across a restart and a detach, and would hand the next
    // configuration, or the next device of that name, mbufs of a pool freed meanwhile. Bounded:
    // net_null answers every poll.
    rte_mbuf *m[PortIo::kBurst];
    for (auto id : io_.ids())
        for (std::uint32_t taken = 0; taken < poolSize_ + 2 * PortIo::kBurst;) {
            const std::uint16_t n = rte_eth_rx_burst(id, 0, m, PortIo::kBurst);
            if (n == 0) break;
            rte_pktmbuf_free_bulk(m, n);
            taken += n;
        }
}

void DpdkDevice::stopPorts()
{
    if (!started_) return;
    if (addon_) addon_->beforeStop();
    drainRx();
    for (std::size_t k = 0; k < io_.size(); ++k) {
        base_[k].add(stats(k)); // some PMDs reset their counters at queue setup
        if (promiscOurs_[k] && rte_eth_promiscuous_disable(io_.ids()[k]) == 0)
            promiscOurs_[k] = false;
        rte_eth_dev_stop(io_.ids()[k]);
    }
    started_ = false;
}

void DpdkDevice::configurePorts(const ParamSet &ps)
{
    rxRing_ = static_cast<std::uint32_t>(ps.integer(TunableId::RxRingSize));
    const auto txRing = static_cast<std::uint16_t>(ps.integer(TunableId::TxRingSize));
    bool allIntr = true;
    for (std::size_t k = 0; k < io_.size(); ++k) {
        const std::uint16_t id = io_.ids()[k];
        const std::string what = "port " + desc_[k].name + " (" + desc_[k].driver + "): ";
        rte_eth_dev_info di{};
        if (int rc = rte_eth_dev_info_get(id, &di); rc != 0)
            fail(what + "rte_eth_dev_info_get: " + rte_strerror(-rc));
        // Ask for RX interrupts; a PMD without them fails to start with it, and then runs
        // without.
        bool intr = false;
        for (int attempt = 0; attempt < 2; ++attempt) {
            const bool wantIntr = attempt == 0;
            rte_eth_conf conf{};
            conf.intr_conf.rxq = wantIntr ? 1 : 0;
            if (int rc = rte_eth_dev_configure(id, 1, 1, &conf); rc != 0) {
                if (wantIntr) continue;
                fail(what + "rte_eth_dev_configure: " + rte_strerror(-rc) + " [" +
                     Eal::recentLog() + "]");
            }
            rte_eth_rxconf rxc = di.default_rxconf;
            rxc.rx_free_thresh = static_cast<std::uint16_t>(ps.integer(TunableId::RefillThreshold));
            rte_eth_txconf txc = di.default_txconf;
            txc.tx_free_thresh = static_cast<std::uint16_t>(ps.integer(TunableId::TxFreeThresh));
            const int socket = rte_eth_dev_socket_id(id) < 0 ? 0 : rte_eth_dev_socket_id(id);
            if (int rc =
                    rte_eth_rx_queue_setup(id, 0, static_cast<std::uint16_t>(rxRing_),
                                           static_cast<unsigned>(socket), &rxc, pool_->mempool());
                rc != 0) {
                // Hardware PMDs check the thresholds against the ring: say which.
                fail(what + "RX queue with nb_rx_desc=" + std::to_string(rxRing_) +
                     ", rx_free_thresh=" + ps.text(TunableId::RefillThreshold) + ": " +
                     rte_strerror(-rc) + " [" + Eal::recentLog() + "]");
            }
            if (int rc = rte_eth_tx_queue_setup(id, 0, txRing, static_cast<unsigned>(socket), &txc);
                rc != 0)
                fail(what + "TX queue with nb_tx_desc=" + std::to_string(txRing) +
                     ", tx_free_thresh=" + ps.text(TunableId::TxFreeThresh) + ": " +
                     rte_strerror(-rc) + " [" + Eal::recentLog() + "]");
            if (int rc = rte_eth_dev_start(id); rc != 0) {
                if (wantIntr) continue;
                fail(what + "rte_eth_dev_start: " + rte_strerror(-rc) + " [" + Eal::recentLog() +
                     "]");
            }
            intr = wantIntr && rte_eth_dev_rx_intr_ctl_q_get_fd(id, 0) >= 0;
            break;
        }
        // A bridge forwards frames for any address; what was off is put back off at the stop.
        if (rte_eth_promiscuous_get(id) == 0 && rte_eth_promiscuous_enable(id) == 0)
            promiscOurs_[k] = true;
        rte_eth_stats_reset(id);
        desc_[k] = Eal::describe(id);
        desc_[k].rxInterrupts = intr;
        if (intr) {
            const int sig = fcntl(rte_eth_dev_rx_intr_ctl_q_get_fd(id, 0), F_GETSIG);
            struct sigaction sa {};
            if (sig > 0 && sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL &&
                sa.sa_handler != SIG_IGN)
                triggerSignal_ = sig;
        }
        allIntr &= intr;
    }
    rxIntr_ = allIntr;
    started_ = true;
}

DpdkDevice::PortConfig DpdkDevice::portConfig(const ParamSet &ps)
{
    return {ps.integer(TunableId::RxRingSize),    ps.integer(TunableId::TxRingSize),
            ps.integer(TunableId::RxPoolBuffers), ps.integer(TunableId::RefillThreshold),
            ps.integer(TunableId::TxFreeThresh),  ps.integer(TunableId::RxPoolMemory)};
}

void DpdkDevice::reconfigure(const ParamSet &ps)
{
    const auto txRing = static_cast<std::uint32_t>(ps.integer(TunableId::TxRingSize));
    txq_ = std::make_unique<SpscQueue<Buffer *>>(txRing);
    direct_.resize(txRing);
    if (started_ && portConfig(ps) == configured_) return;
    stopPorts();
    const auto poolSize = static_cast<std::uint32_t>(ps.integer(TunableId::RxPoolBuffers));
    // A device that reads mbufs by IO address needs DPDK's layout (each object IO-contiguous).
    const auto memory =
        poolMayBePacked() ? ps.choice<PoolMemory>(TunableId::RxPoolMemory) : PoolMemory::EalPaged;
    std::unique_ptr<MbufPool> old;
    if (!pool_ || poolSize != poolSize_ || memory != poolMemory_) {
        // The new pool first: if DPDK cannot give it, nothing has changed.
        auto fresh = std::make_unique<MbufPool>("ringlab" + std::to_string(io_.ids()[0]) + "g" +
                                                    std::to_string(poolGeneration_++),
                                                poolSize, memory);
        old = std::move(pool_);
        pool_ = std::move(fresh);
        poolSize_ = poolSize;
        poolMemory_ = memory;
        chunks_ = pool_->packed() || pool_->onHugePages() ? Chunks{} : Chunks{8, 16};
        note(pool_->describe());
    }
    try {
        configurePorts(ps); // the queues now hold the new pool's mbufs; the old pool is free
    } catch (...) {
        // A queue may still hold the old pool's mbufs: keep it until the ports close.
        if (old) retired_.push_back(std::move(old));
        throw;
    }
    configured_ = portConfig(ps);
    old.reset();
    if (addon_) addon_->afterStart();
}

void DpdkDevice::linkUp(std::int64_t nowNs)
{
    if (!started_) {
        for (std::size_t k = 0; k < io_.size(); ++k)
            rte_eth_dev_start(io_.ids()[k]);
        started_ = true;
        if (addon_) addon_->afterStart();
    }
    txonly_.start(nowNs);
    if (addon_) addon_->linkUp();
}

void DpdkDevice::linkDown()
{
    // Ports stay up after a run: stopping a TAP port whose interface sits in a namespace
    // would need the interface back first; the destructor stops them.
    if (addon_) addon_->linkDown();
}

void DpdkDevice::beginPoll()
{
    Eal::registerThread();
    pollingDevice = this;
    const bool wantPause = live_.choice<PollMode>(TunableId::PollMode) == PollMode::PmdPause;
    if (!wantPause) pmgmtFailed_ = false;
    if (wantPause ? !pmgmtFailed_ && pmgmtLcore_ != static_cast<int>(rte_lcore_id())
                  : pmgmtLcore_ >= 0)
        switchPowerManagement(wantPause);
}

std::uint32_t DpdkDevice::rxHarvest(Buffer **out, std::uint32_t max, std::int64_t nowNs,
                                    Counters &c)
{
    beginPoll();
    const auto n = static_cast<std::uint16_t>(io_.size());
    if (live_.choice<FwdMode>(TunableId::FwdMode) == FwdMode::Txonly)
        return txonly_.generate(out, max, nowNs, *pool_, n, live_, c);

    std::uint32_t got = harvestPorts(out, max, nowNs);
    if (got == 0 && irqWoke_ && triggerSignal_ > 0) {
        // net_tap reads its queue only after its signal handler (F_SETSIG on the queue
        // descriptor) has run; woken by the descriptor before the signal was delivered, raise
        // it here rather than spin on poll().
        pthread_kill(pthread_self(), triggerSignal_);
        got = harvestPorts(out, max, nowNs);
    }
    irqWoke_ = false;
    if (got) c.add(CounterId::Offered, got);
    return got;
}

std::uint32_t DpdkDevice::harvestPorts(Buffer **out, std::uint32_t max, std::int64_t nowNs)
{
    rte_mbuf *m[PortIo::kBurst];
    return io_.receive(
        max, [&m](std::uint32_t) { return m; },
        [&](std::uint16_t idx, rte_mbuf **got, std::uint16_t k, std::uint32_t at) {
            for (std::uint16_t i = 0; i < k; ++i) {
                Buffer *b = wrap(got[i], idx);
                b->seq = io_.takeSeq(1);
                // No hardware timestamp: arrival is the poll. Every later stage stamps its own
                // but the completion, which is the clean's reading (txCompletesOnFlush).
                b->at(Stage::Arrival) = nowNs;
                out[at + i] = b;
            }
        });
}

std::uint32_t DpdkDevice::txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t)
{
    const auto mode = live_.choice<FwdMode>(TunableId::FwdMode);
    if (mode == FwdMode::Rxonly) {
        // Received and consumed: nothing goes back out.
        pool_->release(bufs, n);
        return n;
    }
    if (mode == FwdMode::Io && io_.size() > 1) {
        // The ingress index becomes the egress one.
        for (std::uint32_t k = 0; k < n; ++k)
            bufs[k]->port = PortIo::egressOf(mode, bufs[k]->port, io_.size());
    } else if (mode == FwdMode::Macswap) {
        for (std::uint32_t k = 0; k < n; ++k)
            PortIo::swapMacs(bufs[k]->data, bufs[k]->len);
    }
    // The queue admits as TxBufferPolicy::admit() says (as many as it has room for), from
    // the one reading of its ends the push makes anyway.
    return txq_->push(bufs, n);
}

std::uint32_t DpdkDevice::txReclaim(Buffer **out, std::uint32_t max, std::int64_t)
{
    // Completed when handed to the PMD, now: the clean records them with its reading
    // (txCompletesOnFlush), no TxDone stamp per frame.
    return txq_->pop(out, max);
}

bool DpdkDevice::txRetire(Buffer *const *bufs, std::uint32_t n, TxRefused &refused)
{
    Eal::registerThread();
    // Another thread (the timer's) keeps out of the way while the poll thread restarts the
    // ports (a few milliseconds, rare). Two atomic read-modify-writes a burst, so the poll
    // thread, which cannot meet its own restart, skips them.
    const bool guarded = pollingDevice != this;
    if (guarded) {
        txBusy_.fetch_add(1, std::memory_order_acq_rel);
        while (txHold_.load(std::memory_order_acquire)) {
            txBusy_.fetch_sub(1, std::memory_order_acq_rel);
            while (txHold_.load(std::memory_order_acquire))
                rte_pause();
            txBusy_.fetch_add(1, std::memory_order_acq_rel);
        }
    }
    refused = {};
    rte_mbuf *m[PortIo::kBurst];
    std::uint32_t from = 0;
    while (from < n) {
        // A run of frames for one port, in order.
        const std::uint16_t idx = bufs[from]->port;
        std::uint16_t k = 0;
        while (from + k < n && k < PortIo::kBurst && bufs[from + k]->port == idx) {
            rte_mbuf *mb = mbufOf(bufs[from + k]);
            mb->data_len = static_cast<std::uint16_t>(bufs[from + k]->len);
            mb->pkt_len = bufs[from + k]->len;
            m[k] = mb;
            ++k;
        }
        io_.transmit(idx, m, k, refused);
        from += k;
    }
    if (guarded) txBusy_.fetch_sub(1, std::memory_order_release);
    return true;
}

void DpdkDevice::switchPowerManagement(bool on)
{
    txHold_.store(true, std::memory_order_seq_cst);
    while (txBusy_.load(std::memory_order_seq_cst) != 0)
        rte_pause();
    for (auto id : io_.ids())
        rte_eth_dev_stop(id); // DPDK enables and disables it only on a stopped queue
    if (pmgmtLcore_ >= 0)
        for (auto id : io_.ids())
            rte_power_ethdev_pmgmt_queue_disable(static_cast<unsigned>(pmgmtLcore_), id, 0);
    pmgmtLcore_ = -1;
    PollEvent event{PollEvent::Kind::PauseOff};
    if (on) {
        const unsigned lcore = rte_lcore_id();
        std::size_t done = 0;
        int rc = 0;
        for (; done < io_.size(); ++done)
            if ((rc = rte_power_ethdev_pmgmt_queue_enable(lcore, io_.ids()[done], 0,
                                                          RTE_POWER_MGMT_TYPE_PAUSE)) != 0)
                break;
        if (done == io_.size()) {
            pmgmtLcore_ = static_cast<int>(lcore);
            event = {PollEvent::Kind::PauseOn, pmgmtLcore_};
        } else {
            for (std::size_t k = 0; k < done; ++k)
                rte_power_ethdev_pmgmt_queue_disable(lcore, io_.ids()[k], 0);
            pmgmtFailed_ = true;
            event = {PollEvent::Kind::PauseFailed, static_cast<int>(lcore),
                     static_cast<std::uint16_t>(done), rc};
        }
    }
    for (auto id : io_.ids())
        rte_eth_dev_start(id);
    txHold_.store(false, std::memory_order_seq_cst);
    pollEvents_.post(event);
}

void DpdkDevice::note(std::string text)
{
    std::lock_guard lock(notesMutex_);
    notes_.push_back(std::move(text));
}

void DpdkDevice::disablePowerManagement()
{
    if (pmgmtLcore_ < 0) return;
    for (auto id : io_.ids())
        rte_eth_dev_stop(id);
    for (auto id : io_.ids())
        rte_power_ethdev_pmgmt_queue_disable(static_cast<unsigned>(pmgmtLcore_), id, 0);
    pmgmtLcore_ = -1;
    started_ = false;
}

std::uint32_t DpdkDevice::txDrain(Buffer **out, std::uint32_t max)
{
    return txq_ ? txq_->pop(out, max) : 0;
}

IrqWait DpdkDevice::waitRxInterrupt(std::int64_t deadlineNs)
{
    if (!rxIntr_) return IrqWait::Unsupported;
    pollfd fds[kMaxPorts + 1];
    nfds_t nfds = 0;
    for (auto id : io_.ids()) {
        // A PMD whose queue descriptor is always armed (TAP) answers -ENOTSUP: fine.
        rte_eth_dev_rx_intr_enable(id, 0);
        fds[nfds++] = {rte_eth_dev_rx_intr_ctl_q_get_fd(id, 0), POLLIN, 0};
    }
    fds[nfds++] = {wakeFd_, POLLIN, 0};
    int timeoutMs = -1;
    if (deadlineNs >= 0)
        timeoutMs = static_cast<int>(std::max<std::int64_t>(0, (deadlineNs - nowNs()) / 1'000'000));
    const int rc = ::poll(fds, nfds, timeoutMs);
    for (auto id : io_.ids())
        rte_eth_dev_rx_intr_disable(id, 0);
    if (rc <= 0) return IrqWait::Timeout;
    if (fds[nfds - 1].revents & POLLIN) {
        std::uint64_t v;
        [[maybe_unused]] auto r = ::read(wakeFd_, &v, sizeof v);
        return IrqWait::Woken;
    }
    irqWoke_ = true;
    return IrqWait::Interrupt;
}

void DpdkDevice::wakeRxWait()
{
    const std::uint64_t one = 1;
    [[maybe_unused]] auto r = ::write(wakeFd_, &one, sizeof one);
}

void DpdkDevice::read(DeviceReading &r)
{
    const std::int64_t now = nowNs();
    const double dt = lastReadNs_ ? static_cast<double>(now - lastReadNs_) / 1e9 : 0;
    static constexpr const char *kSide[] = {"a", "b"};
    for (std::size_t k = 0; k < io_.size(); ++k) {
        PortStats s = base_[k];
        if (started_) s.add(stats(k));
        r.counters.v[static_cast<std::size_t>(CounterId::RxMissed)] += s.imissed;
        r.counters.v[static_cast<std::size_t>(CounterId::AllocFail)] += s.nombuf;
        r.counters.v[static_cast<std::size_t>(CounterId::RxErrors)] += s.ierrors;
        r.counters.v[static_cast<std::size_t>(CounterId::TxErrors)] += s.oerrors;
        r.counters.v[static_cast<std::size_t>(CounterId::Offered)] += s.imissed + s.nombuf;
        const std::string p = std::string("port_") + kSide[k] + "_";
        auto rate = [&](std::uint64_t cur, std::uint64_t before) {
            return dt > 0 && cur >= before ? static_cast<double>(cur - before) / dt : 0.0;
        };
        r.metrics.push_back({p + "rx_pps", "pps", rate(s.ipackets, last_[k].ipackets)});
        r.metrics.push_back({p + "tx_pps", "pps", rate(s.opackets, last_[k].opackets)});
        r.metrics.push_back({p + "rx_mbps", "Mbit/s", rate(s.ibytes, last_[k].ibytes) * 8 / 1e6});
        r.metrics.push_back({p + "tx_mbps", "Mbit/s", rate(s.obytes, last_[k].obytes) * 8 / 1e6});
        r.metrics.push_back({p + "ipackets", "packets", static_cast<double>(s.ipackets), true});
        r.metrics.push_back({p + "opackets", "packets", static_cast<double>(s.opackets), true});
        // A TAP port whose interface the lab moved into a namespace cannot be asked (the PMD
        // asks by name in ours): its link is the lab's to report.
        if (!addon_) {
            rte_eth_link link{};
            rte_eth_link_get_nowait(io_.ids()[k], &link);
            r.metrics.push_back({p + "link_up", "", link.link_status ? 1.0 : 0.0});
        }
        last_[k] = s;
    }
    // Polls the direct pass took: it forwards while the stages pass frames through.
    r.metrics.push_back({"direct_polls", "polls", static_cast<double>(direct_.polls()), true});
    lastReadNs_ = now;
    {
        std::lock_guard lock(notesMutex_);
        for (auto &n : notes_)
            r.events.push_back(std::move(n));
        notes_.clear();
    }
    std::vector<std::string> names;
    for (const PortDescription &d : desc_)
        names.push_back(d.name);
    pollEvents_.drain(r.events, names);
    if (addon_) addon_->read(r);
}

} // namespace ringlab::dpdk
