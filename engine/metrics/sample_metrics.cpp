// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/sample_metrics.h"

#include <algorithm>

#include "engine/metrics/metric_table.h"

namespace ringlab {

std::vector<MetricValue> flattenSample(const Sample &s)
{
    std::vector<MetricValue> m;
    m.reserve(64 + 2 * s.threads.size());
    for (const MetricDef &d : metricTable())
        if (!d.perThread())
            if (const auto v = d.read(s)) m.push_back({d.name, d.unit, {}, *v});
    for (const auto &d : s.device)
        m.push_back({d.name, d.unit, {}, d.value});
    for (const auto &t : s.threads)
        for (const MetricDef &d : metricTable())
            if (d.perThread())
                if (const auto v = d.readThread(t)) m.push_back({d.name, d.unit, t.name, *v});
    return m;
}

void setSampleMetric(Sample &s, const std::string &name, const std::string &thread, double v)
{
    setSampleMetric(s, findMetric(name), name, thread, v);
}

void setSampleMetric(Sample &s, const MetricDef *d, const std::string &name,
                     const std::string &thread, double v)
{
    if (!thread.empty()) {
        if (!d || !d->perThread()) return;
        ThreadStat *t = nullptr;
        for (auto &x : s.threads)
            if (x.name == thread) t = &x;
        if (!t) {
            s.threads.push_back({thread, 0, 0, 0, -1});
            t = &s.threads.back();
        }
        d->writeThread(*t, v);
        return;
    }
    if (!d) {
        s.device.push_back({name, {}, v}); // a device's own metric
        return;
    }
    if (d->write) d->write(s, v); // derived metrics have nothing to set
}

const std::vector<std::string> &keyMetrics()
{
    // The metric table's segment columns shown by default, in their rank.
    static const std::vector<std::string> m = [] {
        std::vector<std::pair<int, std::string>> ranked;
        for (const MetricDef &d : metricTable())
            for (const SegmentColumn &c : d.view.segment)
                if (c.on)
                    ranked.push_back({c.rank, c.thread.empty()
                                                  ? d.name
                                                  : d.name + "[" + std::string(c.thread) + "]"});
        std::stable_sort(ranked.begin(), ranked.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        std::vector<std::string> out;
        for (auto &r : ranked)
            out.push_back(std::move(r.second));
        return out;
    }();
    return m;
}

std::vector<std::string> engineMetricNames()
{
    // Every entry of the table, whether or not a given sample has a value for it (a ratio
    // while its divisor is 0, the neighbours' CPU before the first tick).
    std::vector<std::string> whole, perThread;
    for (const MetricDef &d : metricTable())
        (d.perThread() ? perThread : whole).push_back(d.perThread() ? d.name + "[THREAD]" : d.name);
    whole.insert(whole.end(), perThread.begin(), perThread.end());
    return whole;
}

bool isEngineMetric(const std::string &label)
{
    const auto bracket = label.find('[');
    const std::string base = label.substr(0, bracket);
    for (const auto &n : engineMetricNames())
        if (n.substr(0, n.find('[')) == base &&
            (n.find('[') == std::string::npos) == (bracket == std::string::npos))
            return true;
    return false;
}

int betterDirection(const std::string &name)
{
    if (const MetricDef *d = findMetric(name)) return d->better;
    for (const char *loss :
         {"drop", "miss", "err", "fail", "nombuf", "unsent", "skipped", "squeeze", "lost"})
        if (name.find(loss) != std::string::npos) return -1;
    return 0;
}

bool isDeviceRateFigure(const std::string &name)
{
    if (findMetric(name)) return false;
    for (std::string_view end : {"_per_s", "_pps", "_us", "_pct"})
        if (name.size() > end.size() && name.ends_with(end)) return true;
    return false;
}

} // namespace ringlab
