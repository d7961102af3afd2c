// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/udp_app_device.h"

#include "engine/common/words.h"

#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "drivers/kernel/kernel_lab.h"
#include "drivers/kernel/kernel_watch.h"
#include "drivers/kernel/napi_settings.h"
#include "drivers/kernel/rr_client.h"
#include "engine/common/port_facts.h"
#include "engine/datapath/clock.h"

namespace ringlab::kernel {

namespace {
// include/uapi/linux/eventpoll.h since Linux 6.9 (Debian 12's headers predate it).
struct EpollParams {
    std::uint32_t busyPollUsecs;
    std::uint16_t busyPollBudget;
    std::uint8_t preferBusyPoll;
    std::uint8_t pad;
};
constexpr unsigned long kEpiocSParams = _IOW(0x8A, 0x01, EpollParams);
constexpr unsigned long kEpiocGParams = _IOR(0x8A, 0x02, EpollParams);
constexpr TunableId kEpollTunables[] = {TunableId::EpollBusyPollUs, TunableId::EpollBusyPollBudget,
                                        TunableId::EpollPreferBusyPoll};

constexpr std::uint32_t kMaxBatch = 1024; // UIO_MAXIOV: recvmmsg's and sendmmsg's vlen limit

std::string errnoText(const std::string &what)
{
    return what + ": " + std::strerror(errno);
}

// The driver behind a netdev, as `ethtool -i` names it ("veth", "ixgbe").
std::string driverOf(const std::string &ifname)
{
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return {};
    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    ifreq req{};
    std::strncpy(req.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    req.ifr_data = reinterpret_cast<char *>(&info);
    const int rc = ::ioctl(fd, SIOCETHTOOL, &req);
    ::close(fd);
    return rc == 0 ? std::string(info.driver) : std::string();
}
} // namespace

// One system call's messages: the iovecs and headers, and for receive the control room of
// each message (its kernel timestamp).
struct UdpAppDevice::Batch {
    explicit Batch(std::uint32_t n) : msgs(n), iov(n), control(n) {}
    std::vector<mmsghdr> msgs;
    std::vector<iovec> iov;
    struct Control {
        alignas(cmsghdr) std::uint8_t room[CMSG_SPACE(sizeof(timespec))];
    };
    std::vector<Control> control;
};

UdpAppDevice::UdpAppDevice(UdpAppOptions opts, const ParamSet &params, const LiveParams &live)
    : opts_(std::move(opts)), live_(live)
{
    const std::string name = "kernel:" + opts_.ifname;
    ifindex_ = if_nametoindex(opts_.ifname.c_str());
    if (ifindex_ == 0)
        throw std::runtime_error(name + ": no network interface \"" + opts_.ifname +
                                 "\" in this namespace (ip link lists them)");
    driver_ = driverOf(opts_.ifname);
    try {
        openSocket(name);
        napi_ = std::make_unique<NapiSettings>(opts_.ifname, ifindex_);
        if (opts_.lab) {
            for (auto &e : opts_.lab->takeEvents())
                note(std::move(e));
            clientOptions_.netns = opts_.lab->netns();
            clientOptions_.server.sin_family = AF_INET;
            clientOptions_.server.sin_port = htons(opts_.port);
            clientOptions_.server.sin_addr = opts_.lab->hostAddress();
            clientOptions_.live = &live_;
            clientOptions_.durationS = 24 * 3600.0; // bounded: a day, or the run's end
            client_ = std::make_unique<RrClient>(clientOptions_);
        }
        reconfigure(params);
    } catch (...) {
        closeFds(); // a device that could not be made leaves no descriptor behind
        throw;
    }
}

UdpAppDevice::~UdpAppDevice()
{
    // The host's settings go back while the netdev (a lab's veth) is still there.
    if (napi_)
        if (Status st = napi_->restore(); !st.ok())
            std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
    client_.reset();
    closeFds();
}

void UdpAppDevice::closeFds()
{
    for (int *fd : {&fd_, &epoll_, &wake_})
        if (*fd >= 0) ::close(std::exchange(*fd, -1));
}

void UdpAppDevice::openSocket(const std::string &name)
{
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error(errnoText(name + ": socket"));
    if (::setsockopt(fd_, SOL_SOCKET, SO_BINDTODEVICE, opts_.ifname.c_str(),
                     static_cast<socklen_t>(opts_.ifname.size())) != 0)
        throw std::runtime_error(errnoText(name + ": SO_BINDTODEVICE"));
    // No SO_REUSEADDR: a port another program (or engine) holds is refused, not shared.
    const int on = 1;
    if (::setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0)
        throw std::runtime_error(errnoText(name + ": SO_TIMESTAMPNS"));
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_port = htons(opts_.port);
    local.sin_addr.s_addr = opts_.lab ? opts_.lab->hostAddress().s_addr : htonl(INADDR_ANY);
    if (::bind(fd_, reinterpret_cast<const sockaddr *>(&local), sizeof local) != 0)
        throw std::runtime_error(
            errnoText(name + ": bind to UDP port " + std::to_string(opts_.port)));
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_ < 0 || wake_ < 0) throw std::runtime_error(errnoText(name + ": epoll"));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd_;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd_, &ev);
    ev.data.fd = wake_;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev);
    EpollParams params{};
    if (::ioctl(epoll_, kEpiocGParams, &params) != 0)
        noEpollParams_ = std::string("this kernel's epoll has no busy-poll parameters "
                                     "(EPIOCGPARAMS: ") +
                         std::strerror(errno) + "; Linux 6.9 has them)";
}

