// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sample_metrics.h"

#include "engine/sample_json.h"

namespace ringlab {

std::vector<MetricValue> flattenSample(const Sample &s)
{
    std::vector<MetricValue> m;
    m.reserve(64 + 3 * s.threads.size());
    auto put = [&](std::string name, const char *unit, double v, std::string thread = {}) {
        m.push_back({std::move(name), unit, std::move(thread), v});
    };
    put("offered_pps", "pps", s.rateOf(C::Offered));
    put("rx_pps", "pps", s.rateOf(C::RxPackets));
    put("rx_mbps", "Mbit/s", s.rxMbps);
    put("tx_pps", "pps", s.rateOf(C::TxPackets));
    put("tx_mbps", "Mbit/s", s.txMbps);
    // The stmmac case's direct effect: coalesce timer arms per transmitted frame.
    if (const double tx = s.rateOf(C::TxPackets); tx > 0)
        put("timer_arms_per_frame", "1/frame", s.rateOf(C::TimerArms) / tx);
    put("drops_per_s", "1/s", s.dropsPerS()); // every cause summed
    for (std::size_t k = 0; k < kCounterCount; ++k) {
        const C c = static_cast<C>(k);
        if (c == C::Offered || c == C::RxPackets || c == C::TxPackets || c == C::RxBytes ||
            c == C::TxBytes || c == C::Processed)
            continue;
        put(std::string(counterName(c)) + "_per_s", "1/s", s.rate[k]);
    }
    const struct {
        const char *prefix;
        const LatencySummary &l;
    } lat[] = {{"latency", s.latency}, {"rtt", s.rtt}};
    for (const auto &[prefix, l] : lat) {
        const std::string p = prefix;
        put(p + "_count", "packets", static_cast<double>(l.count));
        if (!l.count) continue; // no packet, no latency: absent, not zero
        put(p + "_p50_us", "us", l.p50);
        put(p + "_p90_us", "us", l.p90);
        put(p + "_p99_us", "us", l.p99);
        put(p + "_p999_us", "us", l.p999);
        put(p + "_max_us", "us", l.max);
        put(p + "_mean_us", "us", l.mean);
    }
    if (s.latency.count)
        for (std::size_t k = 0; k < kStageSpans; ++k)
            put(std::string("stage_") + stageSpanName(k) + "_us", "us", s.stageUs[k]);
    put("engine_cpu_ms_per_s", "ms/s", s.engineCpuMsPerS);
    put("process_cpu_ms_per_s", "ms/s", s.processCpuMsPerS);
    put("machine_cpu_pct", "%", s.machineCpuPct);
    put("pool_free", "buffers", s.poolFree);
    put("rx_posted", "descriptors", s.rxPosted);
    put("tx_pending", "descriptors", s.txPending);
    put("handoff_depth", "packets", s.handoffDepth);
    put("rx_moderation_us", "us", s.rxModerationUs); // in force: irq.usecs, or net_dim's
    put("tx_coalesce_us", "us", s.txCoalesceUs);
    for (const auto &d : s.device)
        m.push_back({d.name, d.unit, {}, d.value});
    for (const auto &t : s.threads) {
        put("cpu_ms_per_s", "ms/s", t.cpuMsPerS, t.name);
        put("wakeups_per_s", "1/s", t.wakeupsPerS, t.name);
        if (t.pollGapMaxUs >= 0) put("poll_gap_max_us", "us", t.pollGapMaxUs, t.name);
    }
    return m;
}

void setSampleMetric(Sample &s, const std::string &name, const std::string &thread, double v)
{
    // Derived from other fields: nothing to set.
    if (name == "timer_arms_per_frame" || name == "drops_per_s") return;
    if (!thread.empty()) {
        ThreadStat *t = nullptr;
        for (auto &x : s.threads)
            if (x.name == thread) t = &x;
        if (!t) {
            s.threads.push_back({thread, 0, 0, 0, -1});
            t = &s.threads.back();
        }
        if (name == "cpu_ms_per_s") {
            t->cpuMsPerS = v;
            t->cpuPct = v / 10;
        } else if (name == "wakeups_per_s") {
            t->wakeupsPerS = v;
        } else if (name == "poll_gap_max_us") {
            t->pollGapMaxUs = v;
        }
        return;
    }
    auto rate = [&](C c) { s.rate[static_cast<std::size_t>(c)] = v; };
    if (name == "offered_pps") return rate(C::Offered);
    if (name == "rx_pps") return rate(C::RxPackets);
    if (name == "tx_pps") return rate(C::TxPackets);
    if (name == "rx_mbps") {
        s.rxMbps = v;
        return;
    }
    if (name == "tx_mbps") {
        s.txMbps = v;
        return;
    }
    for (std::size_t k = 0; k < kCounterCount; ++k)
        if (name == std::string(counterName(static_cast<C>(k))) + "_per_s")
            return rate(static_cast<C>(k));
    for (auto [prefix, l] : {std::pair{"latency_", &s.latency}, std::pair{"rtt_", &s.rtt}}) {
        const std::string p = prefix;
        if (name.rfind(p, 0) != 0) continue;
        const std::string f = name.substr(p.size());
        if (f == "count")
            l->count = static_cast<std::uint64_t>(v);
        else if (f == "p50_us")
            l->p50 = v;
        else if (f == "p90_us")
            l->p90 = v;
        else if (f == "p99_us")
            l->p99 = v;
        else if (f == "p999_us")
            l->p999 = v;
        else if (f == "max_us")
            l->max = v;
        else if (f == "mean_us")
            l->mean = v;
        return;
    }
    for (std::size_t k = 0; k < kStageSpans; ++k)
        if (name == std::string("stage_") + stageSpanName(k) + "_us") {
            s.stageUs[k] = v;
            return;
        }
    if (name == "engine_cpu_ms_per_s") {
        s.engineCpuMsPerS = v;
    } else if (name == "process_cpu_ms_per_s") {
        s.processCpuMsPerS = v;
        s.processCpuPct = v / 10;
    } else if (name == "machine_cpu_pct")
        s.machineCpuPct = v;
    else if (name == "pool_free")
        s.poolFree = static_cast<std::uint32_t>(v);
    else if (name == "rx_posted")
        s.rxPosted = static_cast<std::uint32_t>(v);
    else if (name == "tx_pending")
        s.txPending = static_cast<std::uint32_t>(v);
    else if (name == "handoff_depth")
        s.handoffDepth = static_cast<std::uint32_t>(v);
    else if (name == "rx_moderation_us")
        s.rxModerationUs = static_cast<std::uint32_t>(v);
    else if (name == "tx_coalesce_us")
        s.txCoalesceUs = static_cast<std::uint32_t>(v);
    else
        s.device.push_back({name, {}, v}); // a device's own metric
}

const std::vector<std::string> &keyMetrics()
{
    static const std::vector<std::string> m = {
        "rx_pps", "engine_cpu_ms_per_s", "wakeups_per_s[poll]", "latency_p99_us", "drops_per_s"};
    return m;
}

std::vector<std::string> engineMetricNames()
{
    Sample s;
    s.latency.count = s.rtt.count = 1;
    s.rate[static_cast<std::size_t>(C::TxPackets)] = 1;
    s.threads.push_back({"thread", 0, 0, 0});
    std::vector<std::string> names;
    for (const auto &m : flattenSample(s))
        names.push_back(m.thread.empty() ? m.name : m.name + "[THREAD]");
    return names;
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
    if (name == "rx_pps" || name == "tx_pps" || name == "rx_mbps" || name == "tx_mbps") return +1;
    // Figures that follow the load rather than judge it.
    if (name == "offered_pps" || name.ends_with("_count") || name == "pool_free" ||
        name == "rx_posted" || name == "refill_posted_per_s" || name == "polls_per_s" ||
        name == "work_items_per_s" || name == "tx_cleans_per_s" || name == "tx_clean_kicks_per_s" ||
        name == "tx_inline_cleans_per_s" || name == "tx_pending" || name == "dim_steps_per_s" ||
        name == "rx_moderation_us" || name == "tx_coalesce_us")
        return 0;
    return -1; // CPU, wakeups, drops, events, latency, queue depths: less is better
}

} // namespace ringlab
