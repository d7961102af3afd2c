// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/sweep_report.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "engine/common/number_text.h"
#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/tune/pareto.h"

namespace ringlab {
namespace {

std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string baseName(const std::string &label)
{
    return label.substr(0, label.find('['));
}

// What the intervals in the printed table are over, from the cells themselves: a point
// with one run has intervals over 0.5 s batches within it, one with several runs over its
// repeats, and a cell with fewer than 3 of either has none (its mean decides).
std::string intervalNote(const SweepTable &t)
{
    int overRepeats = 0, overBatches = 0, without = 0;
    for (const auto &p : t.points)
        for (const auto &m : t.metrics) {
            const auto it = p.metrics.find(m);
            if (it == p.metrics.end()) continue;
            if (it->second.batches < 3)
                ++without;
            else if (p.sessions.size() > 1)
                ++overRepeats;
            else
                ++overBatches;
        }
    if (!overRepeats && !overBatches)
        return without ? "; no cell has an interval (fewer than 3 repeats or 0.5 s batches "
                         "each), so the means decide. Use --repeat 3 or more."
                       : ".";
    std::string note = " (95 % intervals, over ";
    note += overRepeats && overBatches ? "the repeats, or 0.5 s batches for points run once"
            : overRepeats              ? "the repeats"
                                       : "0.5 s batches within one run";
    note += ")";
    if (without)
        note += "; a cell marked (no CI) had fewer than 3 repeats or batches, and there the "
                "means decide";
    return note + ".";
}

// A point's estimate of metric `m`; null when it has none.
const Estimate *metricOf(const PointResult &p, const std::string &m)
{
    const auto it = p.metrics.find(m);
    return it == p.metrics.end() ? nullptr : &it->second;
}

// The swept tunables, named as the first point names them.
std::vector<std::string> sweepKnobs(const SweepRecord &sweep)
{
    std::vector<std::string> knobs;
    if (!sweep.points.empty())
        for (const auto &[n, v] : sweep.points.front().values)
            knobs.push_back(n);
    return knobs;
}

// The sweep as JSON: its spec, then per point its values, sessions, place on the front and
// estimates.
std::string sweepJson(const SweepRecord &sweep, const SweepTable &t)
{
    nlohmann::json j;
    j["sweep"] = sweep.id;
    j["created_at"] = sweep.createdAt;
    j["spec"] = sweepSpecToJson(sweep.spec);
    j["metrics"] = t.metrics;
    j["points"] = nlohmann::json::array();
    for (std::size_t k = 0; k < t.points.size(); ++k) {
        const auto &p = t.points[k];
        nlohmann::json jp;
        jp["point"] = p.point.index;
        for (const auto &[n, v] : p.point.values)
            jp["values"][n] = v;
        jp["sessions"] = p.sessions;
        jp["front"] = static_cast<bool>(t.front[k]);
        if (t.beatenBy[k] >= 0) jp[t.beaten(k) ? "beaten_by" : "within_noise_of"] = t.beatenBy[k];
        jp["metrics"] = nlohmann::json::object();
        for (const auto &m : t.metrics)
            if (const Estimate *e = metricOf(p, m))
                jp["metrics"][m] = {
                    {"mean", e->mean},
                    {"ci95", e->batches >= 3 ? nlohmann::json(e->ciHalf) : nlohmann::json(nullptr)},
                    {"n", e->n},
                    {"unit", p.units.count(m) ? p.units.at(m) : ""}};
        j["points"].push_back(jp);
    }
    return j.dump(2) + "\n";
}

// The table as CSV: a row per point, with a mean and an interval per metric.
std::string sweepCsv(const SweepTable &t, const std::vector<std::string> &knobs)
{
    std::string out;
    out += "point";
    for (const auto &k : knobs)
        out += "," + csvField(k);
    for (const auto &m : t.metrics)
        out += "," + csvField(m) + "," + csvField(m + " ci95");
    out += ",front,runs,sessions\n";
    for (std::size_t k = 0; k < t.points.size(); ++k) {
        const auto &p = t.points[k];
        out += std::to_string(p.point.index);
        for (const auto &[n, v] : p.point.values)
            out += "," + csvField(v);
        for (const auto &m : t.metrics) {
            const Estimate *e = metricOf(p, m);
            out += "," + (e ? tableNumber(e->mean) : std::string()) + "," +
                   (e && e->batches >= 3 ? tableNumber(e->ciHalf) : std::string());
        }
        std::string ids;
        for (auto id : p.sessions)
            ids += (ids.empty() ? "" : " ") + std::to_string(id);
        out += std::string(",") + (t.front[k] ? "yes" : "no") + "," +
               std::to_string(p.sessions.size()) + "," + ids + "\n";
    }
    return out;
}

// The terminal table's first lines: the sweep, then the column headings. `widths` receives
// the tunables' columns' widths.
std::string sweepTableHeading(const SweepRecord &sweep, const SweepTable &t,
                              const std::vector<std::string> &knobs,
                              std::vector<std::size_t> &widths)
{
    std::string out;
    char buf[256];
    std::snprintf(buf, sizeof buf, "sweep %s: %s, %d repeat(s) of %.1f s per point, %d/%d runs\n",
                  sweep.id.c_str(), sweep.spec.profile.c_str(), sweep.spec.repeat,
                  static_cast<double>(sweep.spec.durationNs) / 1e9, sweep.completedRuns(),
                  sweep.plannedRuns());
    out += buf;
    out += "  point";
    for (const auto &k : knobs) {
        widths.push_back(std::max<std::size_t>(k.size(), 6));
        std::snprintf(buf, sizeof buf, " %*s", static_cast<int>(widths.back()), k.c_str());
        out += buf;
    }
    for (const auto &m : t.metrics) {
        std::snprintf(buf, sizeof buf, " %20s", m.c_str());
        out += buf;
    }
    out += "\n";
    return out;
}

// Point k's line of the terminal table: * when on the front, its values, its cells, and the
// point that beats it.
std::string sweepTableLine(const SweepTable &t, std::size_t k,
                           const std::vector<std::size_t> &widths)
{
    std::string out;
    char buf[256];
    const auto &p = t.points[k];
    std::snprintf(buf, sizeof buf, "%s %5d", t.front[k] ? "*" : " ", p.point.index);
    out += buf;
    for (std::size_t v = 0; v < p.point.values.size() && v < widths.size(); ++v) {
        std::snprintf(buf, sizeof buf, " %*s", static_cast<int>(widths[v]),
                      p.point.values[v].second.c_str());
        out += buf;
    }
    for (const auto &m : t.metrics) {
        const Estimate *e = metricOf(p, m);
        std::string cell = !e                ? (p.sessions.empty() ? "not run" : "-")
                           : e->batches >= 3 ? tableNumber(e->mean) + " ±" + tableNumber(e->ciHalf)
                                             : tableNumber(e->mean) + " (no CI)";
        std::snprintf(buf, sizeof buf, " %20s", cell.c_str());
        out += buf;
    }
    if (t.beatenBy[k] >= 0) {
        std::snprintf(buf, sizeof buf, t.beaten(k) ? "  beaten by %d" : "  within noise of %d",
                      t.beatenBy[k]);
        out += buf;
    }
    out += "\n";
    return out;
}

// What the * means: the metrics the front is over, and what the intervals are over.
std::string frontNote(const SweepTable &t)
{
    std::string out;
    out += "\n* on the Pareto front of";
    for (std::size_t m = 0; m < t.metrics.size(); ++m)
        if (t.directions[m] != 0)
            out += " " + t.metrics[m] + (t.directions[m] > 0 ? " (higher is better)" : " (lower)");
    out += ": no other point's means are as good on each and better on one; off it, \"beaten\" "
           "when that point is also significantly better on one, \"within noise\" when not";
    out += intervalNote(t) + "\n";
    return out;
}

} // namespace

std::vector<std::string> defaultSweepMetrics()
{
    // The metric table's sweep column, in its rank.
    std::vector<std::string> names;
    for (const MetricDef *d : rankedMetrics(&MetricView::sweep))
        names.push_back(d->name);
    return names;
}

Result<std::vector<std::string>> sweepMetricLabels(const std::vector<std::string> &names,
                                                   bool deviceMetricsToo)
{
    std::vector<std::string> labels;
    for (const auto &n : names) {
        const std::string label = metricLabel(n);
        if (!deviceMetricsToo && !isEngineMetric(label))
            return Status::refused("metric \"" + n + "\" is not one the engine records (e.g. " +
                                   "engine_cpu_ms_per_s, latency_p99_us, rx_pps, drops_per_s, " +
                                   "cpu_ms_per_s[poll]; 'ringlab-engine sessions export' shows "
                                   "them all)");
        labels.push_back(label);
    }
    return labels;
}

SweepTable sweepTable(SessionStore &store, const SweepRecord &sweep,
                      const std::vector<std::string> &metrics)
{
    SweepTable t;
    t.metrics = metrics;
    for (const auto &m : metrics)
        t.directions.push_back(betterDirection(baseName(m)));
    t.points = sweepResults(store, sweep);
    placeOnFront(t);
    return t;
}

void placeOnFront(SweepTable &t)
{
    const auto &metrics = t.metrics;
    // The front among the points measured; a metric that follows the load is not an axis.
    std::vector<std::vector<Estimate>> est;
    std::vector<std::size_t> measured;
    std::vector<int> dirs;
    for (std::size_t m = 0; m < metrics.size(); ++m)
        if (t.directions[m] != 0) dirs.push_back(t.directions[m]);
    for (std::size_t k = 0; k < t.points.size(); ++k) {
        const auto &p = t.points[k];
        if (p.sessions.empty()) continue;
        std::vector<Estimate> row;
        for (std::size_t m = 0; m < metrics.size(); ++m) {
            if (t.directions[m] == 0) continue;
            const auto it = p.metrics.find(metrics[m]);
            if (it == p.metrics.end()) break;
            row.push_back(it->second);
        }
        measured.push_back(k);
        est.push_back(std::move(row));
    }
    std::vector<int> by;
    const auto places = frontPlaces(est, dirs, &by);
    t.front.assign(t.points.size(), false);
    t.place.assign(t.points.size(), FrontPlace::On);
    t.beatenBy.assign(t.points.size(), -1);
    for (std::size_t k = 0; k < measured.size(); ++k) {
        t.front[measured[k]] = places[k] == FrontPlace::On;
        t.place[measured[k]] = places[k];
        if (by[k] >= 0) t.beatenBy[measured[k]] = t.points[measured[by[k]]].point.index;
    }
}

std::string formatSweep(const SweepRecord &sweep, const SweepTable &t, SweepFormat format)
{
    if (format == SweepFormat::Json) return sweepJson(sweep, t);
    const std::vector<std::string> knobs = sweepKnobs(sweep);
    if (format == SweepFormat::Csv) return sweepCsv(t, knobs);

    // A table for a terminal: one line per point, the front marked with *.
    std::vector<std::size_t> widths;
    std::string out = sweepTableHeading(sweep, t, knobs, widths);
    for (std::size_t k = 0; k < t.points.size(); ++k)
        out += sweepTableLine(t, k, widths);
    return out + frontNote(t);
}

} // namespace ringlab