DeviceInfo UdpAppDevice::info() const
{
    return {opts_.ifname, "kernel" + (driver_.empty() ? std::string() : " (" + driver_ + ")"), true,
            true};
}

std::vector<TunableSupport> UdpAppDevice::ownSupport() const
{
    std::vector<TunableSupport> s = baseSupport(opts_.lab != nullptr);
    napi_->support(s);
    if (!noEpollParams_.empty())
        for (TunableId id : kEpollTunables)
            s.push_back({id, Support::Unavailable, noEpollParams_});
    return s;
}

std::vector<TunableSupport> UdpAppDevice::supportFor(bool lab, const std::string &ifname)
{
    std::vector<TunableSupport> s = baseSupport(lab);
    NapiSettings(ifname, ifname.empty() ? 0 : if_nametoindex(ifname.c_str())).support(s);
    return completeSupport(DeviceFamily::Kernel, std::move(s));
}

std::vector<TunableSupport> UdpAppDevice::baseSupport(bool lab)
{
    const std::string noLoad =
        lab ? std::string() : "the traffic comes from the network, not from Ringlab";
    std::vector<TunableSupport> s{
        {TunableId::LoadPattern, Support::Ignored,
         "the kernel lab's client sends at a constant rate"},
        {TunableId::LoadBurstOnUs, Support::Ignored, "the kernel lab's client has no bursts"},
        {TunableId::LoadBurstOffUs, Support::Ignored, "the kernel lab's client has no bursts"},
        {TunableId::LoadSeed, Support::Ignored, "the kernel lab's client sends at a constant rate"},
        {TunableId::LinkMbps, Support::Ignored, "the link is the netdev's own"},
        {TunableId::ProbeRateHz, Support::Ignored,
         "every request is a probe: its round trip is measured by the client"},
        {TunableId::IrqUsecs, Support::Ignored,
         "the application waits in epoll on its socket; a NIC's interrupt moderation is "
         "ethtool -C"},
        {TunableId::IrqFrames, Support::Ignored,
         "the application waits in epoll on its socket; a NIC's interrupt moderation is "
         "ethtool -C"},
        {TunableId::IrqAdaptive, Support::Ignored,
         "the application waits in epoll on its socket; a NIC's adaptive moderation is "
         "ethtool -C adaptive-rx"},
        {TunableId::FwdMode, Support::Fixed, "the application answers each request (io)"},
    };
    if (!noLoad.empty()) {
        s.push_back({TunableId::LoadRatePps, Support::Ignored, noLoad});
        s.push_back({TunableId::LoadFrameBytes, Support::Ignored, noLoad});
    }
    return s;
}

