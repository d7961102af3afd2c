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
// The counters whose rates are "events_per_s"; with "throughput" (offered, rx, tx and their
// bytes as Mbit/s) and "drops_per_s" every counter's rate is in a sample line once.
constexpr C kEventCounters[] = {
    C::Processed,      C::Polls,        C::EmptyPolls,   C::Interrupts,
    C::RefillWakeups,  C::RefillPosted, C::WorkItems,    C::TimerArms,
    C::TimerCancels,   C::TimerFires,   C::TxCleans,     C::TxCleanKicks,
    C::TxInlineCleans, C::Reordered,    C::HandoffTakes, C::DimSteps};

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
    for (C c : kEventCounters)
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

namespace {
// Reads what a sample line holds into `s`; a field missing or of the wrong type throws
// json::exception, which the caller turns into an error.
void readLatency(const json &j, LatencySummary &l)
{
    l.p50 = j.at("p50").get<double>();
    l.p90 = j.at("p90").get<double>();
    l.p99 = j.at("p99").get<double>();
    l.p999 = j.at("p999").get<double>();
    l.max = j.at("max").get<double>();
    l.mean = j.at("mean").get<double>();
    l.count = j.at("count").get<std::uint64_t>();
}

void setRate(Sample &s, C c, double v)
{
    s.rate[static_cast<std::size_t>(c)] = v;
}

void readSample(const json &j, Sample &s)
{
    s.seq = j.at("seq").get<std::uint64_t>();
    s.t = j.at("t").get<double>();
    s.interval = j.at("interval").get<double>();
    const json &tp = j.at("throughput");
    setRate(s, C::Offered, tp.at("offered_pps").get<double>());
    setRate(s, C::RxPackets, tp.at("rx_pps").get<double>());
    setRate(s, C::TxPackets, tp.at("tx_pps").get<double>());
    s.rxMbps = tp.at("rx_mbps").get<double>();
    s.txMbps = tp.at("tx_mbps").get<double>();
    setRate(s, C::RxBytes, s.rxMbps * 1e6 / 8);
    setRate(s, C::TxBytes, s.txMbps * 1e6 / 8);
    for (C c : kDropCauses)
        setRate(s, c, j.at("drops_per_s").at(std::string(counterName(c))).get<double>());
    for (C c : kEventCounters)
        setRate(s, c, j.at("events_per_s").at(std::string(counterName(c))).get<double>());
    const json &totals = j.at("totals");
    for (std::size_t k = 0; k < kCounterCount; ++k)
        s.total[k] = totals.at(std::string(counterName(static_cast<C>(k)))).get<std::uint64_t>();
    if (j.contains("device"))
        for (const auto &[name, v] : j.at("device").items())
            s.device.push_back({name, {}, v.get<double>(), false});
    readLatency(j.at("latency_us"), s.latency);
    readLatency(j.at("probe_rtt_us"), s.rtt);
    for (std::size_t k = 0; k < kStageSpans; ++k)
        s.stageUs[k] = j.at("stages_us").at(stageSpanName(k)).get<double>();
    const json &cpu = j.at("cpu");
    s.engineCpuMsPerS = cpu.at("engine_ms_per_s").get<double>();
    s.processCpuMsPerS = cpu.at("process_ms_per_s").get<double>();
    s.processCpuPct = cpu.at("process_pct").get<double>();
    s.machineCpuPct = cpu.at("machine_pct").get<double>();
    for (const json &th : cpu.at("threads")) {
        ThreadStat t;
        t.name = th.at("name").get<std::string>();
        t.cpuMsPerS = th.at("cpu_ms_per_s").get<double>();
        t.cpuPct = th.at("cpu_pct").get<double>();
        t.wakeupsPerS = th.at("wakeups_per_s").get<double>();
        t.pollGapMaxUs = th.value("poll_gap_max_us", -1.0);
        s.threads.push_back(std::move(t));
    }
    const json &g = j.at("gauges");
    s.poolFree = g.at("pool_free").get<std::uint32_t>();
    s.rxPosted = g.at("rx_posted").get<std::uint32_t>();
    s.txPending = g.at("tx_pending").get<std::uint32_t>();
    s.handoffDepth = g.at("handoff_depth").get<std::uint32_t>();
    s.rxModerationUs = g.at("rx_moderation_us").get<std::uint32_t>();
    s.txCoalesceUs = g.at("tx_coalesce_us").get<std::uint32_t>();
}
} // namespace

bool sampleFromJson(const json &j, Sample &out, std::string &error)
{
    try {
        Sample s;
        readSample(j, s);
        out = std::move(s);
        return true;
    } catch (const json::exception &e) {
        error = std::string("a sample line that is not one: ") + e.what();
        return false;
    }
}

bool eventFromJson(const json &j, Event &out, std::string &error)
{
    try {
        Event e;
        e.t = j.at("t").get<double>();
        e.kind = j.at("kind").get<std::string>();
        e.tunable = j.value("tunable", std::string());
        e.before = j.value("old", std::string());
        e.after = j.value("new", std::string());
        e.source = j.value("source", std::string());
        e.message = j.value("message", std::string());
        out = std::move(e);
        return true;
    } catch (const json::exception &e) {
        error = std::string("an event line that is not one: ") + e.what();
        return false;
    }
}

} // namespace ringlab
