// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/sample_json.h"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "engine/common/utf8_text.h"

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
constexpr CounterId kEventCounters[] = {
    CounterId::Processed,      CounterId::Polls,         CounterId::EmptyPolls,
    CounterId::Interrupts,     CounterId::RefillWakeups, CounterId::RefillPosted,
    CounterId::WorkItems,      CounterId::TimerArms,     CounterId::TimerCancels,
    CounterId::TimerFires,     CounterId::TxCleans,      CounterId::TxCleanKicks,
    CounterId::TxInlineCleans, CounterId::Reordered,     CounterId::HandoffTakes,
    CounterId::DimSteps};

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
    if (s.stall != Stall::None) j["stall"] = stallName(s.stall);
    j["throughput"] = {{"offered_pps", s.rateOf(CounterId::Offered)},
                       {"rx_pps", s.rateOf(CounterId::RxPackets)},
                       {"rx_mbps", s.rxMbps},
                       {"tx_pps", s.rateOf(CounterId::TxPackets)},
                       {"tx_mbps", s.txMbps}};
    json drops = json::object();
    for (CounterId c : kDropCauses)
        drops[std::string(counterName(c))] = s.rateOf(c);
    j["drops_per_s"] = drops;
    json events = json::object();
    for (CounterId c : kEventCounters)
        events[std::string(counterName(c))] = s.rateOf(c);
    j["events_per_s"] = events;
    json totals = json::object();
    for (std::size_t k = 0; k < kCounterCount; ++k)
        totals[std::string(counterName(static_cast<CounterId>(k)))] = s.total[k];
    j["totals"] = totals;
    if (!s.device.empty()) {
        json device = json::object(), units = json::object(), running = json::array();
        for (const auto &m : s.device) {
            device[m.name] = m.value;
            units[m.name] = m.unit;
            if (m.total) running.push_back(m.name);
        }
        j["device"] = device;
        j["device_units"] = units;
        j["device_totals"] = running;
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
    if (s.neighbourCpuMsPerS >= 0) j["cpu"]["neighbour_ms_per_s"] = s.neighbourCpuMsPerS;
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
// (json::exception or std::range_error), which the caller turns into an error. The line
// comes from another process: counts are checked to fit, arrays are bounded.
constexpr std::size_t kMaxLineItems = 256; // threads, device figures

double real(const json &v)
{
    if (v.is_null()) return std::nan(""); // toJson writes NaN as null
    if (!v.is_number()) throw std::range_error("a number was expected");
    return v.get<double>();
}

template <class U> U count(const json &v)
{
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > std::numeric_limits<U>::max())
        throw std::range_error("a count was expected, got " + std::string(v.type_name()));
    return static_cast<U>(v.get<std::uint64_t>());
}
void readLatency(const json &j, LatencySummary &l)
{
    l.p50 = real(j.at("p50"));
    l.p90 = real(j.at("p90"));
    l.p99 = real(j.at("p99"));
    l.p999 = real(j.at("p999"));
    l.max = real(j.at("max"));
    l.mean = real(j.at("mean"));
    l.count = count<std::uint64_t>(j.at("count"));
}

void setRate(Sample &s, CounterId c, double v)
{
    s.rate[static_cast<std::size_t>(c)] = v;
}

