// SPDX-License-Identifier: GPL-2.0-or-later
// Who drove each NAPI poll (issue 44, part 6): a BPF program on the napi:napi_poll
// tracepoint (bpf/napi_poll.bpf.c) counts every poll of every NAPI and the frames it handed
// up, by what ran it: the NET_RX softirq after an interrupt or a kick, the NAPI's timer
// (gro_flush_timeout, irq_suspend_timeout), an application's busy poll, the NAPI's kthread.
// No other tool we know of answers that question, which the kernel's NAPI documentation
// describes.
//
// Loading needs BPF and perfmon privileges, a kernel with BTF and those functions; where
// any is missing, open() says which and the figures are absent, never zero. Reading is a
// system call per NAPI: the kernel watch's thread does it, never the sampler.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/common/status.h"

namespace ringlab::kernel {

// The sources in the order of bpf/poll_sources.h, with the names the metrics use.
enum class PollSource : std::uint8_t { Softirq, Watchdog, Busy, Kthread, Other };
inline constexpr std::size_t kPollSources = 5;
struct PollSourceName {
    PollSource source;
    std::string_view pollsMetric;   // the metric of its polls per second
    std::string_view pollsHelp;     // what that metric says
    std::string_view packetsMetric; // the metric of the frames those polls handed up
    std::string_view packetsHelp;
};
std::span<const PollSourceName> pollSourceNames();
// A poll source's figure for one NAPI: "kernel_polls_busy_per_s" of NAPI 8193 is
// "kernel_napi8193_polls_busy_per_s" (its "kernel_" followed by "napiID_").
std::string napiFigureName(std::string_view figure, unsigned napiId);

struct PollCounts {
    std::array<std::uint64_t, kPollSources> polls{}, packets{};
};

// One CPU's time in the NET_RX softirq (every netdev's, any task: ksoftirqd's too) and how
// many times it ran, since the program was loaded.
struct SoftirqTime {
    std::uint64_t ns = 0, runs = 0;
};

class PollAttribution {
  public:
    // Loads and attaches the program, counting the NAPIs of the netdev `ifindex` (in this
    // network namespace); on failure `why` says what is missing.
    static std::unique_ptr<PollAttribution> open(unsigned ifindex, std::string &why);
    ~PollAttribution();
    PollAttribution(const PollAttribution &) = delete;
    PollAttribution &operator=(const PollAttribution &) = delete;

    // The running totals of each NAPI of `napiIds`, summed over CPUs; a NAPI that has not
    // been polled since the program was loaded counts zero.
    Status read(std::span<const unsigned> napiIds,
                std::vector<std::pair<unsigned, PollCounts>> &out) const;
    // Each possible CPU's NET_RX softirq time, by CPU number.
    Status readSoftirqTime(std::vector<SoftirqTime> &perCpu) const;
    // What the figures cannot tell apart here (empty when nothing): said once with them.
    const std::string &caveat() const { return caveat_; }

  private:
    struct Skeleton;
    explicit PollAttribution(Skeleton *s);
    Skeleton *skel_;
    int cpus_ = 0;
    std::string caveat_;
};

} // namespace ringlab::kernel
