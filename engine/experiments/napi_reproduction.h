// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine reproduce napi` (issue 44, part 5): the cases of the kernel series
// "Suspend IRQs during application busy periods" (net-next v9, November 2024) and the
// SIGMETRICS 2024 paper it cites, on the kernel lab: base (interrupts), defer
// (napi_defer_hard_irqs with gro_flush_timeout), busy (epoll busy poll with
// prefer_busy_poll) and suspend (the same with irq_suspend_timeout), each at two request
// rates, repeated round robin so that a drift falls on every case alike. Each row gives the
// round trip's p99, the machine's CPU and who drove the NAPI's polls (the BPF view), with
// 95 % intervals and the change against base; the published column says what the series
// reports and where.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/common/status.h"
#include "engine/experiments/reproduce_job.h"
#include "engine/metrics/statistics.h"

namespace ringlab {

// What the series' cover letter measured for the case it names (its table: the median over
// about 10 runs of the 99th percentile latency, the mean CPU utilisation), at its two lowest
// loads, which stand beside this reproduction's low and high rate.
struct NapiPublished {
    std::string_view testcase;      // the cover letter's name: base, defer20, napibusy, ...
    std::array<double, 2> p99Us{};  // at 200K and at 400K queries/s
    std::array<double, 2> cpuPct{}; // the same
};

struct NapiCase {
    std::string_view name; // base, defer, busy, suspend
    std::string_view what;
    std::vector<std::pair<std::string_view, std::string_view>> settings; // over base's
    int p99Expected = 0, cpuExpected = 0; // against base: -1 lower, +1 higher, 0 none
    std::string_view expectedText;        // what the kernel's documentation says, and where
    NapiPublished published;
};
// The series' loads beside napiRates() (low, high), and where its figures come from.
inline constexpr std::array<std::string_view, 2> kNapiPublishedLoads{"200K", "400K"};
extern const std::string_view kNapiPublishedSource;
std::span<const NapiCase> napiCases();
// The request rates each case runs at, low then high.
std::span<const int> napiRates();
inline constexpr std::string_view kNapiCaseName = "napi";
inline constexpr std::string_view kNapiDevice = "kernel-lab";

struct NapiRow {
    const NapiCase *c = nullptr;
    int rate = 0;
    std::vector<std::int64_t> sessions;
    Estimate p99, cpu;
    Difference p99VsBase, cpuVsBase;
    // The series' own figures for this case at the load beside this rate, and their change
    // against its base (percent); the changes are what compares across the two machines.
    double publishedP99Us = 0, publishedCpuPct = 0;
    double publishedP99VsBasePct = 0, publishedCpuVsBasePct = 0;
    std::string_view publishedLoad;
    std::vector<std::pair<std::string, double>> pollShare; // source, % of frames
    std::string verdict;
};

// Runs every case at every rate `o.repeat` times, recording each run; a signal on `sigFd`
// (-1: none) or `o.cancelled` interrupts it, `error` says why it ended early.
Outcome runNapiReproduction(const ReproduceOptions &o, int sigFd, std::vector<NapiRow> &rows,
                            std::string &error);
std::string formatNapiReproduction(const std::vector<NapiRow> &rows, bool markdown);

} // namespace ringlab
