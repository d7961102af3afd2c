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

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/common/status.h"
#include "engine/experiments/reproduce_job.h"
#include "engine/metrics/statistics.h"

namespace ringlab {

struct NapiCase {
    std::string_view name; // base, defer, busy, suspend
    std::string_view what;
    std::vector<std::pair<std::string_view, std::string_view>> settings; // over base's
    int p99Expected = 0, cpuExpected = 0; // against base: -1 lower, +1 higher, 0 none
    std::string_view expectedText;        // what the kernel's documentation says, and where
};
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
    std::vector<std::pair<std::string, double>> pollShare; // source, % of frames
    std::string verdict;
};

// Runs every case at every rate `o.repeat` times, recording each run; a signal on `sigFd`
// (-1: none) or `o.cancelled` interrupts it, `error` says why it ended early.
Outcome runNapiReproduction(const ReproduceOptions &o, int sigFd, std::vector<NapiRow> &rows,
                            std::string &error);
std::string formatNapiReproduction(const std::vector<NapiRow> &rows, bool markdown);

} // namespace ringlab