Status UdpAppDevice::check(const ParamSet &ps) const
{
    if (ps.choice<PollMode>(TunableId::PollMode) == PollMode::PmdPause)
        return Status{"poll.mode: \"pmd_pause\" cannot apply on the kernel device: it is "
                      "DPDK's PMD power management (allowed: busy, sleep, tick, interrupt)"};
    if (ps.choice<FwdMode>(TunableId::FwdMode) != FwdMode::Io)
        return Status{"fwd.mode: only \"io\" applies on the kernel device: the application "
                      "answers each request to its sender (allowed: io)"};
    const ParamSet defaults;
    if (!noEpollParams_.empty())
        for (TunableId id : kEpollTunables)
            if (!(ps.value(id) == defaults.value(id)))
                return Status{std::string(ringlab::info(id).name) + " = " + ps.text(id) + ": " +
                              noEpollParams_ + " (allowed: " + defaults.text(id) + ")"};
    return napi_->check(ps);
}

struct UdpAppDevice::SocketOption {
    TunableId id;
    int name;
    int slot; // in socketApplied_
};

namespace {
constexpr UdpAppDevice::SocketOption kSocketOptions[] = {
    {TunableId::SockBusyPollUs, SO_BUSY_POLL, 0},
    {TunableId::SockPreferBusyPoll, SO_PREFER_BUSY_POLL, 1},
    {TunableId::SockBusyPollBudget, SO_BUSY_POLL_BUDGET, 2}};
} // namespace

Status
UdpAppDevice::applySocketOptions(const ParamSet &ps,
                                 std::vector<std::pair<const SocketOption *, std::int64_t>> &done)
{
    const ParamSet defaults;
    for (const SocketOption &o : kSocketOptions) {
        std::int64_t &applied = socketApplied_[o.slot];
        const std::int64_t want = ps.integer(o.id);
        // The kernel's own default stands until a value is asked for.
        if (want == applied || (applied < 0 && want == defaults.integer(o.id))) continue;
        const int v = static_cast<int>(want);
        if (::setsockopt(fd_, SOL_SOCKET, o.name, &v, sizeof v) != 0) {
            const int err = errno;
            undoSocketOptions(done);
            return Status{std::string(ringlab::info(o.id).name) + ": " + std::to_string(want) +
                          " was refused by the kernel (" + std::strerror(err) + ")" +
                          (err == EPERM ? "; raising it needs CAP_NET_ADMIN (run as root)" : "")};
        }
        done.emplace_back(&o, applied);
        applied = want;
    }
    return Status::success();
}

void UdpAppDevice::undoSocketOptions(
    const std::vector<std::pair<const SocketOption *, std::int64_t>> &done)
{
    const ParamSet defaults;
    for (const auto &[o, before] : done) {
        const int v = static_cast<int>(before < 0 ? defaults.integer(o->id) : before);
        if (::setsockopt(fd_, SOL_SOCKET, o->name, &v, sizeof v) == 0)
            socketApplied_[o->slot] = before;
    }
}

Status UdpAppDevice::apply(const ParamSet &ps)
{
    // All or nothing, as the change itself: the socket's options, the epoll set's, then the
    // host's settings; a refusal puts back what this call set.
    std::vector<std::pair<const SocketOption *, std::int64_t>> done;
    if (Status st = applySocketOptions(ps, done); !st.ok()) return st;
    std::int64_t epollBefore[3];
    std::copy(std::begin(epollApplied_), std::end(epollApplied_), epollBefore);
    if (Status st = applyEpollParams(ps); !st.ok()) {
        undoSocketOptions(done);
        return st;
    }
    if (Status st = napi_->apply(ps); !st.ok()) {
        undoSocketOptions(done);
        if (!std::equal(epollBefore, epollBefore + 3, epollApplied_)) {
            const std::int64_t back[3] = {std::max<std::int64_t>(epollBefore[0], 0),
                                          std::max<std::int64_t>(epollBefore[1], 0),
                                          std::max<std::int64_t>(epollBefore[2], 0)};
            if (setEpollParams(back) == 0) std::copy(epollBefore, epollBefore + 3, epollApplied_);
        }
        return st;
    }
    return Status::success();
}

