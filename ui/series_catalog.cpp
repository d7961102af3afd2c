// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/series_catalog.h"

#include <QHash>
#include <cstring>
#include <string_view>

#include "engine/metrics/metric_table.h"

namespace ringlab::ui {

const std::vector<ChartDef> &chartDefs()
{
    static const std::vector<ChartDef> defs = {
        {ChartId::Throughput, "throughput", "Throughput", "Mbit/s", "pps", false},
        {ChartId::Cpu, "cpu", "CPU per thread", "ms/s", nullptr, false},
        {ChartId::Latency, "latency", "Latency", "µs", nullptr, true},
        {ChartId::Events, "events", "Events", "1/s", nullptr, true},
        // Who drove the NAPI's polls (issue 44 part 6): the frames each source's polls handed
        // up, stacked, so that the top is every frame the polls took and each band its share.
        {ChartId::Polls, "napi_polls", "NAPI polls", "1/s", nullptr, false, true, true},
    };
    return defs;
}

const std::vector<SeriesDef> &seriesDefs()
{
    using T = ChartId;
    // Keys are the engine's metric names (engine/metric_table): the value and the legend are
    // read from there. A legend is the metric's label, with its unit on a right axis; where a
    // chart's title already says what the series is, the row shortens it.
    static const std::vector<SeriesDef> defs = [] {
        const struct {
            ChartId chart;
            const char *metric;
            bool right, defaultOn;
            const char *shortLabel = nullptr;
        } rows[] = {
            {T::Throughput, "rx_mbps", false, true},
            {T::Throughput, "tx_mbps", false, true},
            {T::Throughput, "rx_pps", true, true},
            {T::Throughput, "offered_pps", true, false},
            {T::Throughput, "tx_pps", true, false},
            // The engine's threads summed: the headline, equal in the desktop and headless.
            {T::Cpu, "engine_cpu_ms_per_s", false, true, "engine"},
            // The machine's CPU used outside this process: a busy neighbour shows here.
            {T::Cpu, "neighbour_cpu_ms_per_s", false, true, "other processes"},
            {T::Latency, "latency_p50_us", false, true, "p50"},
            {T::Latency, "latency_p90_us", false, false, "p90"},
            {T::Latency, "latency_p99_us", false, true, "p99"},
            {T::Latency, "latency_p999_us", false, false, "p99.9"},
            {T::Latency, "latency_max_us", false, true, "max"},
            // Round trips: the simulated NIC's probes, or a real ping across the lab.
            {T::Latency, "rtt_p50_us", false, true},
            {T::Latency, "rtt_p99_us", false, false},
            // Mean time per stage span (the Zephyr-style breakdown of the seeds).
            {T::Latency, "stage_harvest_us", false, false},
            {T::Latency, "stage_handoff_us", false, false},
            {T::Latency, "stage_process_us", false, false},
            {T::Latency, "stage_tx_post_us", false, false},
            {T::Latency, "stage_tx_wire_us", false, false},
            {T::Events, "drops_per_s", false, true},
            {T::Events, "interrupts_per_s", false, true},
            {T::Events, "timer_arms_per_s", false, true},
            {T::Events, "timer_fires_per_s", false, true},
            {T::Events, "refill_wakeups_per_s", false, true},
            {T::Events, "timer_cancels_per_s", false, false},
            {T::Events, "polls_per_s", false, false},
            {T::Events, "empty_polls_per_s", false, false},
            {T::Events, "tx_cleans_per_s", false, false},
            {T::Events, "work_items_per_s", false, false},
            {T::Events, "dim_steps_per_s", false, false},
            {T::Events, "rx_missed_per_s", false, false},
            {T::Events, "alloc_fail_per_s", false, false},
            {T::Events, "tx_full_per_s", false, false},
            {T::Events, "handoff_full_per_s", false, false},
            {T::Events, "rx_errors_per_s", false, false},
            {T::Events, "tx_errors_per_s", false, false},
        };
        std::vector<SeriesDef> out;
        for (const auto &r : rows) {
            const MetricDef *m = findMetric(r.metric);
            if (!m || m->perThread())
                qFatal("series catalogue: %s is not an engine metric", r.metric);
            const std::string label = r.shortLabel ? r.shortLabel
                                      : r.right    ? m->label + " " + m->unit
                                                   : m->label;
            out.push_back({r.chart, r.metric, label, r.right, r.defaultOn, m->read});
        }
        return out;
    }();
    return defs;
}

const std::vector<ThreadSeriesDef> &threadSeriesDefs()
{
    static const std::vector<ThreadSeriesDef> defs = {
        {ChartId::Cpu, "cpu:", "", &ThreadStat::cpuMsPerS},
        {ChartId::Events, "wakeups:", " wakeups", &ThreadStat::wakeupsPerS},
    };
    return defs;
}

const std::vector<DeviceSeriesDef> &deviceSeriesDefs()
{
    // First match wins. Who drove the NAPI's polls is the kernel device's headline: the
    // frames by source, each NAPI's where the netdev has several, stacked on a chart of their
    // own; the poll counts and the other counters are a click away in the Events legend.
    static const std::vector<DeviceSeriesDef> defs = {
        {"poll_packets_", true, ChartId::Polls, true, "rx by "},
        {"kernel_poll_packets_", false, ChartId::Polls, true, "rx by ", true, ChartId::Events},
        {"kernel_polls_", false, ChartId::Events, false, "polls by "},
        {"kernel_", false, ChartId::Events, false, "kernel "},
        {"netdev_", false, ChartId::Events, false, "netdev "},
    };
    return defs;
}

namespace {
constexpr std::string_view kNapiPrefix = "kernel_napi";

// "kernel_napi8193_poll_packets_busy_per_s": 8193 and what follows "kernel_napi8193_".
std::optional<std::pair<std::string_view, std::string_view>> splitNapi(std::string_view figure)
{
    if (figure.substr(0, kNapiPrefix.size()) != kNapiPrefix) return std::nullopt;
    const std::string_view rest = figure.substr(kNapiPrefix.size());
    std::size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
        ++digits;
    if (digits == 0 || digits >= rest.size() || rest[digits] != '_') return std::nullopt;
    return std::pair{rest.substr(0, digits), rest.substr(digits + 1)};
}
} // namespace

bool isPerNapiFigure(const std::string &figure)
{
    return splitNapi(figure).has_value();
}

std::optional<DeviceSeries> deviceSeriesFor(const std::string &figure, bool split)
{
    const auto napi = splitNapi(figure);
    for (const DeviceSeriesDef &d : deviceSeriesDefs()) {
        if (d.perNapi && !napi) continue;
        const std::string_view name = d.perNapi ? napi->second : std::string_view(figure);
        const std::string_view prefix(d.prefix);
        if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) continue;
        QString rest = QString::fromUtf8(name.substr(prefix.size()));
        if (rest.endsWith(QLatin1String("_per_s"))) rest.chop(6);
        rest.replace(QLatin1Char('_'), QLatin1Char(' '));
        QString label = QLatin1String(d.label) + rest;
        if (d.perNapi)
            label = QStringLiteral("napi %1 ").arg(QString::fromUtf8(napi->first)) + label;
        const bool elsewhere = d.whole && split;
        return DeviceSeries{elsewhere ? d.wholeChart : d.chart, elsewhere ? false : d.defaultOn,
                            QLatin1String(kDeviceKeyPrefix) + QString::fromStdString(figure),
                            label};
    }
    return std::nullopt;
}

