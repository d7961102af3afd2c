// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/series_catalog.h"

#include <QHash>

namespace ringlab::ui {

namespace {
std::optional<double> rate(const Sample &s, C c)
{
    return s.rateOf(c);
}
std::function<std::optional<double>(const Sample &)> counter(C c)
{
    return [c](const Sample &s) { return rate(s, c); };
}
std::function<std::optional<double>(const Sample &)> latency(double LatencySummary::*f)
{
    return [f](const Sample &s) -> std::optional<double> {
        if (!s.latency.count) return std::nullopt;
        return s.latency.*f;
    };
}
std::function<std::optional<double>(const Sample &)> rtt(double LatencySummary::*f)
{
    return [f](const Sample &s) -> std::optional<double> {
        if (!s.rtt.count) return std::nullopt;
        return s.rtt.*f;
    };
}
std::function<std::optional<double>(const Sample &)> stage(std::size_t k)
{
    return [k](const Sample &s) -> std::optional<double> {
        if (!s.latency.count) return std::nullopt;
        return s.stageUs[k];
    };
}
} // namespace

const std::vector<ChartDef> &chartDefs()
{
    static const std::vector<ChartDef> defs = {
        {ChartId::Throughput, "throughput", "Throughput", "Mbit/s", "pps", false},
        {ChartId::Cpu, "cpu", "CPU per thread", "ms/s", nullptr, false},
        {ChartId::Latency, "latency", "Latency", "µs", nullptr, true},
        {ChartId::Events, "events", "Events", "1/s", nullptr, true},
    };
    return defs;
}

const std::vector<SeriesDef> &seriesDefs()
{
    using T = ChartId;
    static const std::vector<SeriesDef> defs = {
        {T::Throughput, "rx_mbps", "rx", false, true, [](const Sample &s) { return s.rxMbps; }},
        {T::Throughput, "tx_mbps", "tx", false, true, [](const Sample &s) { return s.txMbps; }},
        {T::Throughput, "rx_pps", "rx pps", true, true, counter(C::RxPackets)},
        {T::Throughput, "offered_pps", "offered pps", true, false, counter(C::Offered)},
        {T::Throughput, "tx_pps", "tx pps", true, false, counter(C::TxPackets)},
        // The engine's threads summed: the headline, equal in the desktop and headless.
        {T::Cpu, "engine", "engine", false, true,
         [](const Sample &s) { return s.engineCpuMsPerS; }},
        {T::Latency, "p50", "p50", false, true, latency(&LatencySummary::p50)},
        {T::Latency, "p90", "p90", false, false, latency(&LatencySummary::p90)},
        {T::Latency, "p99", "p99", false, true, latency(&LatencySummary::p99)},
        {T::Latency, "p999", "p99.9", false, false, latency(&LatencySummary::p999)},
        {T::Latency, "max", "max", false, true, latency(&LatencySummary::max)},
        // Round trips: the simulated NIC's probes, or a real ping across the lab.
        {T::Latency, "rtt_p50", "rtt p50", false, true, rtt(&LatencySummary::p50)},
        {T::Latency, "rtt_p99", "rtt p99", false, false, rtt(&LatencySummary::p99)},
        // Mean time per stage span (the Zephyr-style breakdown of the seeds).
        {T::Latency, "stage_harvest", "harvest", false, false, stage(0)},
        {T::Latency, "stage_handoff", "hand-off", false, false, stage(1)},
        {T::Latency, "stage_process", "processing", false, false, stage(2)},
        {T::Latency, "stage_tx_post", "TX post", false, false, stage(3)},
        {T::Latency, "stage_tx_wire", "TX wire", false, false, stage(4)},
        {T::Events, "drops", "drops", false, true, [](const Sample &s) { return s.dropsPerS(); }},
        {T::Events, "interrupts", "interrupts", false, true, counter(C::Interrupts)},
        {T::Events, "timer_arms", "timer arms", false, true, counter(C::TimerArms)},
        {T::Events, "timer_fires", "timer fires", false, true, counter(C::TimerFires)},
        {T::Events, "refill_wakeups", "refill wakeups", false, true, counter(C::RefillWakeups)},
        {T::Events, "timer_cancels", "timer cancels", false, false, counter(C::TimerCancels)},
        {T::Events, "polls", "polls", false, false, counter(C::Polls)},
        {T::Events, "empty_polls", "empty polls", false, false, counter(C::EmptyPolls)},
        {T::Events, "tx_cleans", "TX cleans", false, false, counter(C::TxCleans)},
        {T::Events, "work_items", "work items", false, false, counter(C::WorkItems)},
        {T::Events, "dim_steps", "net_dim steps", false, false, counter(C::DimSteps)},
        {T::Events, "rx_missed", "drops: rx missed", false, false, counter(C::RxMissed)},
        {T::Events, "alloc_fail", "drops: alloc fail", false, false, counter(C::AllocFail)},
        {T::Events, "tx_full", "drops: TX full", false, false, counter(C::TxFull)},
        {T::Events, "handoff_full", "drops: hand-off full", false, false, counter(C::HandoffFull)},
        {T::Events, "rx_errors", "drops: rx errors", false, false, counter(C::RxErrors)},
        {T::Events, "tx_errors", "drops: TX errors", false, false, counter(C::TxErrors)},
    };
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
        {"poll", QColor(0x1f77b4)},         {"refill", QColor(0x2ca02c)},
        {"txclean", QColor(0x9467bd)},      {"rx-fifo", QColor(0x8c564b)},
        {"engine", QColor(QRgb(0x000000))}, {"gui", QColor(0xe377c2)},
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
        {"rx_mbps", QColor(0xff7f0e)},       {"tx_mbps", QColor(0x00a6a6)},
        {"rx_pps", QColor(0xad494a)},        {"offered_pps", QColor(0x637939)},
        {"tx_pps", QColor(0x6b6ecf)},        {"p50", QColor(0x3182bd)},
        {"p90", QColor(0x9ecae1)},           {"p99", QColor(0xe6550d)},
        {"p999", QColor(0xa50f15)},          {"max", QColor(0x525252)},
        {"rtt_p50", QColor(0x31a354)},       {"rtt_p99", QColor(0x74c476)},
        {"stage_harvest", QColor(0xc49c94)}, {"stage_handoff", QColor(0xf7b6d2)},
        {"stage_process", QColor(0xdbdb8d)}, {"stage_tx_post", QColor(0x9edae5)},
        {"stage_tx_wire", QColor(0xc5b0d5)}, {"drops", QColor(0xd62728)},
        {"interrupts", QColor(0xff9896)},    {"timer_arms", QColor(0xfd8d3c)},
        {"timer_fires", QColor(0x8c6d31)},   {"refill_wakeups", QColor(0x98df8a)},
        {"timer_cancels", QColor(0xe7ba52)}, {"polls", QColor(0x6baed6)},
        {"empty_polls", QColor(0xaec7e8)},   {"tx_cleans", QColor(0xce6dbd)},
        {"work_items", QColor(0x843c39)},    {"dim_steps", QColor(0x7b4173)},
        {"rx_missed", QColor(0xfc9272)},     {"alloc_fail", QColor(0xcb181d)},
        {"tx_full", QColor(0x67000d)},       {"handoff_full", QColor(0xfb6a4a)},
        {"rx_errors", QColor(0xbd9e39)},     {"tx_errors", QColor(0xe7969c)},
    };
    return map;
}
} // namespace

bool isThreadColorKey(const QString &key)
{
    return !otherColors().contains(key);
}

QColor seriesColor(const QString &key)
{
    if (auto it = otherColors().find(key); it != otherColors().end()) return *it;
    const QString thread = threadOf(key);
    if (auto it = threadColors().find(thread); it != threadColors().end()) return *it;
    return QColor(kSpareThreadColors[qHash(thread, 0) % std::size(kSpareThreadColors)]);
}

} // namespace ringlab::ui