int UdpAppDevice::setEpollParams(const std::int64_t v[3])
{
    EpollParams p{};
    p.busyPollUsecs = static_cast<std::uint32_t>(v[0]);
    p.busyPollBudget = static_cast<std::uint16_t>(v[1]);
    p.preferBusyPoll = static_cast<std::uint8_t>(v[2]);
    return ::ioctl(epoll_, kEpiocSParams, &p) == 0 ? 0 : errno;
}

Status UdpAppDevice::applyEpollParams(const ParamSet &ps)
{
    std::int64_t want[3];
    const ParamSet defaults;
    bool same = true, asDefault = true;
    for (int k = 0; k < 3; ++k) {
        want[k] = ps.integer(kEpollTunables[k]);
        same &= want[k] == epollApplied_[k];
        asDefault &= want[k] == defaults.integer(kEpollTunables[k]);
    }
    // The kernel's own parameters stand until a value is asked for.
    if (same || (epollApplied_[0] < 0 && asDefault) || !noEpollParams_.empty())
        return Status::success();
    if (const int err = setEpollParams(want); err != 0)
        return Status{
            "epoll.busy_poll_us " + std::to_string(want[0]) + ", epoll.busy_poll_budget " +
            std::to_string(want[1]) + ", epoll.prefer_busy_poll " + std::to_string(want[2]) +
            " were refused by the kernel (" + std::strerror(err) + ")" +
            (err == EPERM ? "; a budget above 64 needs CAP_NET_ADMIN (run as root)" : "")};
    std::copy(want, want + 3, epollApplied_);
    return Status::success();
}

void UdpAppDevice::reconfigure(const ParamSet &params)
{
    rx_ =
        std::make_unique<RxRing>(static_cast<std::uint32_t>(params.integer(TunableId::RxRingSize)));
    tx_ =
        std::make_unique<TxRing>(static_cast<std::uint32_t>(params.integer(TunableId::TxRingSize)));
    peers_.assign(static_cast<std::size_t>(params.integer(TunableId::RxPoolBuffers)), {});
    rxBatch_ = std::make_unique<Batch>(std::min(rx_->size(), kMaxBatch));
    txBatch_ = std::make_unique<Batch>(std::min(tx_->size(), kMaxBatch));
}

void UdpAppDevice::linkUp(std::int64_t)
{
    if (!watch_) {
        watch_ = std::make_unique<KernelWatch>(opts_.ifname);
        lastKernel_ = {}; // figures span two readings of this watch, never an idle gap
        lastFigures_ = {};
    }
    if (opts_.traffic && !trafficStarted_ && !trafficStopped_) {
        opts_.traffic->start();
        trafficStarted_ = true;
        note("traffic: " + joinWords(opts_.traffic->clientCommand()));
    }
    if (!client_ || clientStarted_) return;
    if (auto st = client_->start(); !st.ok())
        throw std::runtime_error(opts_.lab->describe() + ": " + st.error);
    clientStarted_ = true;
    note("traffic: request/response client in " + opts_.lab->netns() + " at load.rate_pps");
}

void UdpAppDevice::quiesce()
{
    if (client_ && clientStarted_) client_->finish();
}