bool isChartedThread(const std::string &name)
{
    return name != "sampler";
}

namespace {
// Threads: saturated hues no other series uses. Known threads have fixed colours; others
// take one of the spare thread colours by a stable hash of the name.
const QHash<QString, QColor> &threadColors()
{
    static const QHash<QString, QColor> map = {
        {"poll", QColor(0x1f77b4)},
        {"refill", QColor(0x2ca02c)},
        {"txclean", QColor(0x9467bd)},
        {"rx-fifo", QColor(0x8c564b)},
        {"engine_cpu_ms_per_s", QColor(QRgb(0x000000))},
        {"gui", QColor(0xe377c2)},
    };
    return map;
}
constexpr QRgb kSpareThreadColors[] = {0x17becf, 0xbcbd22, 0x7f7f7f, 0x393b79};

QString threadOf(const QString &key)
{
    for (const auto &f : threadSeriesDefs()) {
        const QString prefix = QString::fromLatin1(f.keyPrefix);
        if (key.startsWith(prefix)) return key.mid(prefix.size());
    }
    return key;
}

const QHash<QString, QColor> &otherColors()
{
    // Every other series, one colour each (checked distinct by tst_gui).
    static const QHash<QString, QColor> map = {
        // Not a thread of ours: a neutral grey, beside the threads on the CPU chart.
        {"neighbour_cpu_ms_per_s", QColor(QRgb(0xa0a0a0))},
        {"rx_mbps", QColor(0xff7f0e)},
        {"tx_mbps", QColor(0x00a6a6)},
        {"rx_pps", QColor(0xad494a)},
        {"offered_pps", QColor(0x637939)},
        {"tx_pps", QColor(0x6b6ecf)},
        {"latency_p50_us", QColor(0x3182bd)},
        {"latency_p90_us", QColor(0x9ecae1)},
        {"latency_p99_us", QColor(0xe6550d)},
        {"latency_p999_us", QColor(0xa50f15)},
        {"latency_max_us", QColor(0x525252)},
        {"rtt_p50_us", QColor(0x31a354)},
        {"rtt_p99_us", QColor(0x74c476)},
        {"stage_harvest_us", QColor(0xc49c94)},
        {"stage_handoff_us", QColor(0xf7b6d2)},
        {"stage_process_us", QColor(0xdbdb8d)},
        {"stage_tx_post_us", QColor(0x9edae5)},
        {"stage_tx_wire_us", QColor(0xc5b0d5)},
        {"drops_per_s", QColor(0xd62728)},
        {"interrupts_per_s", QColor(0xff9896)},
        {"timer_arms_per_s", QColor(0xfd8d3c)},
        {"timer_fires_per_s", QColor(0x8c6d31)},
        {"refill_wakeups_per_s", QColor(0x98df8a)},
        {"timer_cancels_per_s", QColor(0xe7ba52)},
        {"polls_per_s", QColor(0x6baed6)},
        {"empty_polls_per_s", QColor(0xaec7e8)},
        {"tx_cleans_per_s", QColor(0xce6dbd)},
        {"work_items_per_s", QColor(0x843c39)},
        {"dim_steps_per_s", QColor(0x7b4173)},
        {"rx_missed_per_s", QColor(0xfc9272)},
        {"alloc_fail_per_s", QColor(0xcb181d)},
        {"tx_full_per_s", QColor(0x67000d)},
        {"handoff_full_per_s", QColor(0xfb6a4a)},
        {"rx_errors_per_s", QColor(0xbd9e39)},
        {"tx_errors_per_s", QColor(0xe7969c)},
    };
    return map;
}
} // namespace

