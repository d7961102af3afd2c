// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/summary.h"

#include <algorithm>

#include "engine/metrics/sample_json.h"

namespace ringlab {

void RunSummarizer::Part::add(const Sample &s, RunSummarizer &owner)
{
    ++samples;
    auto put = [&](const std::string &k, double v) { metrics[k].add(v); };
    put("offered_pps", s.rateOf(CounterId::Offered));
    put("rx_pps", s.rateOf(CounterId::RxPackets));
    put("rx_mbps", s.rxMbps);
    put("tx_pps", s.rateOf(CounterId::TxPackets));
    put("tx_mbps", s.txMbps);
    put("drops_per_s", s.dropsPerS());
    for (CounterId c : kDropCauses)
        put(std::string(counterName(c)) + "_per_s", s.rateOf(c));
    for (CounterId c : {CounterId::Polls, CounterId::EmptyPolls, CounterId::Interrupts,
                        CounterId::RefillWakeups, CounterId::WorkItems, CounterId::TimerArms,
                        CounterId::TimerCancels, CounterId::TimerFires, CounterId::TxCleans,
                        CounterId::TxCleanKicks, CounterId::HandoffTakes, CounterId::DimSteps})
        put(std::string(counterName(c)) + "_per_s", s.rateOf(c));
    if (const double tx = s.rateOf(CounterId::TxPackets); tx > 0)
        put("timer_arms_per_frame", s.rateOf(CounterId::TimerArms) / tx);
    for (const auto &m : s.device) {
        if (m.total) continue; // a running total: its last value, in totals
        device[m.name].add(m.value);
        owner.deviceUnits_[m.name] = m.unit;
    }
    if (s.latency.count) {
        put("latency_p50_us", s.latency.p50);
        put("latency_p99_us", s.latency.p99);
        put("latency_max_us", s.latency.max);
        for (std::size_t k = 0; k < kStageSpans; ++k)
            put(std::string("stage_") + stageSpanName(k) + "_us", s.stageUs[k]);
    }
    if (s.rtt.count) {
        put("probe_rtt_us", s.rtt.mean);
        put("probe_rtt_p50_us", s.rtt.p50);
        put("probe_rtt_p99_us", s.rtt.p99);
    }
    put("engine_cpu_ms_per_s", s.engineCpuMsPerS);
    put("process_cpu_ms_per_s", s.processCpuMsPerS);
    put("machine_cpu_pct", s.machineCpuPct);
    if (s.neighbourCpuMsPerS >= 0) put("neighbour_cpu_ms_per_s", s.neighbourCpuMsPerS);
    for (const auto &t : s.threads) {
        put("thread." + t.name + ".cpu_ms_per_s", t.cpuMsPerS);
        put("thread." + t.name + ".wakeups_per_s", t.wakeupsPerS);
        if (t.pollGapMaxUs >= 0) put("thread." + t.name + ".poll_gap_max_us", t.pollGapMaxUs);
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
