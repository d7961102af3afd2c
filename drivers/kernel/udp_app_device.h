// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel device (issue 44, part 1): the engine as the application on a real netdev. Its
// poll thread receives requests through a UDP socket bound to the interface (recvmmsg) and
// its transmit context answers each to its sender (sendmmsg), so the kernel's receive path,
// NAPI and all, is what the run measures, and the engine's knobs keep their meaning on the
// application side:
//   - RX descriptors are buffers posted to the socket reader: a refill that falls behind
//     leaves requests in the socket's queue, and past its buffer the kernel drops them
//     (counted from SO_MEMINFO as rx_missed);
//   - poll.mode busy and sleep poll the socket without blocking; interrupt waits in
//     epoll_wait on it, woken by the kernel when a request is queued;
//   - tx.coalesce_frames/usecs hold replies before one sendmmsg, as they hold frames for a
//     NIC's doorbell.
// A frame's arrival is the kernel's receive timestamp (SO_TIMESTAMPNS), so the latency's
// first span is the time a request waited in the kernel for the application.
#pragma once

#include <netinet/in.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "drivers/kernel/kernel_watch.h"
#include "drivers/kernel/rr_client.h"
#include "drivers/lab/traffic.h"
#include "engine/datapath/desc_ring.h"
#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"

namespace ringlab::kernel {

class KernelLab;
class NapiSettings;
class KernelWatch;

inline constexpr std::uint16_t kDefaultUdpPort = 9000;

struct UdpAppOptions {
    std::string ifname;
    std::uint16_t port = kDefaultUdpPort;
    std::unique_ptr<KernelLab> lab; // kernel-lab: the veth pair and its namespace, owned
    // kernel-lab's --traffic: ping or iperf3 from the lab's namespace to the engine's end,
    // beside the request/response client; its round trips are figures of their own
    // (ping_rtt_*), the client's stay the run's probe latency.
    std::unique_ptr<lab::Traffic> traffic;
};

class UdpAppDevice final : public Device {
  public:
    // Throws std::runtime_error naming the interface and what failed.
    UdpAppDevice(UdpAppOptions opts, const ParamSet &params, const LiveParams &live);
    ~UdpAppDevice() override;

    DeviceInfo info() const override;
    DeviceFamily family() const override { return DeviceFamily::Kernel; }
    std::vector<TunableSupport> ownSupport() const override;
    // What support() says on the kernel lab (its client follows load.*) or on a netdev.
    // IFNAME: the netdev whose NAPI knobs are probed ("" for a lab not made yet: its veth
    // has the sysfs files, so only what netdev netlink takes is probed).
    static std::vector<TunableSupport> supportFor(bool lab, const std::string &ifname = {});
    Status check(const ParamSet &ps) const override;
    // The socket's busy-poll options (sock.*) and the host's NAPI settings (napi.*, net.*),
    // set when they change; all or nothing.
    Status apply(const ParamSet &ps) override;

    void reconfigure(const ParamSet &params) override;
    void linkUp(std::int64_t nowNs) override;
    // The lab's client stops sending and its last requests are answered (200 ms at most).
    void quiesce() override;
    void linkDown() override;

    std::uint32_t rxHarvest(Buffer **out, std::uint32_t max, std::int64_t nowNs,
                            Counters &c) override;
    std::uint32_t rxFree() const override { return rx_->freeCount(); }
    std::uint32_t rxPost(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs) override
    {
        return rx_->post(bufs, n, nowNs);
    }
    std::uint32_t rxPosted() const override { return rx_->postedCount(); }
    std::uint32_t rxDrain(Buffer **out, std::uint32_t max) override { return rx_->drain(out, max); }
    std::uint32_t txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t nowNs) override;
    // A reply is done once sendmmsg has returned: every posted one is reclaimed.
    std::uint32_t txReclaim(Buffer **out, std::uint32_t max, std::int64_t) override
    {
        return tx_->drain(out, max);
    }
    std::uint32_t txPending() const override { return tx_->pending(); }
    std::uint32_t txFree() const override { return tx_->size() - tx_->pending(); }
    std::uint32_t txDrain(Buffer **out, std::uint32_t max) override { return tx_->drain(out, max); }
    std::int64_t nextInterruptNs(std::int64_t, std::int64_t, std::int64_t) override { return -1; }
    IrqWait waitRxInterrupt(std::int64_t deadlineNs) override;
    void wakeRxWait() override;
    void read(DeviceReading &r) override;
    Environment portFacts() const override;