namespace {
// The poll sources in the kernel's order (drivers/kernel/poll_attribution.h), each with
// its hue: one per source, whichever NAPI, so that a stack reads by colour.
constexpr std::pair<std::string_view, QRgb> kPollSources[] = {
    {"softirq", 0xf28e2b}, {"timer", 0xb07aa1}, {"busy", 0x4e79a7},
    {"kthread", 0x59a14f}, {"other", 0xbab0ac},
};

struct PollFigure {
    unsigned napi = 0; // 0: the netdev's total
    std::size_t source = 0;
};
// A figure of frames by poll source ("kernel_poll_packets_busy_per_s", or one NAPI's).
std::optional<PollFigure> pollFigure(const std::string &figure)
{
    const auto napi = splitNapi(figure);
    const std::string_view name = napi ? napi->second : std::string_view(figure);
    const std::string_view prefix = napi ? "poll_packets_" : "kernel_poll_packets_";
    if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
    const std::string_view source = name.substr(prefix.size());
    for (std::size_t k = 0; k < std::size(kPollSources); ++k)
        if (source.substr(0, kPollSources[k].first.size()) == kPollSources[k].first)
            return PollFigure{napi ? QString::fromUtf8(napi->first).toUInt() : 0, k};
    return std::nullopt;
}

// A NAPI of several takes a shade of its source's hue by its id (its bands lie together).
std::optional<QColor> pollSourceColor(const std::string &figure)
{
    const auto f = pollFigure(figure);
    if (!f) return std::nullopt;
    QColor c(kPollSources[f->source].second);
    if (f->napi) {
        static constexpr int kShades[] = {100, 135, 75};
        c = c.darker(kShades[f->napi % std::size(kShades)]);
    }
    return c;
}
} // namespace

long stackRank(const QString &key)
{
    if (!key.startsWith(QLatin1String(kDeviceKeyPrefix))) return 0;
    const auto f = pollFigure(key.mid(int(std::strlen(kDeviceKeyPrefix))).toStdString());
    if (!f) return 0;
    return static_cast<long>(f->napi) * static_cast<long>(std::size(kPollSources)) +
           static_cast<long>(f->source);
}

bool isThreadColorKey(const QString &key)
{
    return !otherColors().contains(key) && !key.startsWith(QLatin1String(kDeviceKeyPrefix));
}

QColor seriesColor(const QString &key)
{
    if (auto it = otherColors().find(key); it != otherColors().end()) return *it;
    if (key.startsWith(QLatin1String(kDeviceKeyPrefix))) {
        if (const auto c =
                pollSourceColor(key.mid(int(std::strlen(kDeviceKeyPrefix))).toStdString()))
            return *c;
        // A device's other figures: muted hues of their own, by a stable hash of the name.
        static constexpr QRgb kDevice[] = {0x3b6e8f, 0xb5651d, 0x4f7942, 0x8e4585, 0x6d6875,
                                           0xc08497, 0x2a9d8f, 0x9c6644, 0x5e60ce, 0x80b918};
        return QColor(kDevice[qHash(key, 0) % std::size(kDevice)]);
    }
    const QString thread = threadOf(key);
    if (auto it = threadColors().find(thread); it != threadColors().end()) return *it;
    return QColor(kSpareThreadColors[qHash(thread, 0) % std::size(kSpareThreadColors)]);
}

} // namespace ringlab::ui
