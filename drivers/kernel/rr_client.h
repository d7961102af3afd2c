// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel device's traffic: a UDP request/response client of the project's own (issue 44,
// part 1). It sends requests open-loop at a rate (the run's load.rate_pps, followed live,
// or a fixed one), each carrying its sequence number and the time it was sent, and takes
// each reply's round trip from the kernel's receive timestamp (SO_TIMESTAMPNS), so that the
// client's own wakeups, paced every 100 us rather than per reply, add nothing to it. The
// requests due at a wakeup go out in one sendmmsg stamped once before it: the k-th of a
// batch includes the kernel's sending of the k-1 before it (a batch holds about
// rate x 100 us requests: 2 at 20,000/s).
//
// It runs on a thread of its own, inside a network namespace when given one (the kernel
// lab's peer side: the thread enters it with setns, the rest of the process stays where it
// is), or in `ringlab-engine rr-client` on another host. Every client is bounded: a request
// count, a deadline, or both.
#pragma once

#include <netinet/in.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "engine/common/status.h"
#include "engine/datapath/histogram.h"
#include "engine/datapath/live_params.h"

namespace ringlab::kernel {

// What a request carries; the server sends it back as it came.
struct RrPayload {
    static constexpr std::uint32_t kMagic = 0x524c5252; // "RLRR"
    std::uint32_t magic = kMagic;
    std::uint32_t reserved = 0;
    std::uint64_t seq = 0;
    std::int64_t sentNs = 0; // CLOCK_REALTIME, as the kernel's receive timestamps
};

struct RrOptions {
    std::string netns; // empty: this thread's namespace; else a name under /run/netns
    sockaddr_in server{};
    const LiveParams *live = nullptr; // rate and size from load.rate_pps/load.frame_bytes
    double ratePps = 1000;            // without `live`
    std::uint32_t frameBytes = 64;    // without `live`: Ethernet frame size of a request
    std::uint64_t count = 0;          // 0: no limit but the deadline
    double durationS = 0;             // 0: no limit but the count
};

class RrClient {
  public:
    // The payload of a request in a frame of `frameBytes` (Ethernet, IPv4 and UDP headers
    // taken off), never less than RrPayload.
    static std::uint32_t payloadBytes(std::uint32_t frameBytes);
    // Checks the options (a bound, a rate); the error names the option, value and range.
    static Status check(const RrOptions &opts);

    explicit RrClient(RrOptions opts);
    ~RrClient(); // stops and joins
    RrClient(const RrClient &) = delete;
    RrClient &operator=(const RrClient &) = delete;

    // Starts the thread; waits until its socket is made (or it failed: the reason).
    Status start();
    // Stops sending and joins. A client that ends by its own bound (count, duration) waits
    // up to 200 ms for replies still on their way; one stopped from outside does not.
    void stop();
    // Stops sending, waits up to 200 ms for the replies still on their way (less once every
    // request is answered), and joins: the end of a run whose server still answers.
    void finish();
    bool finished() const { return finished_.load(std::memory_order_acquire); }

    // Any thread: cumulative figures.
    std::uint64_t sent() const { return sent_.load(std::memory_order_relaxed); }
    std::uint64_t replies() const { return replies_.load(std::memory_order_relaxed); }
    std::uint64_t strays() const { return strays_.load(std::memory_order_relaxed); }
    // Requests the rate made due that the client, descheduled too long, never sent.
    std::uint64_t skipped() const { return skipped_.load(std::memory_order_relaxed); }
    // Requests the socket would not take (its send buffer full, no route).
    std::uint64_t unsent() const { return unsent_.load(std::memory_order_relaxed); }
    // Round trips in ns (written by the client's thread only).
    Histogram::Snapshot rtt() const { return rtt_.snapshot(); }
    const RrOptions &options() const { return opts_; }

  private:
    void run();
    Status openSocket();
    void sendDue(std::uint32_t n, std::uint32_t payload);
    void receive();

    RrOptions opts_;
    int fd_ = -1;
    std::thread thread_;
    std::atomic<bool> stop_{false}, finish_{false}, finished_{false};
    std::atomic<std::uint64_t> sent_{0}, replies_{0}, strays_{0}, skipped_{0}, unsent_{0};
    Histogram rtt_;
    std::uint64_t nextSeq_ = 0;
    std::vector<std::uint8_t> sendBuf_; // the requests of one sendmmsg
};

} // namespace ringlab::kernel
