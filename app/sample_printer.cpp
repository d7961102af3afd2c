// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/sample_printer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_json.h"

namespace ringlab {

std::string stageBreakdown(const Sample &s)
{
    if (!s.latency.count) return "-";
    std::string out = "[0";
    double sum = 0;
    char buf[32];
    for (std::size_t k = 0; k < kStageSpans; ++k) {
        std::snprintf(buf, sizeof buf, "->%.0f", s.stageUs[k]);
        out += buf;
        sum += s.stageUs[k];
    }
    std::snprintf(buf, sizeof buf, "=%.0f us]", sum);
    return out + buf;
}

void SamplePrinter::finishWrite()
{
    errno = 0;
    if (std::fflush(out_) == 0 && !std::ferror(out_)) return;
    const int err = errno ? errno : EIO;
    {
        std::lock_guard lock(mutex_);
        if (closed_.load()) return;
        closedReason_ = std::strerror(err);
        closedErrno_ = err;
        closed_.store(true);
    }
    if (onClosed_) onClosed_();
}

std::string SamplePrinter::closedReason() const
{
    std::lock_guard lock(mutex_);
    return closedReason_;
}

int SamplePrinter::closedErrno() const
{
    std::lock_guard lock(mutex_);
    return closedErrno_;
}

void SamplePrinter::onDropped(std::uint64_t samples, std::uint64_t events)
{
    droppedLines_.fetch_add(samples + events);
}

void SamplePrinter::header()
{
    std::fprintf(out_, "%7s %9s %8s %9s %9s %9s %9s %9s %8s %8s %8s %8s  %s\n", "t(s)", "rx pps",
                 "rx Mb/s", "tx pps", "drops/s", "poll ms/s", "poll wk/s", "eng ms/s", "p50 us",
                 "p99 us", "max us", "rtt us", "stages (harvest->handoff->process->txpost->wire)");
    rowsSinceHeader_ = 0;
}

void SamplePrinter::onSample(const std::shared_ptr<const Sample> &s)
{
    {
        std::lock_guard lock(mutex_);
        summarizer_.add(*s);
        latest_ = s;
    }
    if (closed_.load()) return;
    if (fmt_ == OutputFormat::Jsonl) {
        std::fprintf(
            out_, "%s\n",
            toJson(*s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        finishWrite();
        return;
    }
    if (s->latency.sampleEvery != sampleEvery_) {
        sampleEvery_ = s->latency.sampleEvery;
        std::fprintf(out_, "# latency columns: %s\n",
                     sampleEvery_ > 1 ? ("1 load frame in " + std::to_string(sampleEvery_) +
                                         " measured (latency.sample_every)")
                                            .c_str()
                                      : "every frame measured (latency.sample_every 1)");
    }
    if (rowsSinceHeader_ >= 25) header();
    ++rowsSinceHeader_;
    const ThreadStat *poll = s->thread("poll");
    std::fprintf(out_,
                 "%7.2f %9.0f %8.1f %9.0f %9.0f %9.1f %9.0f %9.1f %8.1f %8.1f %8.1f %8.1f  %s\n",
                 s->t, s->rateOf(CounterId::RxPackets), s->rxMbps, s->rateOf(CounterId::TxPackets),
                 s->dropsPerS(), poll ? poll->cpuMsPerS : 0.0, poll ? poll->wakeupsPerS : 0.0,
                 s->engineCpuMsPerS, s->latency.p50, s->latency.p99, s->latency.max,
                 s->rtt.count ? s->rtt.mean : 0.0, stageBreakdown(*s).c_str());
    finishWrite();
}

void SamplePrinter::onEvent(const Event &e)
{
    if (closed_.load()) return;
    if (fmt_ == OutputFormat::Jsonl) {
        std::fprintf(
            out_, "%s\n",
            toJson(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else if (e.kind == "param") {
        std::fprintf(out_, "# %.2fs %s: %s -> %s (%s)\n", e.t, e.tunable.c_str(), e.before.c_str(),
                     e.after.c_str(), e.source.c_str());
    } else {
        std::fprintf(out_, "# %.2fs %s%s%s\n", e.t, e.kind.c_str(), e.message.empty() ? "" : ": ",
                     e.message.c_str());
    }
    finishWrite();
}

std::size_t SamplePrinter::sampleCount() const
{
    std::lock_guard lock(mutex_);
    return summarizer_.samplesSeen();
}

RunSummary SamplePrinter::summary() const
{
    std::lock_guard lock(mutex_);
    return summarizer_.result();
}

std::shared_ptr<const Sample> SamplePrinter::latest() const
{
    std::lock_guard lock(mutex_);
    return latest_;
}

void SamplePrinter::printThreads(std::FILE *out) const
{
    auto s = latest();
    if (!s) {
        std::fprintf(out, "no sample yet\n");
        return;
    }
    std::fprintf(out, "%-12s %10s %8s %10s\n", "thread", "CPU ms/s", "CPU %", "wakeups/s");
    for (const auto &t : s->threads)
        std::fprintf(out, "%-12s %10.1f %8.1f %10.0f\n", t.name.c_str(), t.cpuMsPerS, t.cpuPct,
                     t.wakeupsPerS);
    std::fprintf(out, "%-12s %10.1f %8.1f\n", "(engine)", s->engineCpuMsPerS,
                 s->engineCpuMsPerS / 10.0);
    std::fprintf(out, "%-12s %10.1f %8.1f\n", "(process)", s->processCpuMsPerS, s->processCpuPct);
}

void SamplePrinter::printParams(const std::string &profile, const ParamSet &ps)
{
    if (fmt_ != OutputFormat::Jsonl || closed_.load()) return;
    nlohmann::json values = nlohmann::json::object();
    for (const auto &t : tunables())
        values[std::string(t.name)] = ps.text(t.id);
    std::fprintf(out_, "%s\n",
                 nlohmann::json{{"type", "params"}, {"profile", profile}, {"values", values}}
                     .dump()
                     .c_str());
    finishWrite();
}

void SamplePrinter::printSummary(const RunSummary &r)
{
    if (closed_.load()) return;
    if (r.samples == 0) {
        // Stopped before the first sample: nothing was measured, and the summary says so.
        if (fmt_ == OutputFormat::Jsonl)
            std::fprintf(out_, "{\"type\":\"summary\",\"samples\":0}\n");
        else
            std::fprintf(
                out_, "\n== summary: stopped before the first sample; nothing was measured ==\n");
        finishWrite();
        return;
    }
    if (fmt_ == OutputFormat::Jsonl) {
        nlohmann::json j = {{"type", "summary"},
                            {"duration", r.duration},
                            {"warmup", r.warmup},
                            {"samples", r.samples}};
        nlohmann::json m = nlohmann::json::object();
        for (const auto &[k, v] : r.metrics)
            m[k] = {
                {"mean", v.mean}, {"median", v.median}, {"min", v.min}, {"max", v.max}, {"n", v.n}};
        j["metrics"] = m;
        // The device's own figures (the kernel's softirqs and busy-poll receives, a client's
        // requests, link speed), with their units.
        nlohmann::json d = nlohmann::json::object();
        for (const auto &[k, v] : r.deviceMetrics)
            if (v.n)
                d[k] = {{"mean", v.mean},
                        {"median", v.median},
                        {"min", v.min},
                        {"max", v.max},
                        {"n", v.n},
                        {"unit", r.deviceUnits.count(k) ? r.deviceUnits.at(k) : std::string()}};
        j["device"] = d;
        j["totals"] = r.totals;
        std::fprintf(out_, "%s\n", j.dump().c_str());
        finishWrite();
        return;
    }
    auto get = [&](const std::string &k) {
        auto it = r.metrics.find(k);
        return it == r.metrics.end() ? MetricSummary{} : it->second;
    };
    std::fprintf(
        out_, "\n== summary: %.1f s, %zu samples after %.1f s warm-up (mean / median / max) ==\n",
        r.duration, r.samples, r.warmup);
    // Labels and units are the metric table's; a thread's figures name the thread. The
    // label column is as wide as its longest entry (a kernel figure, a NAPI kthread's row).
    auto labelOf = [](const MetricDef &d, const std::string &thread) {
        return thread.empty() ? d.label : d.label + " (" + thread + ")";
    };
    int width = 24;
    for (const auto &name : r.threadNames)
        for (const MetricDef &d : metricTable())
            if (d.perThread()) width = std::max(width, static_cast<int>(labelOf(d, name).size()));
    for (const auto &[name, m] : r.deviceMetrics)
        if (m.n) width = std::max(width, static_cast<int>(name.size()));
    auto row = [&](const MetricDef &d, const std::string &thread = {}) {
        const MetricSummary m = get(thread.empty() ? d.name : d.name + "[" + thread + "]");
        if (m.n)
            std::fprintf(out_, "  %-*s %12.1f %12.1f %12.1f  %s\n", width,
                         labelOf(d, thread).c_str(), m.mean, m.median, m.max, d.unit.c_str());
    };
    // In the metric table's summary order; the families at their place, thread by thread.
    const auto listed = summaryMetrics();
    for (std::size_t k = 0; k < listed.size(); ++k) {
        if (!listed[k]->perThread()) {
            row(*listed[k]);
            continue;
        }
        std::size_t end = k;
        while (end < listed.size() && listed[end]->perThread())
            ++end;
        for (const auto &name : r.threadNames)
            for (std::size_t f = k; f < end; ++f)
                row(*listed[f], name);
        k = end - 1;
    }
    for (const auto &[name, m] : r.deviceMetrics)
        if (m.n)
            std::fprintf(out_, "  %-*s %12.1f %12.1f %12.1f  %s\n", width, name.c_str(), m.mean,
                         m.median, m.max,
                         r.deviceUnits.count(name) ? r.deviceUnits.at(name).c_str() : "");
    std::string totals = "  totals: offered " + std::to_string(r.totals.at("offered")) +
                         ", delivered " + std::to_string(r.totals.at("tx_packets"));
    for (CounterId c : kDropCauses) {
        const std::string name(counterName(c));
        totals += ", " + name + " " + std::to_string(r.totals.at(name));
    }
    // Then the device's own running totals (port packets, the direct pass's polls).
    auto isCounter = [](const std::string &name) {
        for (std::size_t k = 0; k < kCounterCount; ++k)
            if (counterName(static_cast<CounterId>(k)) == name) return true;
        return false;
    };
    for (const auto &[name, v] : r.totals)
        if (!isCounter(name)) totals += ", " + name + " " + std::to_string(v);
    std::fprintf(out_, "%s\n", totals.c_str());
    finishWrite();
}

} // namespace ringlab
