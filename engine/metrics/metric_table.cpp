// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/metric_table.h"

#include <algorithm>
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

using C = MetricChart;

// How people see each counter's rate: a switch, so that a new counter cannot be forgotten here
// (-Wswitch). The byte counters are in the Mbit/s rows.
MetricView counterView(CounterId c)
{
    switch (c) {
    case CounterId::Offered:
        return {.chart = C::Throughput, .right = true, .rgb = 0x637939, .summary = 1};
    case CounterId::RxPackets:
        return {.chart = C::Throughput,
                .shown = true,
                .right = true,
                .rgb = 0xad494a,
                .summary = 1,
                .compare = 1,
                .sweep = 3,
                .segment = {{1, true}}};
    case CounterId::TxPackets:
        return {.chart = C::Throughput,
                .right = true,
                .rgb = 0x6b6ecf,
                .summary = 1,
                .compare = 2,
                .segment = {{8, false}}};
    case CounterId::RxBytes:
    case CounterId::TxBytes:
    case CounterId::Processed:
    case CounterId::RefillPosted:
    case CounterId::TxCleanKicks:
    case CounterId::TxInlineCleans:
    case CounterId::Reordered:
    case CounterId::HandoffTakes:
    case CounterId::Count:
        return {};
    case CounterId::RxMissed:
        return {.chart = C::Events, .rgb = 0xfc9272, .compare = 3, .segment = {{16, false}}};
    case CounterId::AllocFail:
        return {.chart = C::Events, .rgb = 0xcb181d, .segment = {{17, false}}};
    case CounterId::TxFull:
        return {.chart = C::Events, .rgb = 0x67000d};
    case CounterId::HandoffFull:
        return {.chart = C::Events, .rgb = 0xfb6a4a};
    case CounterId::Polls:
        return {.chart = C::Events, .rgb = 0x6baed6, .summary = 3};
    case CounterId::EmptyPolls:
        return {.chart = C::Events, .rgb = 0xaec7e8, .summary = 3};
    case CounterId::Interrupts:
        return {.chart = C::Events,
                .shown = true,
                .rgb = 0xff9896,
                .summary = 3,
                .segment = {{10, false}}};
    case CounterId::RefillWakeups:
        return {.chart = C::Events,
                .shown = true,
                .rgb = 0x98df8a,
                .summary = 3,
                .segment = {{13, false}}};
    case CounterId::WorkItems:
        return {.chart = C::Events, .rgb = 0x843c39, .summary = 3};
    case CounterId::TimerArms:
        return {.chart = C::Events,
                .shown = true,
                .rgb = 0xfd8d3c,
                .summary = 3,
                .compare = 9,
                .segment = {{11, false}}};
    case CounterId::TimerCancels:
        return {.chart = C::Events, .rgb = 0xe7ba52};
    case CounterId::TimerFires:
        return {.chart = C::Events, .shown = true, .rgb = 0x8c6d31, .summary = 3};
    case CounterId::TxCleans:
        return {.chart = C::Events, .rgb = 0xce6dbd};
    case CounterId::RxErrors:
        return {.chart = C::Events, .rgb = 0xbd9e39};
    case CounterId::TxErrors:
        return {.chart = C::Events, .rgb = 0xe7969c};
    case CounterId::DimSteps:
        return {.chart = C::Events, .rgb = 0x7b4173};
    }
    return {};
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
            .help = std::string(counterHelp(c)) + ", per second",
            .read = [k](const Sample &s) -> std::optional<double> { return s.rate[k]; },
            .write = [k](Sample &s, double v) { s.rate[k] = v; },
            .view = counterView(c)};
}