void UdpAppDevice::linkDown()
{
    if (trafficStarted_ && !trafficStopped_) {
        // The clients' summaries; a restart does not start them again (as on the DPDK lab).
        DeviceReading last;
        opts_.traffic->stop(last);
        trafficStopped_ = true;
        for (auto &e : last.events)
            note(std::move(e));
    }
    if (client_ && clientStarted_) {
        // Its figures carry on in the device's totals; a later linkUp (the previous settings
        // brought back after a failed restart) starts a new client.
        client_->stop();
        retired_.sent += client_->sent();
        retired_.replies += client_->replies();
        retired_.skipped += client_->skipped();
        retired_.unsent += client_->unsent();
        retired_.rtt.add(client_->rtt());
        client_ = std::make_unique<RrClient>(clientOptions_);
        clientStarted_ = false;
    }
    watch_.reset();
}

std::uint32_t UdpAppDevice::rxHarvest(Buffer **out, std::uint32_t max, std::int64_t, Counters &c)
{
    // Posted buffers become the messages of one recvmmsg, in ring order.
    const std::uint32_t hw = rx_->hw_.load(std::memory_order_relaxed);
    const std::uint32_t tail = rx_->tail_.load(std::memory_order_acquire);
    const std::uint32_t want =
        std::min({max, tail - hw, static_cast<std::uint32_t>(rxBatch_->msgs.size())});
    if (want == 0) return 0;
    Batch &b = *rxBatch_;
    for (std::uint32_t k = 0; k < want; ++k) {
        Buffer *buf = rx_->at(hw + k).buf;
        mmsghdr &m = b.msgs[k];
        b.iov[k] = {buf->data, buf->room};
        m.msg_hdr.msg_iov = &b.iov[k];
        m.msg_hdr.msg_iovlen = 1;
        m.msg_hdr.msg_name = buf->index < peers_.size() ? &peers_[buf->index] : nullptr;
        m.msg_hdr.msg_namelen = sizeof(sockaddr_in);
        m.msg_hdr.msg_control = b.control[k].room;
        m.msg_hdr.msg_controllen = sizeof b.control[k].room;
        m.msg_hdr.msg_flags = 0;
    }
    const int rc = ::recvmmsg(fd_, b.msgs.data(), want, MSG_DONTWAIT, nullptr);
    if (rc <= 0) return 0;
    const auto got = static_cast<std::uint32_t>(rc);
    // The kernel's receive time is CLOCK_REALTIME; the engine's clock is monotonic: one
    // offset per batch.
    timespec real, mono;
    clock_gettime(CLOCK_REALTIME, &real);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    const std::int64_t offset =
        (std::int64_t{mono.tv_sec} - real.tv_sec) * 1'000'000'000 + (mono.tv_nsec - real.tv_nsec);
    const std::int64_t now = std::int64_t{mono.tv_sec} * 1'000'000'000 + mono.tv_nsec;
    for (std::uint32_t k = 0; k < got; ++k) {
        Buffer *buf = rx_->at(hw + k).buf;
        const msghdr &h = b.msgs[k].msg_hdr;
        buf->len = b.msgs[k].msg_len;
        buf->seq = seq_++;
        buf->port = 0;
        std::int64_t arrival = now;
        for (cmsghdr *cm = CMSG_FIRSTHDR(&h); cm; cm = CMSG_NXTHDR(const_cast<msghdr *>(&h), cm))
            if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
                timespec ts;
                std::memcpy(&ts, CMSG_DATA(cm), sizeof ts);
                arrival =
                    std::min(now, std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec + offset);
            }
        buf->at(Stage::Arrival) = arrival;
        if (h.msg_flags & MSG_TRUNC) c.add(CounterId::RxErrors);
    }
    c.add(CounterId::Offered, got); // with the socket's drops (read()): what arrived
    rx_->hw_.store(hw + got, std::memory_order_release);
    // Harvested at once: a received request is the engine's.
    const std::uint32_t clean = rx_->clean_.load(std::memory_order_relaxed);
    for (std::uint32_t k = 0; k < got; ++k)
        out[k] = rx_->at(clean + k).buf;
    rx_->clean_.store(clean + got, std::memory_order_release);
    return got;
}

