// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/profile/reference_cases.h"

namespace ringlab {
namespace {

// clang-format off
const std::vector<ReferenceCase> kCases = {
    {"stmmac", "stmmac: arm the TX coalesce timer only when NAPI is not scheduled, and 5 ms",
     "stmmac-rearm-1ms", "stmmac-skip-5ms",
     {{"TX throughput", "Mbit/s", "tx_mbps", {}, {}, 1,
       "200-300 -> ~1000 Mbit/s (ipq806x, iperf)", +1, 300},
      {"timer arms per frame", "per frame", "timer_arms_per_frame", {}, {}, 1,
       "every frame before the fix; only while NAPI is idle after", -1, 0, true}},
     "The seed's throughput is TCP on an ipq806x router; here 64-byte frames at line rate on "
     "this host, with the target model's arm cost (cost.timer_arm_ns) and clean cost "
     "(cost.tx_clean_ns). The seed gives no change in per cent for arms per frame."},
    {"mhi", "mhi_net: RX refill from a dedicated thread instead of the shared work queue",
     "mhi-workqueue", "mhi-thread",
     {{"refill context CPU", "ms/s", "cpu_ms_per_s[kworker/0]", "cpu_ms_per_s[refill]", {}, 1,
       "61-63 -> 21-22 ms/s (powertop)", -1, -65, true},
      {"refill wakeups", "/s", "refill_wakeups_per_s", {}, {}, 1,
       "134-141 -> 150-170 /s (powertop events)", +1, 17}},
     "Both contexts do the same work per buffer (the same target model, neither yields on its "
     "own), so a faithful model moves the CPU only by the wakeups' cost. powertop times a work "
     "item by wall time and a kthread by run time, which may explain part of the seed's "
     "figure; Ringlab measures run time for both. kworker/0 also runs the 10 ms housekeeping."},
    {"zephyr", "Zephyr net: hand packets to a FIFO thread instead of one work item each",
     "zephyr-work", "zephyr-fifo",
     {{"hand-off step", "us", "stage_handoff_us", {}, {}, 1, "26 -> 23 us", -1, -12, true},
      {"end-to-end latency", "us", "latency_mean_us", {}, {}, 1, "total -10 %", -1, -10}},
     "Zephyr's FIFO thread takes one net_pkt per k_fifo_get (handoff.batch 1) and the work "
     "side runs on its own queue (handoff.work_queue dedicated). Zephyr's queue also "
     "k_yield()s after each item, to threads of its priority only; sched_yield() here would "
     "yield to every process on the machine, so the model's worker does not yield."},
    {"ocelot", "ocelot: pre-compute the injection frame header",
     "ocelot-per-packet", "ocelot-precomputed",
     {{"UDP TX throughput", "Mbit/s", "tx_mbps", {}, {}, 1, "31 -> 33 Mbit/s (1460 B)", +1, 6.5},
      {"poll CPU per frame", "us", "cpu_ms_per_s[poll]", {}, "tx_pps", 1000,
       "packing ~5 % of a frame", -1, -5, true}},
     "The seed's 500 MHz MIPS spent ~377 us per frame; the profiles scale the frame and the "
     "per-field packing cost by 1/20 (cost.header_field_ns), keeping packing ~5 % of a frame."},
    {"kni", "DPDK KNI: usleep_range(100, 200) instead of a one-tick schedule_timeout",
     "kni-tick", "kni-sleep-100-200",
     {{"poll thread CPU", "%", "cpu_ms_per_s[poll]", {}, {}, 0.1, "2-4 % -> 7 %", +1, 133, true},
      {"round trip, median", "us", "rtt_p50_us", {}, {}, 1, "~1000 -> 120-720 us (ping)", -1,
       -58},
      {"round trip, p99", "us", "rtt_p99_us", {}, {}, 1,
       "~1000 -> 120-720 us (ping, sent on the tick)", -1, -58}},
     "Probes arrive at random times, so the tick profile's median round trip is about half a "
     "tick; ping's sends are aligned to the tick, so it waits a whole one (~1 ms): compare the "
     "seed's figure with the probes' p99. Each wakeup makes KNI_RX_LOOP_NUM (1000) passes."},
};
// clang-format on

} // namespace

std::span<const ReferenceCase> referenceCases()
{
    return kCases;
}

const ReferenceCase *findReferenceCase(std::string_view name)
{
    for (const auto &c : kCases)
        if (c.name == name) return &c;
    return nullptr;
}

std::string referenceCaseNames()
{
    std::string s;
    for (const auto &c : kCases)
        s += (s.empty() ? "" : ", ") + std::string(c.name);
    return s;
}

} // namespace ringlab
