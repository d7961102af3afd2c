// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/kernel_watch.h"

#include <net/if.h>
#include <pthread.h>

#include <chrono>

#include "drivers/host/netdev_napi.h"
#include "engine/datapath/clock.h"

namespace ringlab::kernel {

namespace {
constexpr auto kPeriod = std::chrono::milliseconds(50);
constexpr std::int64_t kRescanNs = 1'000'000'000; // NAPI kthreads found again
} // namespace

void kernelFigures(const KernelReading &before, const KernelReading &after, DeviceReading &out)
{
    if (before.atNs == 0 || after.atNs <= before.atNs) return;
    const double s = static_cast<double>(after.atNs - before.atNs) / 1e9;
    for (auto &m : kernelRates(before.kernel, after.kernel, s))
        out.metrics.push_back(std::move(m));
    if (before.hasNetdev && after.hasNetdev)
        for (auto &m : netdevRates(before.netdev, after.netdev, s))
            out.metrics.push_back(std::move(m));
    if (before.hasPolls && after.hasPolls) {
        // What each NAPI present in both readings did between them: a NAPI that came or went
        // (channels changed) adds nothing, rather than its whole count at once.
        PollCounts zero, moved;
        std::vector<std::pair<unsigned, PollCounts>> perNapi;
        for (const auto &[id, a] : after.polls)
            for (const auto &[was, b] : before.polls)
                if (was == id) {
                    PollCounts napi;
                    for (std::size_t k = 0; k < kPollSources; ++k) {
                        napi.polls[k] = a.polls[k] >= b.polls[k] ? a.polls[k] - b.polls[k] : 0;
                        napi.packets[k] =
                            a.packets[k] >= b.packets[k] ? a.packets[k] - b.packets[k] : 0;
                        moved.polls[k] += napi.polls[k];
                        moved.packets[k] += napi.packets[k];
                    }
                    perNapi.emplace_back(id, napi);
                }
        for (auto &m : pollRates(zero, moved, s))
            out.metrics.push_back(std::move(m));
        // Each NAPI's own, when the netdev has several (a multi-queue NIC, a veth with
        // channels): which queue the busy poll reached, which one its kthread served.
        if (perNapi.size() > 1)
            for (const auto &[id, napi] : perNapi)
                for (auto &m : pollRates(zero, napi, s)) {
                    m.name = napiFigureName(m.name, id);
                    out.metrics.push_back(std::move(m));
                }
    }
    for (const auto &t : after.threads)
        for (const auto &b : before.threads)
            if (b.napi.pid == t.napi.pid && b.napi.name == t.napi.name)
                out.threads.push_back(threadRates(t.napi.name, b.cpu, t.cpu, s));
    // The softirq as a row of the CPU chart per CPU that ran it since the run began (a CPU
    // that never did is not a row of zeros on a large machine).
    if (before.netRx.size() == after.netRx.size())
        for (std::size_t c = 0; c < after.netRx.size(); ++c) {
            const SoftirqTime &a = after.netRx[c], &b = before.netRx[c];
            if (a.runs == 0) continue;
            ThreadStat t;
            t.name = kNetRxRowPrefix + std::to_string(c);
            t.cpuMsPerS = (a.ns >= b.ns ? static_cast<double>(a.ns - b.ns) : 0) / 1e6 / s;
            t.cpuPct = t.cpuMsPerS / 10;
            t.wakeupsPerS = (a.runs >= b.runs ? static_cast<double>(a.runs - b.runs) : 0) / s;
            out.threads.push_back(std::move(t));
        }
}

KernelWatch::KernelWatch(std::string ifname)
    : ifname_(std::move(ifname)), ifindex_(if_nametoindex(ifname_.c_str()))
{
    thread_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "kernel-watch");
        run();
    });
}

KernelWatch::~KernelWatch()
{
    {
        std::lock_guard lock(stopMutex_);
        stop_ = true;
    }
    stopCv_.notify_all();
    thread_.join();
}

bool KernelWatch::latest(KernelReading &out)
{
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || latest_.atNs == 0) return false;
    out = latest_;
    return true;
}

std::string KernelWatch::takeProblem()
{
    std::unique_lock lock(mutex_, std::try_to_lock); // the sampler never waits: next time
    return lock.owns_lock() ? std::exchange(problem_, {}) : std::string();
}

void KernelWatch::findThreads(KernelReading &r)
{
    if (r.atNs - threadsFoundNs_ >= kRescanNs || threadsFoundNs_ == 0) {
        threadsFoundNs_ = r.atNs;
        threads_.clear();
        napiIds_.clear();
        // Named as the kernel names them, "napi/IF-ID", from netdev netlink where it answers
        // (a comm of 15 bytes cuts long names); else by name.
        host::NetdevNetlink nl;
        std::vector<host::NapiInstance> napis;
        Status listed = ifindex_ ? host::NetdevNetlink::open(nl)
                                 : Status::refused(ifname_ + " has no ifindex here");
        if (listed.ok()) listed = nl.napis(ifindex_, napis);
        noNapis_ = listed.ok() ? std::string() : listed.error;
        if (listed.ok()) {
            for (const auto &n : napis)
                napiIds_.push_back(n.id);
            for (const auto &n : napis)
                if (n.pid && *n.pid > 0)
                    threads_.push_back({*n.pid, "napi/" + ifname_ + "-" + std::to_string(n.id)});
        } else {
            threads_ = napiThreads(ifname_);
        }
    }
    for (const auto &t : threads_) {
        KernelReading::Thread th{t, {}};
        if (readThreadCpu(t.pid, th.cpu).ok()) r.threads.push_back(std::move(th));
    }
}

void KernelWatch::run()
{
    std::string pollsRefused;
    polls_ = PollAttribution::open(ifindex_, pollsRefused);
    if (polls_) pollsRefused = polls_->caveat(); // said as the problem until another comes
    for (;;) {
        KernelReading r;
        r.atNs = nowNs();
        std::string problem;
        if (auto st = readKernelCounters(r.kernel); !st.ok()) problem = st.error;
        if (auto st = readNetdevCounters(ifname_, r.netdev); st.ok())
            r.hasNetdev = true;
        else if (problem.empty())
            problem = st.error;
        findThreads(r);
        if (polls_)
            if (auto st = polls_->readSoftirqTime(r.netRx); !st.ok()) {
                r.netRx.clear();
                if (problem.empty()) problem = st.error;
            }
        if (!polls_) {
            if (problem.empty()) problem = pollsRefused;
        } else if (napiIds_.empty()) {
            if (problem.empty())
                problem = "poll attribution: " + ifname_ +
                          (noNapis_.empty() ? " has no NAPI (a veth has one only with GRO on)"
                                            : ": its NAPIs cannot be listed: " + noNapis_);
        } else if (auto st = polls_->read(napiIds_, r.polls); st.ok()) {
            r.hasPolls = true;
            if (problem.empty()) problem = pollsRefused;
        } else if (problem.empty()) {
            problem = st.error;
        }
        {
            std::lock_guard lock(mutex_);
            latest_ = std::move(r);
            if (problem != reported_) { // said once, when it starts
                reported_ = problem;
                if (!problem.empty()) problem_ = problem;
            }
        }
        std::unique_lock lock(stopMutex_);
        if (stopCv_.wait_for(lock, kPeriod, [this] { return stop_; })) return;
    }
}

} // namespace ringlab::kernel
