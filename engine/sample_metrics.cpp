// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sample_metrics.h"

#include "engine/sample_json.h"

namespace ringlab {

std::vector<MetricValue> flattenSample(const Sample &s)
{
    std::vector<MetricValue> m;
    m.reserve(64 + 3 * s.threads.size());
    auto put = [&](std::string name, const char *unit, double v, std::string thread = {}) {
        m.push_back({std::move(name), unit, std::move(thread), v});
    };
    put("offered_pps", "pps", s.rateOf(C::Offered));
    put("rx_pps", "pps", s.rateOf(C::RxPackets));
    put("rx_mbps", "Mbit/s", s.rxMbps);
    put("tx_pps", "pps", s.rateOf(C::TxPackets));
    put("tx_mbps", "Mbit/s", s.txMbps);
    for (std::size_t k = 0; k < kCounterCount; ++k) {
        const C c = static_cast<C>(k);
        if (c == C::Offered || c == C::RxPackets || c == C::TxPackets || c == C::RxBytes ||
            c == C::TxBytes || c == C::Processed)
            continue;
        put(std::string(counterName(c)) + "_per_s", "1/s", s.rate[k]);
    }
    const struct {
        const char *prefix;
        const LatencySummary &l;
    } lat[] = {{"latency", s.latency}, {"rtt", s.rtt}};
    for (const auto &[prefix, l] : lat) {
        const std::string p = prefix;
        put(p + "_count", "packets", static_cast<double>(l.count));
        if (!l.count) continue; // no packet, no latency: absent, not zero
        put(p + "_p50_us", "us", l.p50);
        put(p + "_p90_us", "us", l.p90);
        put(p + "_p99_us", "us", l.p99);
        put(p + "_p999_us", "us", l.p999);
        put(p + "_max_us", "us", l.max);
        put(p + "_mean_us", "us", l.mean);
    }
    if (s.latency.count)
        for (std::size_t k = 0; k < kStageSpans; ++k)
            put(std::string("stage_") + stageSpanName(k) + "_us", "us", s.stageUs[k]);
    put("process_cpu_ms_per_s", "ms/s", s.processCpuMsPerS);
    put("machine_cpu_pct", "%", s.machineCpuPct);
    put("pool_free", "buffers", s.poolFree);
    put("rx_posted", "descriptors", s.rxPosted);
    put("tx_pending", "descriptors", s.txPending);
    put("handoff_depth", "packets", s.handoffDepth);
    for (const auto &t : s.threads) {
        put("cpu_ms_per_s", "ms/s", t.cpuMsPerS, t.name);
        put("wakeups_per_s", "1/s", t.wakeupsPerS, t.name);
    }
    return m;
}

int betterDirection(const std::string &name)
{
    if (name == "rx_pps" || name == "tx_pps" || name == "rx_mbps" || name == "tx_mbps") return +1;
    if (name == "offered_pps" || name.ends_with("_count") || name == "pool_free") return 0;
    return -1; // CPU, wakeups, drops, events, latency, queue depths: less is better
}

} // namespace ringlab