    struct SocketOption; // a sock.* tunable and its SOL_SOCKET option

  private:
    // The socket bound to the netdev, and the epoll set that waits on it; throws naming the
    // step that failed.
    void openSocket(const std::string &name);
    // What the device does with the registry's tunables, but for the host's NAPI settings.
    static std::vector<TunableSupport> baseSupport(bool lab);
    Status applySocketOptions(const ParamSet &ps,
                              std::vector<std::pair<const SocketOption *, std::int64_t>> &done);
    void undoSocketOptions(const std::vector<std::pair<const SocketOption *, std::int64_t>> &done);
    // epoll.*: the epoll set's busy-poll parameters (EPIOCSPARAMS), all three at once.
    Status applyEpollParams(const ParamSet &ps);
    int setEpollParams(const std::int64_t v[3]); // 0, or the kernel's errno
    void closeFds();
    void note(std::string text);

    UdpAppOptions opts_;
    const LiveParams &live_;
    unsigned ifindex_ = 0;
    std::string driver_;
    int fd_ = -1, epoll_ = -1, wake_ = -1;
    std::unique_ptr<RxRing> rx_;
    std::unique_ptr<TxRing> tx_;
    // The sender of the request each pool buffer holds, by Buffer::index: its reply's
    // address (written by the poll thread, read by the transmit context after the hand-off).
    std::vector<sockaddr_in> peers_;
    // Scratch of one recvmmsg (poll context) and of one sendmmsg (transmit context).
    struct Batch;
    std::unique_ptr<Batch> rxBatch_, txBatch_;
    std::uint64_t seq_ = 0;
    // What the socket has of sock.* (control context); -1: not yet set.
    // (by SocketOption::slot: SO_BUSY_POLL, SO_PREFER_BUSY_POLL, SO_BUSY_POLL_BUDGET).
    std::int64_t socketApplied_[3] = {-1, -1, -1};
    // What the epoll set has of epoll.* (control context): usecs, budget, prefer; -1 not set.
    std::int64_t epollApplied_[3] = {-1, -1, -1};
    std::string noEpollParams_; // why this kernel's epoll has no busy-poll parameters
    // The host's NAPI settings and sysctls of the run, journalled and put back at its end.
    std::unique_ptr<NapiSettings> napi_;
    RrOptions clientOptions_;
    std::unique_ptr<RrClient> client_; // kernel-lab's traffic, started at linkUp
    bool clientStarted_ = false;
    // What clients stopped at a linkDown had counted: the figures run on across them.
    struct ClientTotals {
        std::uint64_t sent = 0, replies = 0, skipped = 0, unsent = 0;
        Histogram::Snapshot rtt;
    } retired_;
    // --traffic on kernel-lab: started at the first linkUp, stopped at the first linkDown (as
    // on the DPDK lab); ping's round trips at the last reading.
    bool trafficStarted_ = false, trafficStopped_ = false;
    Histogram::Snapshot lastPingRtt_;
    std::uint32_t lastSocketDrops_ = 0; // the kernel's 32-bit count at the last reading
    std::uint64_t socketDrops_ = 0;
    std::uint64_t lastSent_ = 0, lastReplies_ = 0;
    std::int64_t lastReadNs_ = 0;
    // The kernel's side of the traffic (softnet, softirqs, the netdev, NAPI kthreads), read
    // off the sampler's thread; its figures are those between the last two readings.
    std::unique_ptr<KernelWatch> watch_;
    KernelReading lastKernel_;
    DeviceReading lastFigures_; // re-used when no new reading came since the last sample
    std::mutex notesMutex_;     // control context writes, the sampler reads
    std::vector<std::string> notes_;
};

} // namespace ringlab::kernel
