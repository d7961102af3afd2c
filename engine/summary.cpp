// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/summary.h"

#include <algorithm>

#include "engine/sample_json.h"

namespace ringlab {

MetricSummary summarizeValues(std::vector<double> v)
{
    MetricSummary m;
    m.n = v.size();
    if (v.empty()) return m;
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v)
        sum += x;
    m.mean = sum / static_cast<double>(v.size());
    const std::size_t mid = v.size() / 2;
    m.median = v.size() % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
    m.min = v.front();
    m.max = v.back();
    return m;
}

RunSummary summarizeRun(const std::vector<std::shared_ptr<const Sample>> &samples, double warmupS)
{
    RunSummary r;
    if (samples.empty()) return r;
    r.duration = samples.back()->t;
    std::vector<std::shared_ptr<const Sample>> used;
    for (const auto &s : samples)
        if (s->t - s->interval >= warmupS - 1e-9) used.push_back(s);
    r.warmup = warmupS;
    if (used.empty()) {
        used = samples;
        r.warmup = 0;
    }
    r.samples = used.size();

    std::map<std::string, std::vector<double>> series;
    std::map<std::string, std::vector<double>> deviceSeries;
    auto put = [&](const std::string &k, double v) { series[k].push_back(v); };
    for (const auto &s : used) {
        put("offered_pps", s->rateOf(C::Offered));
        put("rx_pps", s->rateOf(C::RxPackets));
        put("rx_mbps", s->rxMbps);
        put("tx_pps", s->rateOf(C::TxPackets));
        put("tx_mbps", s->txMbps);
        for (C c : kDropCauses)
            put(std::string(counterName(c)) + "_per_s", s->rateOf(c));
        for (C c : {C::Polls, C::EmptyPolls, C::Interrupts, C::RefillWakeups, C::WorkItems,
                    C::TimerArms, C::TimerCancels, C::TimerFires})
            put(std::string(counterName(c)) + "_per_s", s->rateOf(c));
        for (const auto &m : s->device) {
            if (m.total) continue; // a running total: its last value, below
            deviceSeries[m.name].push_back(m.value);
            r.deviceUnits[m.name] = m.unit;
        }
        if (s->latency.count) {
            put("latency_p50_us", s->latency.p50);
            put("latency_p99_us", s->latency.p99);
            put("latency_max_us", s->latency.max);
            for (std::size_t k = 0; k < kStageSpans; ++k)
                put(std::string("stage_") + stageSpanName(k) + "_us", s->stageUs[k]);
        }
        if (s->rtt.count) {
            put("probe_rtt_us", s->rtt.mean);
            put("probe_rtt_p50_us", s->rtt.p50);
            put("probe_rtt_p99_us", s->rtt.p99);
        }
        put("process_cpu_ms_per_s", s->processCpuMsPerS);
        put("machine_cpu_pct", s->machineCpuPct);
        for (const auto &t : s->threads) {
            put("thread." + t.name + ".cpu_ms_per_s", t.cpuMsPerS);
            put("thread." + t.name + ".wakeups_per_s", t.wakeupsPerS);
            if (std::find(r.threadNames.begin(), r.threadNames.end(), t.name) ==
                r.threadNames.end())
                r.threadNames.push_back(t.name);
        }
    }
    for (auto &[k, v] : series)
        r.metrics[k] = summarizeValues(std::move(v));
    for (auto &[k, v] : deviceSeries)
        r.deviceMetrics[k] = summarizeValues(std::move(v));
    const Sample &last = *samples.back();
    for (std::size_t k = 0; k < kCounterCount; ++k)
        r.totals[std::string(counterName(static_cast<C>(k)))] = last.total[k];
    for (const auto &m : last.device)
        if (m.total) r.totals[m.name] = static_cast<std::uint64_t>(m.value);
    return r;
}

} // namespace ringlab
