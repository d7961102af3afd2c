// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/poll_attribution.h"

#include <bpf/libbpf.h>

#include <cerrno>
#include <charconv>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include "drivers/kernel/bpf/poll_sources.h"
#include "napi_poll.skel.h" // generated from bpf/napi_poll.bpf.c by bpftool

namespace ringlab::kernel {

static_assert(kPollSources == RL_POLL_SOURCES);
static_assert(static_cast<int>(PollSource::Softirq) == RL_POLL_SOFTIRQ);
static_assert(static_cast<int>(PollSource::Watchdog) == RL_POLL_WATCHDOG);
static_assert(static_cast<int>(PollSource::Busy) == RL_POLL_BUSY);
static_assert(static_cast<int>(PollSource::Kthread) == RL_POLL_KTHREAD);
static_assert(static_cast<int>(PollSource::Other) == RL_POLL_OTHER);

namespace {

// Every poll source's metrics, written out so that a metric's name can be searched for.
constexpr std::array kSources{
    PollSourceName{
        PollSource::Softirq, "kernel_polls_softirq_per_s",
        "NAPI polls run by the NET_RX softirq after an interrupt or a kick",
        "kernel_poll_packets_softirq_per_s",
        "frames handed up by polls run by the NET_RX softirq after an interrupt or a kick"},
    PollSourceName{PollSource::Watchdog, "kernel_polls_timer_per_s",
                   "NAPI polls run by the NET_RX softirq the NAPI's timer scheduled "
                   "(gro_flush_timeout, irq_suspend_timeout)",
                   "kernel_poll_packets_timer_per_s",
                   "frames handed up by polls run by the NET_RX softirq the NAPI's timer scheduled "
                   "(gro_flush_timeout, irq_suspend_timeout)"},
    PollSourceName{PollSource::Busy, "kernel_polls_busy_per_s",
                   "NAPI polls run by an application's busy poll (socket or epoll)",
                   "kernel_poll_packets_busy_per_s",
                   "frames handed up by polls run by an application's busy poll (socket or epoll)"},
    PollSourceName{PollSource::Kthread, "kernel_polls_kthread_per_s",
                   "NAPI polls run by the NAPI's kthread (threaded NAPI)",
                   "kernel_poll_packets_kthread_per_s",
                   "frames handed up by polls run by the NAPI's kthread (threaded NAPI)"},
    PollSourceName{PollSource::Other, "kernel_polls_other_per_s",
                   "NAPI polls run by another kernel thread (netpoll)",
                   "kernel_poll_packets_other_per_s",
                   "frames handed up by polls run by another kernel thread (netpoll)"},
};

// libbpf's messages while loading: the last warning says what the kernel refused. Kept for
// open()'s answer instead of printed (the engine's stderr is the user's).
std::mutex logMutex;
std::string lastLog;

int keepLog(enum libbpf_print_level level, const char *format, va_list args)
{
    if (level == LIBBPF_DEBUG) return 0;
    char line[512];
    const int n = std::vsnprintf(line, sizeof line, format, args);
    if (n <= 0) return 0;
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    // The first warning says why (the verifier, BTF, a missing tracepoint); libbpf's own
    // summaries after it ("failed to load object") do not.
    for (const char *summary :
         {"libbpf: failed to load BPF skeleton", "libbpf: failed to load object",
          "libbpf: failed to initialize skeleton"})
        if (text.rfind(summary, 0) == 0) return 0;
    if (!text.empty() && lastLog.empty()) lastLog = text;
    return 0;
}

// A kernel function's address from /proc/kallsyms; 0 when absent or hidden (kptr_restrict).
std::uint64_t kernelSymbol(std::string_view name)
{
    std::ifstream in("/proc/kallsyms");
    std::string line;
    while (std::getline(in, line)) {
        // "ffffffff81ea8da0 t napi_watchdog"
        const auto a = line.find(' '), b = line.find(' ', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        if (std::string_view(line).substr(b + 1) != name) continue;
        std::uint64_t addr = 0;
        const auto [end, ec] = std::from_chars(line.data(), line.data() + a, addr, 16);
        return ec == std::errc() && end == line.data() + a ? addr : 0;
    }
    return 0;
}

} // namespace

std::span<const PollSourceName> pollSourceNames()
{
    return kSources;
}

std::string napiFigureName(std::string_view figure, unsigned napiId)
{
    constexpr std::string_view kernel = "kernel_";
    const std::string_view rest =
        figure.starts_with(kernel) ? figure.substr(kernel.size()) : figure;
    return std::string(kernel) + "napi" + std::to_string(napiId) + "_" + std::string(rest);
}

struct PollAttribution::Skeleton {
    napi_poll *obj = nullptr;
};

PollAttribution::PollAttribution(Skeleton *s) : skel_(s), cpus_(libbpf_num_possible_cpus()) {}

PollAttribution::~PollAttribution()
{
    napi_poll::destroy(skel_->obj);
    delete skel_;
}

std::unique_ptr<PollAttribution> PollAttribution::open(unsigned ifindex, std::string &why)
{
    std::lock_guard lock(logMutex);
    lastLog.clear();
    libbpf_print_fn_t before = libbpf_set_print(keepLog);
    auto fail = [&](const char *step, int err) {
        why = std::string("poll attribution: ") + step +
              " the BPF program failed: " + std::strerror(err < 0 ? -err : err) +
              (lastLog.empty() ? "" : " (" + lastLog + ")");
        libbpf_set_print(before);
        return nullptr;
    };
    napi_poll *obj = napi_poll::open();
    if (!obj) return fail("opening", errno);
    const std::uint64_t watchdog = kernelSymbol("napi_watchdog");
    obj->rodata->watchdog_fn = watchdog;
    obj->rodata->watch_ifindex = ifindex;
    if (int err = napi_poll::load(obj); err) {
        napi_poll::destroy(obj);
        return fail("loading", err);
    }
    if (int err = napi_poll::attach(obj); err) {
        napi_poll::destroy(obj);
        return fail("attaching", err);
    }
    libbpf_set_print(before);
    auto *s = new Skeleton{obj};
    auto p = std::unique_ptr<PollAttribution>(new PollAttribution(s));
    if (p->cpus_ <= 0) {
        why = "poll attribution: cannot count the possible CPUs";
        return nullptr;
    }
    if (!watchdog)
        p->caveat_ = "poll attribution: napi_watchdog is not in /proc/kallsyms (or its address "
                     "is hidden): polls the NAPI's timer drove count as softirq";
    return p;
}

Status PollAttribution::read(std::span<const unsigned> napiIds,
                             std::vector<std::pair<unsigned, PollCounts>> &out) const
{
    out.clear();
    std::vector<rl_poll_counts> perCpu(static_cast<std::size_t>(cpus_));
    for (unsigned id : napiIds) {
        const __u32 key = id;
        PollCounts napi;
        if (bpf_map__lookup_elem(skel_->obj->maps.counts, &key, sizeof key, perCpu.data(),
                                 perCpu.size() * sizeof(rl_poll_counts), 0) != 0) {
            if (errno != ENOENT)
                return Status::failed("poll attribution: reading NAPI " + std::to_string(id) +
                                      ": " + std::strerror(errno));
            out.emplace_back(id, napi); // not polled yet
            continue;
        }
        for (const rl_poll_counts &c : perCpu)
            for (std::size_t k = 0; k < kPollSources; ++k) {
                napi.polls[k] += c.polls[k];
                napi.packets[k] += c.packets[k];
            }
        out.emplace_back(id, napi);
    }
    return Status::success();
}

Status PollAttribution::readSoftirqTime(std::vector<SoftirqTime> &perCpu) const
{
    std::vector<rl_softirq_time> values(static_cast<std::size_t>(cpus_));
    const __u32 key = 0;
    if (bpf_map__lookup_elem(skel_->obj->maps.rx_time, &key, sizeof key, values.data(),
                             values.size() * sizeof(rl_softirq_time), 0) != 0)
        return Status::failed(std::string("poll attribution: reading the NET_RX softirq time: ") +
                              std::strerror(errno));
    perCpu.resize(values.size());
    for (std::size_t c = 0; c < values.size(); ++c)
        perCpu[c] = {values[c].ns, values[c].runs};
    return Status::success();
}

} // namespace ringlab::kernel
