// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/metric_table.h"

#include <cstdio>
#include <cstdlib>

#include "engine/metrics/sample_json.h"
#include "engine/metrics/sample_metrics.h"

// Entries name the fields they set (designated initializers); the others keep the defaults
// metric_table.h gives them, which is what GCC's missing-initializer warning asks about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace ringlab {

std::string_view metricKindName(MetricKind k)
{
    static constexpr std::string_view names[] = {"rate", "gauge", "percentile", "count", "ratio"};
    return names[static_cast<std::size_t>(k)];
}

namespace {
using Read = std::function<std::optional<double>(const Sample &)>;
using Write = std::function<void(Sample &, double)>;

std::uint32_t u32(double v)
{
    return v <= 0 ? 0u : static_cast<std::uint32_t>(v);
}

// The counters whose rates are in a line's "throughput" (with the byte rates as Mbit/s).
bool isThroughput(CounterId c)
{
    return c == CounterId::Offered || c == CounterId::RxPackets || c == CounterId::TxPackets ||
           c == CounterId::RxBytes || c == CounterId::TxBytes;
}

// Counters whose rate follows the load (work done), rather than judging the setting.
bool followsLoad(CounterId c)
{
    return c == CounterId::Processed || c == CounterId::RefillPosted || c == CounterId::Polls ||
           c == CounterId::WorkItems || c == CounterId::TxCleans || c == CounterId::TxCleanKicks ||
           c == CounterId::TxInlineCleans || c == CounterId::DimSteps;
}

// "tx_clean_kicks" -> "TX clean kicks" ("rx" stays as "rx pps" and the charts write it).
std::string counterLabel(CounterId c)
{
    std::string out;
    std::string word;
    const std::string name(counterName(c));
    auto flush = [&] {
        if (word == "tx") word = "TX";
        if (word == "handoff") word = "hand-off";
        if (word == "dim") word = "net_dim";
        out += (out.empty() ? "" : " ") + word;
        word.clear();
    };
    for (char ch : name)
        if (ch == '_')
            flush();
        else
            word += ch;
    flush();
    return isDropCause(c) ? "drops: " + out : out;
}

MetricDef counterRate(CounterId c)
{
    const auto k = static_cast<std::size_t>(c);
    const std::string cn(counterName(c));
    const bool packets =
        c == CounterId::Offered || c == CounterId::RxPackets || c == CounterId::TxPackets;
    const std::string name = packets ? cn.substr(0, cn.find('_')) + "_pps" : cn + "_per_s";
    const std::string group = isThroughput(c)  ? "throughput."
                              : isDropCause(c) ? "drops_per_s."
                                               : "events_per_s.";
    return {.name = name,
            .unit = packets ? "pps" : "1/s",
            .kind = MetricKind::Rate,
            .better = c == CounterId::Offered ? 0
                      : packets               ? +1
                      : followsLoad(c)        ? 0
                                              : -1,
            .label = packets ? name.substr(0, name.find('_')) : counterLabel(c),
            .line = group + (packets ? name : cn),
            .read = [k](const Sample &s) -> std::optional<double> { return s.rate[k]; },
            .write = [k](Sample &s, double v) { s.rate[k] = v; }};
}

void addLatency(std::vector<MetricDef> &t, const std::string &prefix, const std::string &line,
                LatencySummary Sample::*field)
{
    t.push_back({.name = prefix + "_count",
                 .unit = "packets",
                 .kind = MetricKind::Count,
                 .better = 0,
                 .label = prefix + " count",
                 .line = line + ".count",
                 .whole = true,
                 .read = [field](const Sample &s) -> std::optional<double> {
                     return static_cast<double>((s.*field).count);
                 },
                 .write =
                     [field](Sample &s, double v) {
                         (s.*field).count = v <= 0 ? 0 : static_cast<std::uint64_t>(v);
                     }});
    const struct {
        const char *part;
        double LatencySummary::*f;
    } parts[] = {{"p50", &LatencySummary::p50}, {"p90", &LatencySummary::p90},
                 {"p99", &LatencySummary::p99}, {"p999", &LatencySummary::p999},
                 {"max", &LatencySummary::max}, {"mean", &LatencySummary::mean}};
    for (const auto &p : parts) {
        const auto f = p.f;
        const std::string part = p.part;
        // No packet, no latency: absent, not zero (a line writes 0 beside its count of 0).
        t.push_back({.name = prefix + "_" + part + "_us",
                     .unit = "us",
                     .kind = MetricKind::Percentile,
                     .label = prefix + " " + (part == "p999" ? "p99.9" : part),
                     .line = line + "." + part,
                     .read = [field, f](const Sample &s) -> std::optional<double> {
                         if (!(s.*field).count) return std::nullopt;
                         return (s.*field).*f;
                     },
                     .write = [field, f](Sample &s, double v) { (s.*field).*f = v; }});
    }
}

// A figure that is negative while it is not known (no poll gap for a thread that does not
// poll, no neighbour CPU before the first tick): absent, not a value.
template <class S> auto knownOrAbsent(double S::*f)
{
    return [f](const S &x) -> std::optional<double> {
        if (x.*f < 0) return std::nullopt;
        return x.*f;
    };
}
template <class S> auto setTo(double S::*f)
{
    return [f](S &x, double v) { x.*f = v; };
}

// One counter's rate over another's: derived, absent while the second is 0.
MetricDef ratio(const char *name, const char *unit, int better, const char *label, CounterId num,
                CounterId den)
{
    return {.name = name,
            .unit = unit,
            .kind = MetricKind::Ratio,
            .better = better,
            .label = label,
            .read = [num, den](const Sample &s) -> std::optional<double> {
                const double d = s.rateOf(den);
                if (d <= 0) return std::nullopt;
                return s.rateOf(num) / d;
            }};
}

// A field of the sample: whole-engine gauges and CPU figures.
template <class Get, class Set>
MetricDef field(const char *name, const char *unit, MetricKind kind, int better, const char *label,
                const char *line, bool whole, Get get, Set set)
{
    return {.name = name,
            .unit = unit,
            .kind = kind,
            .better = better,
            .label = label,
            .line = line,
            .whole = whole,
            .read = [get](const Sample &s) -> std::optional<double> { return get(s); },
            .write = set};
}

// A byte rate in Mbit/s: the sample keeps both.
MetricDef mbps(const char *name, const char *label, double Sample::*f, CounterId bytes)
{
    const auto k = static_cast<std::size_t>(bytes);
    return field(
        name, "Mbit/s", MetricKind::Rate, +1, label, (std::string("throughput.") + name).c_str(),
        false, [f](const Sample &s) { return s.*f; },
        [f, k](Sample &s, double v) {
            s.*f = v;
            s.rate[k] = v * 1e6 / 8;
        });
}

// Long because it is the table: one entry per metric, in column order, kept in one place.
std::vector<MetricDef> build()
{
    std::vector<MetricDef> t;
    using K = MetricKind;
    t.push_back(counterRate(CounterId::Offered));
    t.push_back(counterRate(CounterId::RxPackets));
    t.push_back(mbps("rx_mbps", "rx", &Sample::rxMbps, CounterId::RxBytes));
    t.push_back(counterRate(CounterId::TxPackets));
    t.push_back(mbps("tx_mbps", "tx", &Sample::txMbps, CounterId::TxBytes));
    // The stmmac case's direct effect: coalesce timer arms per transmitted frame.
    t.push_back(ratio("timer_arms_per_frame", "1/frame", -1, "timer arms per frame",
                      CounterId::TimerArms, CounterId::TxPackets));
    // NAPI's batch: how full each poll's harvest came back (poll.budget is the most).
    t.push_back(ratio("rx_per_poll", "packets", 0, "packets per poll", CounterId::RxPackets,
                      CounterId::Polls));
    t.push_back({.name = "drops_per_s",
                 .unit = "1/s",
                 .kind = K::Rate,
                 .label = "drops", // every cause summed
                 .read = [](const Sample &s) -> std::optional<double> { return s.dropsPerS(); }});
    for (std::size_t k = 0; k < kCounterCount; ++k)
        if (!isThroughput(static_cast<CounterId>(k)))
            t.push_back(counterRate(static_cast<CounterId>(k)));
    addLatency(t, "latency", "latency_us", &Sample::latency);
    // What the latency figures above were measured on (probes are always measured). Absent
    // from lines written before it existed: every frame.
    t.push_back({.name = std::string(kLatencySampleEveryMetric),
                 .unit = "frames",
                 .kind = K::Gauge,
                 .better = 0,
                 .label = "latency sampled 1 frame in",
                 .line = "latency_us.sample_every",
                 .whole = true,
                 .optional = true,
                 .prometheus = "ringlab_latency_sample_every",
                 .help = "Load frames per frame measured in ringlab_latency_seconds and the "
                         "stage figures (latency.sample_every; 1: every frame)",
                 .read = [](const Sample &s) -> std::optional<double> {
                     return static_cast<double>(s.latency.sampleEvery);
                 },
                 .write =
                     [](Sample &s, double v) {
                         s.latency.sampleEvery = v < 1 ? 1 : static_cast<std::uint32_t>(v);
                     }});
    addLatency(t, "rtt", "probe_rtt_us", &Sample::rtt);
    static constexpr const char *stageLabels[] = {"harvest", "hand-off", "processing", "TX post",
                                                  "TX wire"};
    static_assert(std::size(stageLabels) == kStageSpans);
    for (std::size_t k = 0; k < kStageSpans; ++k)
        t.push_back({.name = std::string("stage_") + stageSpanName(k) + "_us",
                     .unit = "us",
                     .kind = K::Percentile, // a mean
                     .label = stageLabels[k],
                     .line = std::string("stages_us.") + stageSpanName(k),
                     .read = [k](const Sample &s) -> std::optional<double> {
                         if (!s.latency.count) return std::nullopt;
                         return s.stageUs[k];
                     },
                     .write = [k](Sample &s, double v) { s.stageUs[k] = v; }});
    t.push_back(field(
        "engine_cpu_ms_per_s", "ms/s", K::Rate, -1, "engine CPU", "cpu.engine_ms_per_s", false,
        [](const Sample &s) { return s.engineCpuMsPerS; },
        [](Sample &s, double v) { s.engineCpuMsPerS = v; }));
    t.push_back(field(
        "process_cpu_ms_per_s", "ms/s", K::Rate, -1, "process CPU", "cpu.process_ms_per_s", false,
        [](const Sample &s) { return s.processCpuMsPerS; },
        [](Sample &s, double v) {
            s.processCpuMsPerS = v;
            s.processCpuPct = v / 10;
        }));
    t.push_back(field(
        "machine_cpu_pct", "%", K::Gauge, -1, "machine CPU", "cpu.machine_pct", false,
        [](const Sample &s) { return s.machineCpuPct; },
        [](Sample &s, double v) { s.machineCpuPct = v; }));
    // Outside this process, over the last second (the kernel counts it in 10 ms ticks).
    t.push_back({.name = "neighbour_cpu_ms_per_s",
                 .unit = "ms/s",
                 .kind = K::Rate,
                 .label = "other processes' CPU",
                 .line = "cpu.neighbour_ms_per_s",
                 .optional = true,
                 .read = knownOrAbsent(&Sample::neighbourCpuMsPerS),
                 .write = setTo(&Sample::neighbourCpuMsPerS)});
    // The levels at the end of the interval, each a Prometheus gauge too.
    auto gauge = [&](const char *name, const char *unit, int better, const char *label,
                     std::uint32_t Sample::*f, const char *prometheus, const char *help) {
        MetricDef d = field(
            name, unit, K::Gauge, better, label, (std::string("gauges.") + name).c_str(), true,
            [f](const Sample &s) { return double(s.*f); },
            [f](Sample &s, double v) { s.*f = u32(v); });
        d.prometheus = prometheus;
        d.help = help;
        t.push_back(std::move(d));
    };
    gauge("pool_free", "buffers", 0, "free buffers", &Sample::poolFree, "ringlab_pool_free_buffers",
          "Free buffers in the pool");
    gauge("rx_posted", "descriptors", 0, "rx posted", &Sample::rxPosted,
          "ringlab_rx_posted_descriptors", "RX descriptors holding an empty buffer");
    gauge("tx_pending", "descriptors", 0, "TX pending", &Sample::txPending,
          "ringlab_tx_pending_descriptors", "TX descriptors posted and not yet cleaned");
    gauge("handoff_depth", "packets", -1, "hand-off depth", &Sample::handoffDepth,
          "ringlab_handoff_depth_frames", "Frames waiting in the hand-off");
    // In force: irq.usecs, or net_dim's.
    gauge("rx_moderation_us", "us", 0, "rx moderation", &Sample::rxModerationUs,
          "ringlab_rx_moderation_seconds", "RX interrupt moderation in force");
    gauge("tx_coalesce_us", "us", 0, "TX coalesce timer", &Sample::txCoalesceUs,
          "ringlab_tx_coalesce_seconds", "TX coalesce timer in force");
    // Per-thread families, after the device's own metrics in a flattened sample.
    t.push_back(
        {.name = "cpu_ms_per_s",
         .unit = "ms/s",
         .kind = K::Rate,
         .label = "CPU",
         .line = "cpu_ms_per_s",
         .readThread = [](const ThreadStat &th) -> std::optional<double> { return th.cpuMsPerS; },
         .writeThread =
             [](ThreadStat &th, double v) {
                 th.cpuMsPerS = v;
                 th.cpuPct = v / 10;
             }});
    t.push_back(
        {.name = "wakeups_per_s",
         .unit = "1/s",
         .kind = K::Rate,
         .label = "wakeups",
         .line = "wakeups_per_s",
         .readThread = [](const ThreadStat &th) -> std::optional<double> { return th.wakeupsPerS; },
         .writeThread = setTo(&ThreadStat::wakeupsPerS)});
    // The longest time a polling thread left the RX ring unattended in the interval.
    t.push_back({.name = "poll_gap_max_us",
                 .unit = "us",
                 .kind = K::Gauge,
                 .label = "longest gap",
                 .line = "poll_gap_max_us",
                 .optional = true,
                 .readThread = knownOrAbsent(&ThreadStat::pollGapMaxUs),
                 .writeThread = setTo(&ThreadStat::pollGapMaxUs)});
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

std::string metricHeading(const MetricDef &d, std::string_view thread)
{
    std::string h = thread.empty() ? d.label : std::string(thread) + " thread " + d.label;
    if (d.kind == MetricKind::Ratio) return h;
    if (d.unit.starts_with("1/")) return h + d.unit.substr(1); // "drops/s"
    return h + " " + (d.unit == "us" ? "\u00b5s" : d.unit);
}

const MetricDef &metric(std::string_view name)
{
    if (const MetricDef *m = findMetric(name)) return *m;
    std::fprintf(stderr, "ringlab: %.*s is not a metric of engine/metrics/metric_table\n",
                 static_cast<int>(name.size()), name.data());
    std::abort();
}

} // namespace ringlab
