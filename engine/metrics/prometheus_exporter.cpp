// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/prometheus_exporter.h"

#include "engine/metrics/metric_table.h"

#include <cmath>
#include <cstdio>

#include "engine/git_revision.h"
#include "engine/version.h"

namespace ringlab {

std::string promLabelValue(std::string_view v)
{
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string promName(std::string_view v)
{
    std::string out;
    for (std::size_t k = 0; k < v.size(); ++k) {
        const char c = v[k];
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        const bool digit = c >= '0' && c <= '9';
        out += letter || (digit && k > 0) ? c : '_';
    }
    if (out.empty()) return "_";
    if (out.starts_with("__")) out[0] = 'x'; // names starting "__" are Prometheus's own
    return out;
}

namespace {

// Numbers as Prometheus reads them: integers exactly, others with 15 significant digits.
std::string num(double v)
{
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[40];
    if (v == std::floor(v) && std::fabs(v) < 9e15)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

class Writer {
  public:
    void family(const std::string &name, const char *type, std::string_view help)
    {
        out_ += "# HELP " + name + " ";
        for (char c : help) // HELP escapes backslash and line feed
            out_ += c == '\\'   ? std::string("\\\\")
                    : c == '\n' ? std::string("\\n")
                                : std::string(1, c);
        out_ += "\n# TYPE " + name + " " + type + "\n";
    }
    void value(const std::string &name, const std::string &labels, double v)
    {
        out_ += name;
        if (!labels.empty()) out_ += "{" + labels + "}";
        out_ += " " + num(v) + "\n";
    }
    std::string take() { return std::move(out_); }

  private:
    std::string out_;
};

std::string label(std::string_view name, std::string_view value)
{
    return std::string(name) + "=\"" + promLabelValue(value) + "\"";
}

void histogram(Writer &w, const std::string &name, std::string_view help,
               const std::array<std::uint64_t, kLatencyBucketCount> &buckets, std::uint64_t count,
               double sumS)
{
    w.family(name, "histogram", help);
    std::uint64_t cumulative = 0;
    for (std::size_t k = 0; k < std::size(kLatencyBucketBoundsUs); ++k) {
        cumulative += buckets[k];
        w.value(name + "_bucket", label("le", num(kLatencyBucketBoundsUs[k] / 1e6)),
                static_cast<double>(cumulative));
    }
    w.value(name + "_bucket", label("le", "+Inf"), static_cast<double>(count));
    w.value(name + "_sum", {}, sumS);
    w.value(name + "_count", {}, static_cast<double>(count));
}

} // namespace

PrometheusExporter::PrometheusExporter(RunLabels run, const ParamSet &params) : run_(std::move(run))
{
    for (const TunableInfo &t : tunables())
        tunables_[std::string(t.name)] = params.text(t.id);
}

void PrometheusExporter::setRun(RunLabels run)
{
    std::lock_guard lock(mutex_);
    run_ = std::move(run);
}

void PrometheusExporter::Hist::add(const LatencySummary &l)
{
    for (std::size_t k = 0; k < kLatencyBucketCount; ++k)
        buckets[k] += l.buckets[k];
    count += l.count;
    sumS += l.mean * static_cast<double>(l.count) / 1e6;
}

void PrometheusExporter::onSample(const std::shared_ptr<const Sample> &s)
{
    std::lock_guard lock(mutex_);
    last_ = s;
    for (auto &[name, tt] : threads_)
        tt.pollGapMaxS = -1; // a gauge of the last interval: threads gone have none
    for (const ThreadStat &t : s->threads) {
        ThreadTotals &tt = threads_[t.name];
        tt.cpuS += t.cpuMsPerS * s->interval / 1e3;
        tt.wakeups += t.wakeupsPerS * s->interval;
        tt.pollGapMaxS = t.pollGapMaxUs < 0 ? -1 : t.pollGapMaxUs / 1e6;
    }
    latency_.add(s->latency);
    rtt_.add(s->rtt);
}

void PrometheusExporter::onEvent(const Event &e)
{
    if (e.kind != "param" || e.tunable.empty()) return;
    std::lock_guard lock(mutex_);
    tunables_[e.tunable] = e.after;
}

std::string promEngineInfo(bool runActive)
{
    Writer w;
    w.family("ringlab_build_info", "gauge",
             "The engine's build: always 1, its version and git revision as labels");
    w.value("ringlab_build_info",
            label("version", RINGLAB_VERSION) + "," + label("revision", RINGLAB_GIT_REVISION), 1);
    w.family("ringlab_run_active", "gauge", "Whether a run is being measured (1) or not (0)");
    w.value("ringlab_run_active", {}, runActive ? 1 : 0);
    return w.take();
}

std::string PrometheusExporter::text() const
{
    std::lock_guard lock(mutex_);
    Writer w;
    w.family("ringlab_run_info", "gauge", "The run being measured: always 1, its facts as labels");
    w.value("ringlab_run_info",
            label("session", std::to_string(run_.session)) + "," + label("device", run_.device) +
                "," + label("profile", run_.profile) + "," + label("version", RINGLAB_VERSION),
            1);
    std::string tl;
    for (const auto &[name, value] : tunables_)
        tl += (tl.empty() ? "" : ",") + label(promName(name), value);
    w.family("ringlab_tunables_info", "gauge",
             "The tunables in force: always 1, each tunable a label (dots as underscores)");
    w.value("ringlab_tunables_info", tl, 1);
    if (!last_) return w.take();
    const Sample &s = *last_;

    for (std::size_t k = 0; k < kCounterCount; ++k) {
        const CounterId c = static_cast<CounterId>(k);
        if (isDropCause(c)) continue;
        const std::string name = "ringlab_" + std::string(counterName(c)) + "_total";
        w.family(name, "counter", counterHelp(c));
        w.value(name, {}, static_cast<double>(s.total[k]));
    }
    w.family("ringlab_dropped_frames_total", "counter", "Frames lost, by cause");
    for (CounterId c : kDropCauses)
        w.value("ringlab_dropped_frames_total", label("cause", counterName(c)),
                static_cast<double>(s.totalOf(c)));

    w.family("ringlab_thread_cpu_seconds_total", "counter", "CPU time of each engine thread");
    for (const auto &[name, t] : threads_)
        w.value("ringlab_thread_cpu_seconds_total", label("thread", name), t.cpuS);
    w.family("ringlab_thread_wakeups_total", "counter",
             "Voluntary context switches of each engine thread");
    for (const auto &[name, t] : threads_)
        w.value("ringlab_thread_wakeups_total", label("thread", name), std::round(t.wakeups));
    w.family("ringlab_thread_poll_gap_max_seconds", "gauge",
             "Longest time between two polls of a polling thread in the last interval");
    for (const auto &[name, t] : threads_)
        if (t.pollGapMaxS >= 0)
            w.value("ringlab_thread_poll_gap_max_seconds", label("thread", name), t.pollGapMaxS);

    histogram(w, "ringlab_latency_seconds",
              "Load frames from arrival to TX completion (one in ringlab_latency_sample_every)",
              latency_.buckets, latency_.count, latency_.sumS);
    histogram(w, "ringlab_probe_rtt_seconds", "Probe round trips", rtt_.buckets, rtt_.count,
              rtt_.sumS);

    // The gauges of the metric table, in base units.
    for (const MetricDef &d : metricTable()) {
        if (d.prometheus.empty()) continue;
        w.family(d.prometheus, "gauge", d.help);
        w.value(d.prometheus, {}, d.read(s).value_or(0) * (d.unit == "us" ? 1e-6 : 1.0));
    }
    // The device's own figures: one family for values and one for running totals, each
    // figure a label (its names are the device's: port_b_rx_mbps, iperf_jitter_ms).
    for (const bool total : {false, true}) {
        const std::string name = total ? "ringlab_device_total" : "ringlab_device_value";
        bool any = false;
        for (const DeviceMetric &m : s.device) {
            if (m.total != total) continue;
            if (!any)
                w.family(name, total ? "counter" : "gauge",
                         total ? "The device's own running totals (port statistics)"
                               : "The device's own figures (port rates, a traffic client's)");
            any = true;
            w.value(name, label("name", m.name) + "," + label("unit", m.unit), m.value);
        }
    }
    return w.take();
}

} // namespace ringlab
