// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/summary.h"

#include <algorithm>

#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_metrics.h"

namespace ringlab {

void RunSummarizer::Part::add(const Sample &s, RunSummarizer &owner)
{
    ++samples;
    // The engine's metrics under the names a session stores them by ("cpu_ms_per_s[poll]").
    for (const MetricValue &m : flattenSample(s))
        if (!m.thread.empty() || findMetric(m.name)) metrics[m.label()].add(m.value);
    for (const auto &m : s.device) {
        if (m.total) continue; // a running total: its last value, in totals
        device[m.name].add(m.value);
        owner.deviceUnits_[m.name] = m.unit;
    }
    for (const auto &t : s.threads) {
        auto &names = owner.threadNames_;
        if (std::find(names.begin(), names.end(), t.name) == names.end()) names.push_back(t.name);
    }
}

void RunSummarizer::add(const Sample &s)
{
    ++seen_;
    duration_ = s.t;
    (s.t - s.interval >= warmupS_ - 1e-9 ? used_ : warmup_).add(s, *this);
    for (std::size_t k = 0; k < kCounterCount; ++k)
        totals_[std::string(counterName(static_cast<CounterId>(k)))] = s.total[k];
    for (const auto &m : s.device)
        if (m.total && m.isCount()) totals_[m.name] = static_cast<std::uint64_t>(m.value);
}

RunSummary RunSummarizer::result() const
{
    RunSummary r;
    if (!seen_) return r;
    const bool none = used_.samples == 0;
    const Part &part = none ? warmup_ : used_;
    r.duration = duration_;
    r.warmup = none ? 0 : warmupS_;
    r.samples = part.samples;
    for (const auto &[k, v] : part.metrics)
        r.metrics[k] = v.result();
    for (const auto &[k, v] : part.device)
        r.deviceMetrics[k] = v.result();
    r.totals = totals_;
    r.threadNames = threadNames_;
    r.deviceUnits = deviceUnits_;
    return r;
}

} // namespace ringlab