// The latency of load frames or the probes' round trips: a count and six figures. `what`
// says what was measured, `view` how each part is seen ("p50", ..., "mean").
void addLatency(std::vector<MetricDef> &t, const std::string &prefix, const std::string &line,
                LatencySummary Sample::*field, const std::string &what,
                const std::function<MetricView(std::string_view part)> &view)
{
    t.push_back({.name = prefix + "_count",
                 .unit = "packets",
                 .kind = MetricKind::Count,
                 .better = 0,
                 .label = prefix + " count",
                 .line = line + ".count",
                 .whole = true,
                 .help = "frames measured in the interval for " + what,
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
        const char *says;
        std::optional<double> quantile;
    } parts[] = {{"p50", &LatencySummary::p50, "median", 0.5},
                 {"p90", &LatencySummary::p90, "90th percentile", 0.9},
                 {"p99", &LatencySummary::p99, "99th percentile", 0.99},
                 {"p999", &LatencySummary::p999, "99.9th percentile", 0.999},
                 {"max", &LatencySummary::max, "longest", 1.0},
                 {"mean", &LatencySummary::mean, "mean", std::nullopt}};
    for (const auto &p : parts) {
        const auto f = p.f;
        const std::string part = p.part;
        // No packet, no latency: absent, not zero (a line writes 0 beside its count of 0).
        t.push_back({.name = prefix + "_" + part + "_us",
                     .unit = "us",
                     .kind = MetricKind::Percentile,
                     .label = prefix + " " + (part == "p999" ? "p99.9" : part),
                     .line = line + "." + part,
                     .help = std::string(p.says) + " of " + what + " (absent without a frame)",
                     .read = [field, f](const Sample &s) -> std::optional<double> {
                         if (!(s.*field).count) return std::nullopt;
                         return (s.*field).*f;
                     },
                     .write = [field, f](Sample &s, double v) { (s.*field).*f = v; },
                     .view = view(part),
                     .quantile = p.quantile});
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
                CounterId den, const char *help, MetricView view = {})
{
    return {.name = name,
            .unit = unit,
            .kind = MetricKind::Ratio,
            .better = better,
            .label = label,
            .help = help,
            .read = [num, den](const Sample &s) -> std::optional<double> {
                const double d = s.rateOf(den);
                if (d <= 0) return std::nullopt;
                return s.rateOf(num) / d;
            },
            .view = std::move(view)};
}

// A field of the sample that is always there: the whole-engine CPU figures.
MetricDef field(const char *name, const char *unit, MetricKind kind, const char *label,
                const char *line, const char *help, double Sample::*f, MetricView view,
                std::function<void(Sample &, double)> write = {})
{
    if (!write) write = setTo(f);
    return {.name = name,
            .unit = unit,
            .kind = kind,
            .label = label,
            .line = line,
            .help = help,
            .read = [f](const Sample &s) -> std::optional<double> { return s.*f; },
            .write = std::move(write),
            .view = std::move(view)};
}

// A byte rate in Mbit/s: the sample keeps both.
MetricDef mbps(const char *name, const char *label, double Sample::*f, CounterId bytes,
               const char *help, MetricView view)
{
    const auto k = static_cast<std::size_t>(bytes);
    MetricDef d =
        field(name, "Mbit/s", MetricKind::Rate, label, (std::string("throughput.") + name).c_str(),
              help, f, std::move(view), [f, k](Sample &s, double v) {
                  s.*f = v;
                  s.rate[k] = v * 1e6 / 8;
              });
    d.better = +1;
    return d;
}

// The latency parts the desktop charts and lists, for load frames and for probes.
MetricView latencyView(std::string_view part)
{
    struct Row {
        std::string_view part;
        bool shown;
        std::uint32_t rgb;
        int summary, compare, sweep;
        std::vector<SegmentColumn> segment;
    };
    static const Row rows[] = {{"p50", true, 0x3182bd, 1, 6, 0, {{6, false}}},
                               {"p90", false, 0x9ecae1, 0, 0, 0, {}},
                               {"p99", true, 0xe6550d, 1, 7, 2, {{4, true}}},
                               {"p999", false, 0xa50f15, 0, 0, 0, {}},
                               {"max", true, 0x525252, 1, 0, 0, {}}};
    for (const Row &r : rows)
        if (r.part == part)
            return {.chart = C::Latency,
                    .shown = r.shown,
                    .legend = r.part == "p999" ? "p99.9" : r.part,
                    .rgb = r.rgb,
                    .summary = r.summary,
                    .compare = r.compare,
                    .sweep = r.sweep,
                    .segment = r.segment};
    return {};
}
MetricView rttView(std::string_view part)
{
    if (part == "p50")
        return {.chart = C::Latency,
                .shown = true,
                .rgb = 0x31a354,
                .summary = 1,
                .segment = {{7, false}}};
    if (part == "p99") return {.chart = C::Latency, .rgb = 0x74c476, .summary = 1};
    if (part == "mean") return {.summary = 1, .compare = 8};
    return {};
}

// Long because it is the table: one entry per metric, in column order, kept in one place.
std::vector<MetricDef> build()
{
    std::vector<MetricDef> t;
    using K = MetricKind;
    t.push_back(counterRate(CounterId::Offered));
    t.push_back(counterRate(CounterId::RxPackets));
    t.push_back(mbps("rx_mbps", "rx", &Sample::rxMbps, CounterId::RxBytes,
                     "frame bytes harvested from the RX ring, in Mbit/s",
                     {.chart = C::Throughput, .shown = true, .rgb = 0xff7f0e, .summary = 1}));
    t.push_back(counterRate(CounterId::TxPackets));
    t.push_back(mbps("tx_mbps", "tx", &Sample::txMbps, CounterId::TxBytes,
                     "frame bytes completed on the wire and cleaned, in Mbit/s",
                     {.chart = C::Throughput, .shown = true, .rgb = 0x00a6a6}));
    // The stmmac case's direct effect: coalesce timer arms per transmitted frame.
    t.push_back(ratio("timer_arms_per_frame", "1/frame", -1, "timer arms per frame",
                      CounterId::TimerArms, CounterId::TxPackets,
                      "TX coalesce timer arms per frame transmitted (absent without one)",
                      {.segment = {{12, false}}}));
    // NAPI's batch: how full each poll's harvest came back (poll.budget is the most).
    t.push_back(ratio("rx_per_poll", "packets", 0, "packets per poll", CounterId::RxPackets,
                      CounterId::Polls,
                      "frames each poll of the RX ring harvested (poll.budget is the most; "
                      "absent without a poll)",
                      {.segment = {{19, false}}}));
    t.push_back(
        {.name = "drops_per_s",
         .unit = "1/s",
         .kind = K::Rate,
         .label = "drops", // every cause summed
         .help = "frames lost per second, every cause summed (the drops_per_s.* of a line)",
         .read = [](const Sample &s) -> std::optional<double> { return s.dropsPerS(); },
         .view = {.chart = C::Events, .shown = true, .rgb = 0xd62728, .segment = {{5, true}}}});
    for (std::size_t k = 0; k < kCounterCount; ++k)
        if (!isThroughput(static_cast<CounterId>(k)))
            t.push_back(counterRate(static_cast<CounterId>(k)));
    addLatency(t, "latency", "latency_us", &Sample::latency,
               "the load frames' latency from arrival to TX completion", latencyView);
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
                 .help = "load frames per frame measured in the latency figures "
                         "(ringlab_latency_seconds) and the stage figures (latency.sample_every; "
                         "1: every frame)",
                 .prometheus = "ringlab_latency_sample_every",
                 .read = [](const Sample &s) -> std::optional<double> {
                     return static_cast<double>(s.latency.sampleEvery);
                 },
                 .write =
                     [](Sample &s, double v) {
                         s.latency.sampleEvery = v < 1 ? 1 : static_cast<std::uint32_t>(v);
                     }});
    addLatency(t, "rtt", "probe_rtt_us", &Sample::rtt,
               "the probes' round trip (the simulated NIC's, or a real ping across the lab)",
               rttView);
    // Mean time per stage span (the Zephyr-style breakdown of the seeds).
    static constexpr struct {
        const char *label;
        std::uint32_t rgb;
        const char *help;
    } stages[] = {
        {"harvest", 0xc49c94, "from arrival to the poll that harvested it"},
        {"hand-off", 0xf7b6d2, "waiting in the hand-off to processing"},
        {"processing", 0xdbdb8d, "in the processing stage"},
        {"TX post", 0x9edae5, "from processing to its post on the TX ring"},
        {"TX wire", 0xc5b0d5, "from its post to its clean after the wire"},
    };
    static_assert(std::size(stages) == kStageSpans);
    for (std::size_t k = 0; k < kStageSpans; ++k)
        t.push_back({.name = std::string("stage_") + stageSpanName(k) + "_us",
                     .unit = "us",
                     .kind = K::Percentile, // a mean
                     .label = stages[k].label,
                     .line = std::string("stages_us.") + stageSpanName(k),
                     .help = std::string("mean time of the measured load frames ") +
                             stages[k].help + " (absent without one)",
                     .read = [k](const Sample &s) -> std::optional<double> {
                         if (!s.latency.count) return std::nullopt;
                         return s.stageUs[k];
                     },
                     .write = [k](Sample &s, double v) { s.stageUs[k] = v; },
                     .view = {.chart = C::Latency, .rgb = stages[k].rgb}});
    // The engine's threads summed: the headline, equal in the desktop and headless. Black: a
    // thread's colour, the sum of them all.
    t.push_back(field("engine_cpu_ms_per_s", "ms/s", K::Rate, "engine CPU", "cpu.engine_ms_per_s",
                      "CPU of the engine's threads summed, ms per second", &Sample::engineCpuMsPerS,
                      {.chart = C::Cpu,
                       .shown = true,
                       .legend = "engine",
                       .rgb = 0x000000,
                       .summary = 1,
                       .compare = 4,
                       .sweep = 1,
                       .segment = {{2, true}}}));
    t.push_back(field("process_cpu_ms_per_s", "ms/s", K::Rate, "process CPU",
                      "cpu.process_ms_per_s", "CPU of the whole process, ms per second",
                      &Sample::processCpuMsPerS, {.summary = 1, .compare = 5},
                      [](Sample &s, double v) {
                          s.processCpuMsPerS = v;
                          s.processCpuPct = v / 10;
                      }));
    t.push_back(field("machine_cpu_pct", "%", K::Gauge, "machine CPU", "cpu.machine_pct",
                      "busy share of the whole machine from /proc/stat (all cores)",
                      &Sample::machineCpuPct, {.segment = {{18, false}}}));
    // Outside this process, over the last second (the kernel counts it in 10 ms ticks): a
    // busy neighbour shows here, in a neutral grey beside the threads.
    t.push_back({.name = "neighbour_cpu_ms_per_s",
                 .unit = "ms/s",
                 .kind = K::Rate,
                 .label = "other processes' CPU",
                 .line = "cpu.neighbour_ms_per_s",
                 .optional = true,
                 .help = "CPU the machine spent outside this process (other processes, a busy "
                         "neighbour), ms per second over the last second (/proc/stat counts in "
                         "10 ms ticks); absent in the first tick",
                 .read = knownOrAbsent(&Sample::neighbourCpuMsPerS),
                 .write = setTo(&Sample::neighbourCpuMsPerS),
                 .view = {.chart = C::Cpu,
                          .shown = true,
                          .legend = "other processes",
                          .rgb = 0xa0a0a0,
                          .summary = 1}});
    // The levels at the end of the interval, each a Prometheus gauge too.
    auto gauge = [&](const char *name, const char *unit, int better, const char *label,
                     std::uint32_t Sample::*f, const char *prometheus, const char *help) {
        t.push_back({.name = name,
                     .unit = unit,
                     .kind = K::Gauge,
                     .better = better,
                     .label = label,
                     .line = std::string("gauges.") + name,
                     .whole = true,
                     .help = help,
                     .prometheus = prometheus,
                     .read = [f](const Sample &s) -> std::optional<double> { return s.*f; },
                     .write = [f](Sample &s, double v) { s.*f = u32(v); }});
    };
    gauge("pool_free", "buffers", 0, "free buffers", &Sample::poolFree, "ringlab_pool_free_buffers",
          "free buffers in the pool");
    gauge("rx_posted", "descriptors", 0, "rx posted", &Sample::rxPosted,
          "ringlab_rx_posted_descriptors",
          "RX descriptors holding an empty buffer, not yet filled by an arrival (as of the "
          "device's last update)");
    gauge("tx_pending", "descriptors", 0, "TX pending", &Sample::txPending,
          "ringlab_tx_pending_descriptors", "TX descriptors posted and not yet cleaned");
    gauge("handoff_depth", "packets", -1, "hand-off depth", &Sample::handoffDepth,
          "ringlab_handoff_depth_frames", "frames waiting in the hand-off (fifo or work)");
    gauge("rx_moderation_us", "us", 0, "rx moderation", &Sample::rxModerationUs,
          "ringlab_rx_moderation_seconds",
          "RX interrupt moderation in force: irq.usecs, or net_dim's under irq.adaptive");
    gauge("tx_coalesce_us", "us", 0, "TX coalesce timer", &Sample::txCoalesceUs,
          "ringlab_tx_coalesce_seconds",
          "TX coalesce timer in force: tx.coalesce_usecs, or net_dim's under "
          "tx.coalesce_adaptive");
    // Per-thread families, after the device's own metrics in a flattened sample; the desktop
    // charts a charted family with a series per thread (ui/series_catalog: threadSeriesDefs).
    t.push_back(
        {.name = "cpu_ms_per_s",
         .unit = "ms/s",
         .kind = K::Rate,
         .label = "CPU",
         .line = "cpu_ms_per_s",
         .help = "CPU of the thread, ms per second",
         .readThread = [](const ThreadStat &th) -> std::optional<double> { return th.cpuMsPerS; },
         .writeThread =
             [](ThreadStat &th, double v) {
                 th.cpuMsPerS = v;
                 th.cpuPct = v / 10;
             },
         .view = {.chart = MetricChart::Cpu,
                  .summary = 2,
                  .compare = 10,
                  .segment = {{9, false, "poll"}}}});
    t.push_back(
        {.name = "wakeups_per_s",
         .unit = "1/s",
         .kind = K::Rate,
         .label = "wakeups",
         .line = "wakeups_per_s",
         .help = "voluntary context switches of the thread per second",
         .readThread = [](const ThreadStat &th) -> std::optional<double> { return th.wakeupsPerS; },
         .writeThread = setTo(&ThreadStat::wakeupsPerS),
         .view = {.chart = MetricChart::Events,
                  .legend = " wakeups",
                  .summary = 2,
                  .compare = 10,
                  .segment = {{3, true, "poll"}, {14, false, "refill"}}}});
    // The longest time a polling thread left the RX ring unattended in the interval.
    t.push_back({.name = "poll_gap_max_us",
                 .unit = "us",
                 .kind = K::Gauge,
                 .label = "longest gap",
                 .line = "poll_gap_max_us",
                 .optional = true,
                 .help = "a polling thread's longest time between two of its polls (its sleeps, "
                         "and any time the host did not run it: a value above the RX ring's "
                         "length over the arrival rate explains rx_missed); absent for other "
                         "threads",
                 .readThread = knownOrAbsent(&ThreadStat::pollGapMaxUs),
                 .writeThread = setTo(&ThreadStat::pollGapMaxUs),
                 .view = {.summary = 2, .segment = {{15, false, "poll"}}}});
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

std::vector<const MetricDef *> chartedMetrics(MetricChart c)
{
    std::vector<const MetricDef *> out;
    for (const MetricDef &d : metricTable())
        if (d.view.chart == c && c != MetricChart::None && !d.perThread()) out.push_back(&d);
    return out;
}

std::vector<const MetricDef *> chartedFamilies()
{
    std::vector<const MetricDef *> out;
    for (const MetricDef &d : metricTable())
        if (d.view.chart != MetricChart::None && d.perThread()) out.push_back(&d);
    return out;
}

std::vector<const MetricDef *> rankedMetrics(int MetricView::*column)
{
    std::vector<const MetricDef *> out;
    for (const MetricDef &d : metricTable())
        if (d.view.*column > 0) out.push_back(&d);
    std::stable_sort(out.begin(), out.end(), [column](const MetricDef *a, const MetricDef *b) {
        return a->view.*column < b->view.*column;
    });
    return out;
}

std::vector<const MetricDef *> quantileMetrics(std::string_view prefix)
{
    std::vector<const MetricDef *> out;
    for (const MetricDef &d : metricTable())
        if (d.quantile && d.name.size() > prefix.size() && d.name.starts_with(prefix) &&
            d.name[prefix.size()] == '_')
            out.push_back(&d);
    std::stable_sort(out.begin(), out.end(), [](const MetricDef *a, const MetricDef *b) {
        return *a->quantile < *b->quantile;
    });
    return out;
}

std::vector<const MetricDef *> summaryMetrics()
{
    std::vector<const MetricDef *> out;
    for (const MetricDef &d : metricTable())
        if (d.view.summary > 0) out.push_back(&d);
    std::stable_sort(out.begin(), out.end(), [](const MetricDef *a, const MetricDef *b) {
        return a->view.summary < b->view.summary;
    });
    return out;
}

std::string_view metricDirection(int better)
{
    return better > 0 ? "higher" : better < 0 ? "lower" : "neither";
}

std::string metricsMarkdown()
{
    std::string md =
        "# Metrics\n\n"
        "<!-- Generated by `ringlab-engine metrics --markdown` from the metric table,\n"
        "     engine/metrics/metric_table.cpp; tst_cli_docs checks that it is current. -->\n\n"
        "Every metric the engine records, under the name a session stores, `compare` ranks and\n"
        "`tune` and `sweep` optimise; the sample line's field that holds it (a line of\n"
        "`ringlab-engine run -o jsonl`, [cli.md](cli.md)); which way is better (`neither`: it\n"
        "follows the load). A family, `NAME[THREAD]`, has one value per thread, in the line's\n"
        "`cpu.threads[]`. A metric without a field is derived from the others. A device's own\n"
        "figures (a DPDK port's, the kernel device's) are listed by `ringlab-engine devices`\n"
        "and [database.md](database.md).\n\n"
        "| metric | unit | kind | better | sample line | meaning |\n"
        "|---|---|---|---|---|---|\n";
    auto code = [](const std::string &s) { return s.empty() ? std::string("-") : "`" + s + "`"; };
    for (const MetricDef &d : metricTable()) {
        const std::string name = d.perThread() ? d.name + "[THREAD]" : d.name;
        const std::string line = d.line.empty()  ? std::string()
                                 : d.perThread() ? "cpu.threads[]." + d.line
                                                 : d.line;
        md += "| " + code(name) + " | " + d.unit + " | " + std::string(metricKindName(d.kind)) +
              " | " + std::string(metricDirection(d.better)) + " | " + code(line) + " | " + d.help +
              " |\n";
    }
    return md;
}

const MetricDef &metric(std::string_view name)
{
    if (const MetricDef *m = findMetric(name)) return *m;
    std::fprintf(stderr, "ringlab: %.*s is not a metric of engine/metrics/metric_table\n",
                 static_cast<int>(name.size()), name.data());
    std::abort();
}

} // namespace ringlab
