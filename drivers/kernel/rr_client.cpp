// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/rr_client.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <future>

#include "engine/datapath/clock.h"

namespace ringlab::kernel {

namespace {
constexpr std::uint32_t kHeaders = 14 + 20 + 8; // Ethernet, IPv4, UDP
constexpr std::uint32_t kMaxPayload = 1472;     // one 1500-byte IPv4 packet
constexpr std::int64_t kTickNs = 100'000;       // the client wakes this often at most
constexpr std::uint32_t kBatch = 64;            // requests or replies per system call
constexpr std::int64_t kCatchUpNs = 2'000'000;  // requests sent late rather than skipped
constexpr std::int64_t kLingerNs = 200'000'000; // replies awaited after the last request
constexpr double kMaxRatePps = 10'000'000;

std::int64_t realNs()
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

std::string errnoText(const char *what)
{
    return std::string(what) + ": " + std::strerror(errno);
}
} // namespace

std::uint32_t RrClient::payloadBytes(std::uint32_t frameBytes)
{
    const std::uint32_t p = frameBytes > kHeaders ? frameBytes - kHeaders : 0;
    return std::clamp<std::uint32_t>(p, sizeof(RrPayload), kMaxPayload);
}

Status RrClient::check(const RrOptions &o)
{
    if (o.count == 0 && !(o.durationS > 0))
        return Status{"rr-client: no bound: give a request count (--count) or a duration "
                      "(--duration), or both"};
    if (!o.live && !(o.ratePps > 0 && o.ratePps <= kMaxRatePps))
        return Status{"rr-client: --rate " + std::to_string(o.ratePps) +
                      " requests/s is out of range (allowed: more than 0, at most 10,000,000)"};
    if (o.durationS < 0 || o.durationS > 7 * 24 * 3600.0)
        return Status{"rr-client: --duration " + std::to_string(o.durationS) +
                      " s is out of range (allowed: 0 to 604,800 s)"};
    return Status::success();
}

RrClient::RrClient(RrOptions opts)
    : opts_(std::move(opts)), sendBuf_(std::size_t{kBatch} * kMaxPayload)
{
}

RrClient::~RrClient()
{
    stop();
    if (fd_ >= 0) ::close(fd_);
}

Status RrClient::openSocket()
{
    if (!opts_.netns.empty()) {
        // This thread only: setns(CLONE_NEWNET) moves the calling thread, and the socket
        // made next belongs to the namespace for its whole life.
        const std::string path = "/run/netns/" + opts_.netns;
        const int ns = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (ns < 0) return Status{errnoText(("rr-client: " + path).c_str())};
        const int rc = ::setns(ns, CLONE_NEWNET);
        ::close(ns);
        if (rc != 0) return Status{errnoText(("rr-client: setns " + path).c_str())};
    }
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return Status{errnoText("rr-client: socket")};
    const int on = 1;
    if (::setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0)
        return Status{errnoText("rr-client: SO_TIMESTAMPNS")};
    const int buf = 4 << 20; // a burst of replies while the client sleeps
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    if (::connect(fd_, reinterpret_cast<const sockaddr *>(&opts_.server), sizeof opts_.server))
        return Status{errnoText("rr-client: connect")};
    return Status::success();
}

Status RrClient::start()
{
    if (auto st = check(opts_); !st.ok()) return st;
    std::promise<Status> opened;
    auto ready = opened.get_future();
    thread_ = std::thread([this, &opened] {
        pthread_setname_np(pthread_self(), "rr-client");
        Status st = openSocket();
        const bool ok = st.ok();
        opened.set_value(std::move(st));
        if (ok) run();
        finished_.store(true, std::memory_order_release);
    });
    Status st = ready.get();
    if (!st.ok()) thread_.join();
    return st;
}

void RrClient::stop()
{
    stop_.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
}

void RrClient::finish()
{
    finish_.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
}

void RrClient::run()
{
    const std::int64_t start = nowNs();
    const std::int64_t deadline =
        opts_.durationS > 0 ? start + static_cast<std::int64_t>(opts_.durationS * 1e9) : -1;
    double credit = 0; // requests due and not yet sent
    std::int64_t last = start, lingerUntil = -1;
    for (;;) {
        const std::int64_t now = nowNs();
        const bool done =
            stop_.load(std::memory_order_acquire) || finish_.load(std::memory_order_acquire) ||
            (deadline >= 0 && now >= deadline) || (opts_.count > 0 && nextSeq_ >= opts_.count);
        double rate = opts_.ratePps;
        std::uint32_t frame = opts_.frameBytes;
        if (opts_.live) {
            rate = static_cast<double>(opts_.live->integer(TunableId::LoadRatePps));
            frame = static_cast<std::uint32_t>(opts_.live->integer(TunableId::LoadFrameBytes));
        }
        if (!done) {
            // Open loop: what the rate made due since the last wakeup, 2 ms of catch-up at
            // most: a client descheduled longer skips the rest (counted), not bursts it.
            credit += static_cast<double>(now - last) * rate / 1e9;
            const double cap = std::max(1.0, rate * kCatchUpNs / 1e9);
            if (credit > cap) {
                skipped_.fetch_add(static_cast<std::uint64_t>(credit - cap),
                                   std::memory_order_relaxed);
                credit = cap;
            }
            auto due = static_cast<std::uint64_t>(credit);
            if (opts_.count > 0) due = std::min(due, opts_.count - nextSeq_);
            credit -= static_cast<double>(due);
            while (due > 0) {
                const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(due, kBatch));
                sendDue(n, payloadBytes(frame));
                due -= n;
            }
        } else if (lingerUntil < 0) {
            // Replies still on their way are awaited when the client ends by its own bound or
            // is told to finish; stopped from outside (nothing answers any more) it ends now.
            lingerUntil = stop_.load(std::memory_order_acquire) ? now : now + kLingerNs;
        }
        last = now;
        receive();
        if (lingerUntil >= 0 && (now >= lingerUntil || replies() >= sent())) break;
        // The next request's time, a tick at most (replies are timestamped by the kernel).
        std::int64_t sleep = kTickNs;
        if (!done && rate > 0 && rate * kTickNs / 1e9 < 1)
            sleep = std::min<std::int64_t>(static_cast<std::int64_t>((1 - credit) * 1e9 / rate),
                                           10 * kTickNs);
        const timespec ts = toTimespec(std::max<std::int64_t>(sleep, 10'000));
        ::nanosleep(&ts, nullptr);
    }
}

void RrClient::sendDue(std::uint32_t n, std::uint32_t payload)
{
    std::array<iovec, kBatch> iov;
    std::array<mmsghdr, kBatch> msgs{};
    const std::int64_t sentAt = realNs();
    for (std::uint32_t k = 0; k < n; ++k) {
        RrPayload p;
        p.seq = nextSeq_ + k;
        p.sentNs = sentAt;
        std::uint8_t *at = sendBuf_.data() + std::size_t{k} * kMaxPayload;
        std::memcpy(at, &p, sizeof p);
        iov[k] = {at, payload};
        msgs[k].msg_hdr.msg_iov = &iov[k];
        msgs[k].msg_hdr.msg_iovlen = 1;
    }
    const int rc = ::sendmmsg(fd_, msgs.data(), n, 0);
    // A request the socket would not take (its buffer full, or no route yet) is not sent:
    // counted as unsent, not awaited.
    const std::uint32_t sent = rc > 0 ? static_cast<std::uint32_t>(rc) : 0;
    nextSeq_ += n;
    sent_.fetch_add(sent, std::memory_order_relaxed);
    unsent_.fetch_add(n - sent, std::memory_order_relaxed);
}

void RrClient::receive()
{
    struct Slot {
        RrPayload p;
        std::uint8_t rest[64];
    };
    std::array<Slot, kBatch> slots;
    std::array<iovec, kBatch> iov;
    std::array<std::array<std::uint8_t, CMSG_SPACE(sizeof(timespec))>, kBatch> control;
    std::array<mmsghdr, kBatch> msgs{};
    for (;;) {
        for (std::uint32_t k = 0; k < kBatch; ++k) {
            iov[k] = {&slots[k], sizeof(Slot)};
            msgs[k].msg_hdr = {};
            msgs[k].msg_hdr.msg_iov = &iov[k];
            msgs[k].msg_hdr.msg_iovlen = 1;
            msgs[k].msg_hdr.msg_control = control[k].data();
            msgs[k].msg_hdr.msg_controllen = control[k].size();
        }
        const int rc = ::recvmmsg(fd_, msgs.data(), kBatch, MSG_DONTWAIT, nullptr);
        if (rc <= 0) return;
        std::uint64_t ok = 0, stray = 0;
        for (int k = 0; k < rc; ++k) {
            const msghdr &h = msgs[static_cast<std::size_t>(k)].msg_hdr;
            const RrPayload &p = slots[static_cast<std::size_t>(k)].p;
            const timespec *ts = nullptr;
            for (cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(const_cast<msghdr *>(&h), c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS)
                    ts = reinterpret_cast<const timespec *>(CMSG_DATA(c));
            if (msgs[static_cast<std::size_t>(k)].msg_len < sizeof(RrPayload) ||
                p.magic != RrPayload::kMagic || p.seq >= nextSeq_ || !ts) {
                ++stray;
                continue;
            }
            const std::int64_t rx = std::int64_t{ts->tv_sec} * 1'000'000'000 + ts->tv_nsec;
            rtt_.record(static_cast<std::uint64_t>(std::max<std::int64_t>(0, rx - p.sentNs)));
            ++ok;
        }
        replies_.fetch_add(ok, std::memory_order_relaxed);
        strays_.fetch_add(stray, std::memory_order_relaxed);
        if (rc < static_cast<int>(kBatch)) return;
    }
}

} // namespace ringlab::kernel