std::uint32_t UdpAppDevice::txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t)
{
    const std::uint32_t tail = tx_->tail_.load(std::memory_order_relaxed);
    const std::uint32_t free = tx_->size() - (tail - tx_->clean_.load(std::memory_order_acquire));
    n = std::min(n, free);
    Batch &b = *txBatch_;
    std::uint32_t done = 0;
    while (done < n) {
        const std::uint32_t want = std::min(n - done, static_cast<std::uint32_t>(b.msgs.size()));
        for (std::uint32_t k = 0; k < want; ++k) {
            Buffer *buf = bufs[done + k];
            mmsghdr &m = b.msgs[k];
            m.msg_hdr = {};
            b.iov[k] = {buf->data, buf->len};
            m.msg_hdr.msg_iov = &b.iov[k];
            m.msg_hdr.msg_iovlen = 1;
            m.msg_hdr.msg_name = buf->index < peers_.size() ? &peers_[buf->index] : nullptr;
            m.msg_hdr.msg_namelen = sizeof(sockaddr_in);
        }
        const int rc = ::sendmmsg(fd_, b.msgs.data(), want, MSG_DONTWAIT);
        if (rc <= 0) break; // the socket's buffer is full: the rest is the ring's (tx_full)
        done += static_cast<std::uint32_t>(rc);
        if (static_cast<std::uint32_t>(rc) < want) break;
    }
    // Sent is complete: the kernel has the reply.
    const std::int64_t sent = nowNs();
    for (std::uint32_t k = 0; k < done; ++k) {
        bufs[k]->stampDone(sent);
        tx_->at(tail + k) = TxDesc{bufs[k], sent};
    }
    tx_->tail_.store(tail + done, std::memory_order_release);
    return done;
}

IrqWait UdpAppDevice::waitRxInterrupt(std::int64_t deadlineNs)
{
    if (rx_->postedCount() == 0) {
        // Nothing to read into (the refill is behind): a queued request would wake the wait
        // at once, every time. Wait for a wake or 1 ms instead, and count no interrupt.
        pollfd wake{wake_, POLLIN, 0};
        if (::poll(&wake, 1, 1) > 0) {
            std::uint64_t v;
            [[maybe_unused]] auto r = ::read(wake_, &v, sizeof v);
            return IrqWait::Woken;
        }
        return IrqWait::Timeout;
    }
    int timeoutMs = -1;
    if (deadlineNs >= 0)
        timeoutMs = static_cast<int>(std::max<std::int64_t>(0, (deadlineNs - nowNs()) / 1'000'000));
    epoll_event ev[2];
    const int rc = ::epoll_wait(epoll_, ev, 2, timeoutMs);
    if (rc <= 0) return IrqWait::Timeout;
    bool woken = false, readable = false;
    for (int k = 0; k < rc; ++k)
        (ev[k].data.fd == wake_ ? woken : readable) = true;
    if (woken) {
        std::uint64_t v;
        [[maybe_unused]] auto r = ::read(wake_, &v, sizeof v);
    }
    return readable ? IrqWait::Interrupt : IrqWait::Woken;
}

void UdpAppDevice::wakeRxWait()
{
    const std::uint64_t one = 1;
    [[maybe_unused]] auto r = ::write(wake_, &one, sizeof one);
}

