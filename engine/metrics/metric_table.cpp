// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/metric_table.h"

#include "engine/metrics/sample_json.h"

namespace ringlab {

namespace {
using Read = std::function<std::optional<double>(const Sample &)>;
using Write = std::function<void(Sample &, double)>;

std::uint32_t u32(double v)
{
    return v <= 0 ? 0u : static_cast<std::uint32_t>(v);
}

MetricDef counterRate(const std::string &name, CounterId c, int better)
{
    const auto k = static_cast<std::size_t>(c);
    return {name,
            name.ends_with("_pps") ? "pps" : "1/s",
            better,
            [k](const Sample &s) -> std::optional<double> { return s.rate[k]; },
            [k](Sample &s, double v) { s.rate[k] = v; },
            {},
            {}};
}

// Counters whose rate follows the load (work done), rather than judging the setting.
bool followsLoad(CounterId c)
{
    return c == CounterId::RefillPosted || c == CounterId::Polls || c == CounterId::WorkItems ||
           c == CounterId::TxCleans || c == CounterId::TxCleanKicks ||
           c == CounterId::TxInlineCleans || c == CounterId::DimSteps;
}

void addLatency(std::vector<MetricDef> &t, const std::string &prefix, LatencySummary Sample::*field)
{
    t.push_back({prefix + "_count",
                 "packets",
                 0,
                 [field](const Sample &s) -> std::optional<double> {
                     return static_cast<double>((s.*field).count);
                 },
                 [field](Sample &s, double v) {
                     (s.*field).count = v <= 0 ? 0 : static_cast<std::uint64_t>(v);
                 },
                 {},
                 {}});
    const struct {
        const char *suffix;
        double LatencySummary::*f;
    } parts[] = {{"_p50_us", &LatencySummary::p50}, {"_p90_us", &LatencySummary::p90},
                 {"_p99_us", &LatencySummary::p99}, {"_p999_us", &LatencySummary::p999},
                 {"_max_us", &LatencySummary::max}, {"_mean_us", &LatencySummary::mean}};
    for (const auto &p : parts) {
        const auto f = p.f;
        // No packet, no latency: absent, not zero.
        t.push_back({prefix + p.suffix,
                     "us",
                     -1,
                     [field, f](const Sample &s) -> std::optional<double> {
                         if (!(s.*field).count) return std::nullopt;
                         return (s.*field).*f;
                     },
                     [field, f](Sample &s, double v) { (s.*field).*f = v; },
                     {},
                     {}});
    }
}

std::vector<MetricDef> build()
{
    std::vector<MetricDef> t;
    t.push_back(counterRate("offered_pps", CounterId::Offered, 0));
    t.push_back(counterRate("rx_pps", CounterId::RxPackets, +1));
    t.push_back({"rx_mbps",
                 "Mbit/s",
                 +1,
                 [](const Sample &s) -> std::optional<double> { return s.rxMbps; },
                 [](Sample &s, double v) { s.rxMbps = v; },
                 {},
                 {}});
    t.push_back(counterRate("tx_pps", CounterId::TxPackets, +1));
    t.push_back({"tx_mbps",
                 "Mbit/s",
                 +1,
                 [](const Sample &s) -> std::optional<double> { return s.txMbps; },
                 [](Sample &s, double v) { s.txMbps = v; },
                 {},
                 {}});
    // The stmmac case's direct effect: coalesce timer arms per transmitted frame.
    t.push_back({"timer_arms_per_frame",
                 "1/frame",
                 -1,
                 [](const Sample &s) -> std::optional<double> {
                     const double tx = s.rateOf(CounterId::TxPackets);
                     if (tx <= 0) return std::nullopt;
                     return s.rateOf(CounterId::TimerArms) / tx;
                 },
                 {},
                 {},
                 {}});
    t.push_back({"drops_per_s",
                 "1/s",
                 -1, // every cause summed
                 [](const Sample &s) -> std::optional<double> { return s.dropsPerS(); },
                 {},
                 {},
                 {}});
    for (std::size_t k = 0; k < kCounterCount; ++k) {
        const CounterId c = static_cast<CounterId>(k);
        if (c == CounterId::Offered || c == CounterId::RxPackets || c == CounterId::TxPackets ||
            c == CounterId::RxBytes || c == CounterId::TxBytes || c == CounterId::Processed)
            continue;
        t.push_back(
            counterRate(std::string(counterName(c)) + "_per_s", c, followsLoad(c) ? 0 : -1));
    }
    addLatency(t, "latency", &Sample::latency);
    addLatency(t, "rtt", &Sample::rtt);
    for (std::size_t k = 0; k < kStageSpans; ++k)
        t.push_back({std::string("stage_") + stageSpanName(k) + "_us",
                     "us",
                     -1,
                     [k](const Sample &s) -> std::optional<double> {
                         if (!s.latency.count) return std::nullopt;
                         return s.stageUs[k];
                     },
                     [k](Sample &s, double v) { s.stageUs[k] = v; },
                     {},
                     {}});
    auto field = [&](const char *name, const char *unit, int better, auto get, auto set) {
        t.push_back({name,
                     unit,
                     better,
                     [get](const Sample &s) -> std::optional<double> { return get(s); },
                     set,
                     {},
                     {}});
    };
    field(
        "engine_cpu_ms_per_s", "ms/s", -1, [](const Sample &s) { return s.engineCpuMsPerS; },
        [](Sample &s, double v) { s.engineCpuMsPerS = v; });
    field(
        "process_cpu_ms_per_s", "ms/s", -1, [](const Sample &s) { return s.processCpuMsPerS; },
        [](Sample &s, double v) {
            s.processCpuMsPerS = v;
            s.processCpuPct = v / 10;
        });
    field(
        "machine_cpu_pct", "%", -1, [](const Sample &s) { return s.machineCpuPct; },
        [](Sample &s, double v) { s.machineCpuPct = v; });
    // Outside this process, over the last second (the kernel counts it in 10 ms ticks).
    t.push_back({"neighbour_cpu_ms_per_s",
                 "ms/s",
                 -1,
                 [](const Sample &s) -> std::optional<double> {
                     if (s.neighbourCpuMsPerS < 0) return std::nullopt;
                     return s.neighbourCpuMsPerS;
                 },
                 [](Sample &s, double v) { s.neighbourCpuMsPerS = v; },
                 {},
                 {}});
    field(
        "pool_free", "buffers", 0, [](const Sample &s) { return double(s.poolFree); },
        [](Sample &s, double v) { s.poolFree = u32(v); });
    field(
        "rx_posted", "descriptors", 0, [](const Sample &s) { return double(s.rxPosted); },
        [](Sample &s, double v) { s.rxPosted = u32(v); });
    field(
        "tx_pending", "descriptors", 0, [](const Sample &s) { return double(s.txPending); },
        [](Sample &s, double v) { s.txPending = u32(v); });
    field(
        "handoff_depth", "packets", -1, [](const Sample &s) { return double(s.handoffDepth); },
        [](Sample &s, double v) { s.handoffDepth = u32(v); });
    // In force: irq.usecs, or net_dim's.
    field(
        "rx_moderation_us", "us", 0, [](const Sample &s) { return double(s.rxModerationUs); },
        [](Sample &s, double v) { s.rxModerationUs = u32(v); });
    field(
        "tx_coalesce_us", "us", 0, [](const Sample &s) { return double(s.txCoalesceUs); },
        [](Sample &s, double v) { s.txCoalesceUs = u32(v); });
    // Per-thread families, after the device's own metrics in a flattened sample.
    t.push_back({"cpu_ms_per_s",
                 "ms/s",
                 -1,
                 {},
                 {},
                 [](const ThreadStat &th) -> std::optional<double> { return th.cpuMsPerS; },
                 [](ThreadStat &th, double v) {
                     th.cpuMsPerS = v;
                     th.cpuPct = v / 10;
                 }});
    t.push_back({"wakeups_per_s",
                 "1/s",
                 -1,
                 {},
                 {},
                 [](const ThreadStat &th) -> std::optional<double> { return th.wakeupsPerS; },
                 [](ThreadStat &th, double v) { th.wakeupsPerS = v; }});
    // The longest time a polling thread left the RX ring unattended in the interval.
    t.push_back({"poll_gap_max_us",
                 "us",
                 -1,
                 {},
                 {},
                 [](const ThreadStat &th) -> std::optional<double> {
                     if (th.pollGapMaxUs < 0) return std::nullopt;
                     return th.pollGapMaxUs;
                 },
                 [](ThreadStat &th, double v) { th.pollGapMaxUs = v; }});
    return t;
}
} // namespace

const std::vector<MetricDef> &metricTable()
{
    static const std::vector<MetricDef> table = build();
    return table;
}

const MetricDef *findMetric(std::string_view name)
{
    for (const MetricDef &m : metricTable())
        if (m.name == name) return &m;
    return nullptr;
}

} // namespace ringlab