void readSample(const json &j, Sample &s)
{
    s.seq = count<std::uint64_t>(j.at("seq"));
    s.t = real(j.at("t"));
    s.interval = real(j.at("interval"));
    if (j.contains("stall")) {
        const json &stall = j.at("stall");
        if (!stall.is_string() || !stallFromName(stall.get<std::string>(), s.stall))
            throw std::range_error("stall: \"sampler\" was expected");
    }
    const json &tp = j.at("throughput");
    setRate(s, CounterId::Offered, real(tp.at("offered_pps")));
    setRate(s, CounterId::RxPackets, real(tp.at("rx_pps")));
    setRate(s, CounterId::TxPackets, real(tp.at("tx_pps")));
    s.rxMbps = real(tp.at("rx_mbps"));
    s.txMbps = real(tp.at("tx_mbps"));
    setRate(s, CounterId::RxBytes, s.rxMbps * 1e6 / 8);
    setRate(s, CounterId::TxBytes, s.txMbps * 1e6 / 8);
    for (CounterId c : kDropCauses)
        setRate(s, c, real(j.at("drops_per_s").at(std::string(counterName(c)))));
    for (CounterId c : kEventCounters)
        setRate(s, c, real(j.at("events_per_s").at(std::string(counterName(c)))));
    const json &totals = j.at("totals");
    for (std::size_t k = 0; k < kCounterCount; ++k)
        s.total[k] =
            count<std::uint64_t>(totals.at(std::string(counterName(static_cast<CounterId>(k)))));
    if (j.contains("device")) {
        if (j.at("device").size() > kMaxLineItems)
            throw std::range_error("too many device figures");
        for (const auto &[name, v] : j.at("device").items())
            s.device.push_back({name, {}, real(v), false});
        // Optional (lines written before they existed have neither): each figure's unit,
        // and which figures are running totals.
        const json none = json::object();
        const json &units = j.contains("device_units") ? j.at("device_units") : none;
        const json empty = json::array();
        const json &running = j.contains("device_totals") ? j.at("device_totals") : empty;
        if (!units.is_object()) throw std::range_error("device_units must be an object");
        if (!running.is_array() || running.size() > kMaxLineItems)
            throw std::range_error("device_totals must be a list of device figures");
        std::set<std::string> totalNames;
        for (const json &t : running)
            totalNames.insert(t.get<std::string>());
        for (DeviceMetric &m : s.device) {
            if (const auto u = units.find(m.name); u != units.end()) m.unit = u->get<std::string>();
            m.total = totalNames.count(m.name) > 0;
            if (m.total && !m.isCount())
                throw std::range_error("device figure " + m.name +
                                       " is a running total: a count was expected");
        }
    }
    readLatency(j.at("latency_us"), s.latency);
    readLatency(j.at("probe_rtt_us"), s.rtt);
    for (std::size_t k = 0; k < kStageSpans; ++k)
        s.stageUs[k] = real(j.at("stages_us").at(stageSpanName(k)));
    const json &cpu = j.at("cpu");
    s.engineCpuMsPerS = real(cpu.at("engine_ms_per_s"));
    s.processCpuMsPerS = real(cpu.at("process_ms_per_s"));
    s.processCpuPct = real(cpu.at("process_pct"));
    s.machineCpuPct = real(cpu.at("machine_pct"));
    if (cpu.contains("neighbour_ms_per_s")) { // absent in lines written before it
        s.neighbourCpuMsPerS = real(cpu.at("neighbour_ms_per_s"));
        if (s.neighbourCpuMsPerS < 0) throw std::range_error("neighbour_ms_per_s is negative");
    }
    if (cpu.at("threads").size() > kMaxLineItems) throw std::range_error("too many threads");
    for (const json &th : cpu.at("threads")) {
        ThreadStat t;
        t.name = th.at("name").get<std::string>();
        t.cpuMsPerS = real(th.at("cpu_ms_per_s"));
        t.cpuPct = real(th.at("cpu_pct"));
        t.wakeupsPerS = real(th.at("wakeups_per_s"));
        t.pollGapMaxUs = th.contains("poll_gap_max_us") ? real(th.at("poll_gap_max_us")) : -1.0;
        s.threads.push_back(std::move(t));
    }
    const json &g = j.at("gauges");
    s.poolFree = count<std::uint32_t>(g.at("pool_free"));
    s.rxPosted = count<std::uint32_t>(g.at("rx_posted"));
    s.txPending = count<std::uint32_t>(g.at("tx_pending"));
    s.handoffDepth = count<std::uint32_t>(g.at("handoff_depth"));
    s.rxModerationUs = count<std::uint32_t>(g.at("rx_moderation_us"));
    s.txCoalesceUs = count<std::uint32_t>(g.at("tx_coalesce_us"));
}
} // namespace

bool sampleFromJson(const json &j, Sample &out, std::string &error)
{
    try {
        Sample s;
        readSample(j, s);
        out = std::move(s);
        return true;
    } catch (const std::exception &e) { // json::exception, std::range_error
        error = std::string("a sample line that is not one: ") + e.what();
        return false;
    }
}

bool eventFromJson(const json &j, Event &out, std::string &error)
{
    try {
        Event e;
        e.t = real(j.at("t"));
        e.kind = j.at("kind").get<std::string>();
        e.tunable = j.value("tunable", std::string());
        e.before = j.value("old", std::string());
        e.after = j.value("new", std::string());
        e.source = j.value("source", std::string());
        e.message = j.value("message", std::string());
        out = std::move(e);
        return true;
    } catch (const std::exception &e) {
        error = std::string("an event line that is not one: ") + e.what();
        return false;
    }
}

} // namespace ringlab
