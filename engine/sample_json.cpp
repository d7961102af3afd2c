// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sample_json.h"

#include "engine/utf8_text.h"

namespace ringlab {

using nlohmann::json;

const char *stageSpanName(std::size_t k)
{
    static constexpr const char *names[] = {"harvest", "handoff", "process", "tx_post", "tx_wire"};
    static_assert(std::size(names) == kStageSpans);
    return names[k];
}

namespace {
json latencyJson(const LatencySummary &l)
{
    return {{"p50", l.p50}, {"p90", l.p90},   {"p99", l.p99},    {"p999", l.p999},
            {"max", l.max}, {"mean", l.mean}, {"count", l.count}};
}
} // namespace

json toJson(const Sample &s)
{
    json j;
    j["type"] = "sample";
    j["seq"] = s.seq;
    j["t"] = s.t;
    j["interval"] = s.interval;
    j["throughput"] = {{"offered_pps", s.rateOf(C::Offered)},
                       {"rx_pps", s.rateOf(C::RxPackets)},
                       {"rx_mbps", s.rxMbps},
                       {"tx_pps", s.rateOf(C::TxPackets)},
                       {"tx_mbps", s.txMbps}};
    json drops = json::object();
    for (C c : kDropCauses)
        drops[std::string(counterName(c))] = s.rateOf(c);
    j["drops_per_s"] = drops;
    json events = json::object();
    for (C c : {C::Polls, C::EmptyPolls, C::Interrupts, C::RefillWakeups, C::RefillPosted,
                C::WorkItems, C::TimerArms, C::TimerCancels, C::TimerFires, C::TxCleans,
                C::TxCleanKicks, C::Reordered, C::HandoffTakes, C::DimSteps})
        events[std::string(counterName(c))] = s.rateOf(c);
    j["events_per_s"] = events;
    json totals = json::object();
    for (std::size_t k = 0; k < kCounterCount; ++k)
        totals[std::string(counterName(static_cast<C>(k)))] = s.total[k];
    j["totals"] = totals;
    if (!s.device.empty()) {
        json device = json::object();
        for (const auto &m : s.device)
            device[m.name] = m.value;
        j["device"] = device;
    }
    j["latency_us"] = latencyJson(s.latency);
    json stages = json::object();
    double sum = 0;
    for (std::size_t k = 0; k < kStageSpans; ++k) {
        stages[stageSpanName(k)] = s.stageUs[k];
        sum += s.stageUs[k];
    }
    stages["total"] = sum;
    j["stages_us"] = stages;
    j["probe_rtt_us"] = latencyJson(s.rtt);
    json threads = json::array();
    for (const auto &t : s.threads) {
        json th = {{"name", t.name},
                   {"cpu_ms_per_s", t.cpuMsPerS},
                   {"cpu_pct", t.cpuPct},
                   {"wakeups_per_s", t.wakeupsPerS}};
        if (t.pollGapMaxUs >= 0) th["poll_gap_max_us"] = t.pollGapMaxUs;
        threads.push_back(std::move(th));
    }
    j["cpu"] = {{"engine_ms_per_s", s.engineCpuMsPerS},
                {"process_ms_per_s", s.processCpuMsPerS},
                {"process_pct", s.processCpuPct},
                {"machine_pct", s.machineCpuPct},
                {"threads", threads}};
    j["gauges"] = {{"pool_free", s.poolFree},
                   {"rx_posted", s.rxPosted},
                   {"tx_pending", s.txPending},
                   {"handoff_depth", s.handoffDepth},
                   {"rx_moderation_us", s.rxModerationUs},
                   {"tx_coalesce_us", s.txCoalesceUs}};
    return j;
}

json toJson(const Event &e)
{
    // Labels and messages may come from outside: escaped where they are not UTF-8.
    json j = {{"type", "event"}, {"t", e.t}, {"kind", utf8OrEscaped(e.kind)}};
    if (!e.tunable.empty()) {
        j["tunable"] = utf8OrEscaped(e.tunable);
        j["old"] = utf8OrEscaped(e.before);
        j["new"] = utf8OrEscaped(e.after);
    }
    if (!e.source.empty()) j["source"] = utf8OrEscaped(e.source);
    if (!e.message.empty()) j["message"] = utf8OrEscaped(e.message);
    return j;
}

} // namespace ringlab
