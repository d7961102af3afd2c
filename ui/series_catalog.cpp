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

namespace {
ChartId chartOf(MetricChart c)
{
    switch (c) {
    case MetricChart::Throughput:
        return ChartId::Throughput;
    case MetricChart::Cpu:
        return ChartId::Cpu;
    case MetricChart::Latency:
        return ChartId::Latency;
    case MetricChart::None:
    case MetricChart::Events:
        break;
    }
    return ChartId::Events;
}
} // namespace

const std::vector<SeriesDef> &seriesDefs()
{
    // The engine's metric table says which metrics are charted, where, in what colour and
    // legend (MetricDef::view): the keys are its names. A legend is the metric's label, with
    // its unit on a right axis, unless the table shortens it where the chart's title already
    // says what the series is.
    static const std::vector<SeriesDef> defs = [] {
        std::vector<SeriesDef> out;
        for (MetricChart c :
             {MetricChart::Throughput, MetricChart::Cpu, MetricChart::Latency, MetricChart::Events})
            // The left axis's series first, and on each axis the ones shown by default
            // first, in the table's order.
            for (bool rightAxis : {false, true})
                for (bool shown : {true, false})
                    for (const MetricDef *m : chartedMetrics(c)) {
                        if (m->view.right != rightAxis || m->view.shown != shown) continue;
                        const MetricView &v = m->view;
                        const std::string label = !v.legend.empty() ? std::string(v.legend)
                                                  : v.right         ? m->label + " " + m->unit
                                                                    : m->label;
                        out.push_back(
                            {chartOf(c), m->name.c_str(), label, v.right, v.shown, m->read});
                    }
        return out;
    }();
    return defs;
}

const std::vector<ThreadSeriesDef> &threadSeriesDefs()
{
    static const std::vector<ThreadSeriesDef> defs = [] {
        std::vector<ThreadSeriesDef> out;
        for (const MetricDef *m : chartedFamilies())
            out.push_back({chartOf(m->view.chart), m->name.substr(0, m->name.find('_')) + ":",
                           std::string(m->view.legend), m});
        return out;
    }();
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
        {"poll", QColor(0x1f77b4)},    {"refill", QColor(0x2ca02c)}, {"txclean", QColor(0x9467bd)},
        {"rx-fifo", QColor(0x8c564b)}, {"gui", QColor(0xe377c2)},
    };
    return map;
}
constexpr QRgb kSpareThreadColors[] = {0x17becf, 0xbcbd22, 0x7f7f7f, 0x393b79};

QString threadOf(const QString &key)
{
    for (const auto &f : threadSeriesDefs()) {
        const QString prefix = QString::fromStdString(f.keyPrefix);
        if (key.startsWith(prefix)) return key.mid(prefix.size());
    }
    return key;
}

const QHash<QString, QColor> &otherColors()
{
    // Every charted metric, one colour each (the metric table's; checked distinct by
    // tst_charts). The threads' sum, engine CPU, is black: no thread or rate has it.
    static const QHash<QString, QColor> map = [] {
        QHash<QString, QColor> m;
        for (const SeriesDef &d : seriesDefs())
            if (const auto rgb = findMetric(d.key)->view.rgb)
                m.insert(QString::fromLatin1(d.key), QColor(QRgb(*rgb)));
        return m;
    }();
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