void UdpAppDevice::read(DeviceReading &r)
{
    // Requests the kernel dropped at this socket (its receive buffer full): SO_MEMINFO's
    // SK_MEMINFO_DROPS, a getsockopt (no file is read).
    std::uint32_t mem[SK_MEMINFO_VARS] = {};
    socklen_t len = sizeof mem;
    if (::getsockopt(fd_, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 &&
        len > SK_MEMINFO_DROPS * sizeof(std::uint32_t)) {
        // The kernel's count is 32 bits: summed here in 64, across its wraps.
        socketDrops_ += static_cast<std::uint32_t>(mem[SK_MEMINFO_DROPS] - lastSocketDrops_);
        lastSocketDrops_ = mem[SK_MEMINFO_DROPS];
        r.counters.v[static_cast<std::size_t>(CounterId::RxMissed)] += socketDrops_;
        r.counters.v[static_cast<std::size_t>(CounterId::Offered)] += socketDrops_;
        r.metrics.push_back(
            {"socket_rx_queued_bytes", "bytes", static_cast<double>(mem[SK_MEMINFO_RMEM_ALLOC])});
    }
    if (client_) {
        const std::int64_t now = nowNs();
        const double dt = lastReadNs_ ? static_cast<double>(now - lastReadNs_) / 1e9 : 0;
        ClientTotals t = retired_;
        if (clientStarted_) {
            t.sent += client_->sent();
            t.replies += client_->replies();
            t.skipped += client_->skipped();
            t.unsent += client_->unsent();
            t.rtt.add(client_->rtt());
        }
        auto rate = [&](std::uint64_t cur, std::uint64_t before) {
            return dt > 0 && cur >= before ? static_cast<double>(cur - before) / dt : 0.0;
        };
        r.metrics.push_back({"rr_request_pps", "pps", rate(t.sent, lastSent_)});
        r.metrics.push_back({"rr_reply_pps", "pps", rate(t.replies, lastReplies_)});
        r.metrics.push_back({"rr_requests", "requests", static_cast<double>(t.sent), true});
        r.metrics.push_back({"rr_replies", "replies", static_cast<double>(t.replies), true});
        r.metrics.push_back({"rr_skipped", "requests", static_cast<double>(t.skipped), true});
        r.metrics.push_back({"rr_unsent", "requests", static_cast<double>(t.unsent), true});
        lastSent_ = t.sent;
        lastReplies_ = t.replies;
        lastReadNs_ = now;
        r.rtt = std::move(t.rtt);
        r.hasRtt = true;
    }
    if (trafficStarted_ && !trafficStopped_) {
        // ping's round trips are figures of their own, per interval: the run's probe latency
        // stays the request/response client's.
        DeviceReading t;
        opts_.traffic->read(t);
        for (auto &m : t.metrics)
            r.metrics.push_back(std::move(m));
        for (auto &e : t.events)
            r.events.push_back(std::move(e));
        if (t.hasRtt) {
            const Histogram::Snapshot d = t.rtt.minus(lastPingRtt_);
            if (d.total()) {
                r.metrics.push_back({"ping_rtt_p50_us", "us", d.quantile(0.5) * 1e-3});
                r.metrics.push_back({"ping_rtt_p99_us", "us", d.quantile(0.99) * 1e-3});
            }
            lastPingRtt_ = std::move(t.rtt);
        }
    }
    if (watch_) {
        KernelReading now;
        if (watch_->latest(now) && now.atNs != lastKernel_.atNs) {
            lastFigures_ = {};
            kernelFigures(lastKernel_, now, lastFigures_);
            lastKernel_ = std::move(now);
        }
        r.metrics.insert(r.metrics.end(), lastFigures_.metrics.begin(), lastFigures_.metrics.end());
        r.threads.insert(r.threads.end(), lastFigures_.threads.begin(), lastFigures_.threads.end());
        if (auto problem = watch_->takeProblem(); !problem.empty())
            r.events.push_back("kernel figures: " + problem);
    }
    std::lock_guard lock(notesMutex_);
    for (auto &n : notes_)
        r.events.push_back(std::move(n));
    notes_.clear();
}

Environment UdpAppDevice::portFacts() const
{
    // The kernel's view of the netdev: driver, firmware, rings, coalescing, offloads, IRQs.
    // The kernel lab's veth is named by the engine's pid: its facts are keyed "kernel-lab", so
    // that two lab sessions compare fact by fact.
    Environment env;
    const std::string port = opts_.lab ? std::string("kernel-lab") : opts_.ifname;
    captureKernelPort(port, opts_.ifname, env);
    std::string why;
    const std::string napis = napi_->describe(why);
    env.set({factKey("port.napi", port), napis, napis.empty() ? why : ""});
    return env;
}

void UdpAppDevice::note(std::string text)
{
    std::lock_guard lock(notesMutex_);
    notes_.push_back(std::move(text));
}

} // namespace ringlab::kernel
