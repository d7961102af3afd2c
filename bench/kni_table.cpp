// SPDX-License-Identifier: GPL-2.0-or-later
// kni_table: the DPDK KNI case on the simulated NIC. A ping-like probe stream at a low
// rate; for each usleep_range the poll thread's CPU and the probe round trip, plus the
// schedule_timeout baseline (tick mode at 1000 Hz asking for 5 us).
#include "bench_common.h"

using namespace ringlab;
using namespace ringlab::bench;

int main()
{
    printMachine("kni_table");
    std::printf("load 0, probes 50/s, 2 s per row, medians over the samples after 0.3 s\n\n");
    std::printf("%-26s %12s %12s %14s %14s\n", "poll wait", "poll CPU %", "wakeups/s", "RTT p50 us",
                "RTT max us");
    const auto rows = kniLadder("schedule_timeout(1 jiffy)", "1000");
    std::vector<double> cpu, rtt;
    for (const auto &row : rows) {
        Assignments a = {{"load.rate_pps", "0"}, {"probe.rate_hz", "50"}};
        a.insert(a.end(), row.a.begin(), row.a.end());
        const auto s = runSim(paramsOrDie(a), 20);
        const double c =
            median(series(s, 3, [](const Sample &x) { return x.thread("poll")->cpuPct; }));
        const double w =
            median(series(s, 3, [](const Sample &x) { return x.thread("poll")->wakeupsPerS; }));
        std::vector<double> r, rmax;
        for (std::size_t k = 3; k < s.size(); ++k)
            if (s[k]->rtt.count) {
                r.push_back(s[k]->rtt.p50);
                rmax.push_back(s[k]->rtt.max);
            }
        std::printf("%-26s %12.1f %12.0f %14.1f %14.1f\n", row.label, c, w, median(r),
                    rmax.empty() ? 0.0 : *std::max_element(rmax.begin(), rmax.end()));
        if (&row != &rows.front()) {
            cpu.push_back(c);
            rtt.push_back(median(r));
        }
    }
    bool cpuFalls = true, rttRises = true;
    for (std::size_t k = 1; k < cpu.size(); ++k) {
        cpuFalls &= cpu[k] < cpu[k - 1];
        rttRises &= rtt[k] > rtt[k - 1];
    }
    std::printf("\nas the sleep grows: CPU falls at every step: %s; RTT rises at every step: %s\n",
                cpuFalls ? "yes" : "no", rttRises ? "yes" : "no");
    return 0;
}
