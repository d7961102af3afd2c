// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/session_compare.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/store/run_load.h"
#include "engine/store/session_report.h"

namespace ringlab {

namespace {
bool parseSpec(const std::string &spec, std::int64_t &id, int &seg)
{
    const auto colon = spec.find(':');
    const std::string idText = spec.substr(0, colon);
    auto [p, ec] = std::from_chars(idText.data(), idText.data() + idText.size(), id);
    if (ec != std::errc() || p != idText.data() + idText.size() || id <= 0) return false;
    seg = 0;
    if (colon == std::string::npos) return true;
    const std::string segText = spec.substr(colon + 1);
    auto [q, ec2] = std::from_chars(segText.data(), segText.data() + segText.size(), seg);
    return ec2 == std::errc() && q == segText.data() + segText.size() && seg > 0;
}

// Per metric label, the values of the given rows (NaN left out).
void collect(const SampleTable &tab, const std::vector<std::size_t> &rows, CompareSide &side)
{
    for (std::size_t c = 0; c < tab.metrics.size(); ++c) {
        const std::string label = tab.metrics[c].label();
        side.units[label] = tab.metrics[c].unit;
        auto &v = side.values[label];
        for (auto r : rows)
            if (std::isfinite(tab.values[c][r])) v.push_back(tab.values[c][r]);
    }
}

std::vector<std::size_t> allRows(const SampleTable &tab, double warmupS)
{
    std::vector<std::size_t> rows, all;
    for (std::size_t r = 0; r < tab.t.size(); ++r) {
        all.push_back(r);
        if (tab.t[r] - tab.interval[r] >= warmupS - 1e-9) rows.push_back(r);
    }
    return rows.empty() ? all : rows;
}
} // namespace

Result<CompareSide> loadCompareSide(SessionStore &store, const std::string &spec, double warmupS)
{
    std::int64_t id = 0;
    int seg = 0;
    if (!parseSpec(spec, id, seg))
        return Status::refused("\"" + spec +
                               "\" is not a session (ID) or a segment (ID:SEG), e.g. 3 or 3:2");
    SessionInfo s;
    if (!store.get(id, s))
        return Status::refused("no session " + std::to_string(id) + " in " + store.file().string());
    if (seg > 0) {
        const SampleTable tab = store.samples(id);
        const auto segs = segmentsOf(tab, store.changes(id), warmupS);
        if (seg > static_cast<int>(segs.size()))
            return Status::refused("session " + std::to_string(id) + " has " +
                                   std::to_string(segs.size()) + " segment(s), not " +
                                   std::to_string(seg));
        CompareSide out;
        collect(tab, segs[static_cast<std::size_t>(seg - 1)].rows, out);
        out.label = "session " + std::to_string(id) + " segment " + std::to_string(seg);
        out.sessions = {id};
        return out;
    }
    std::vector<std::int64_t> members;
    if (!s.runGroup.empty())
        for (const auto &other : store.list())
            if (other.runGroup == s.runGroup && other.status == "completed")
                members.push_back(other.id);
    if (members.size() < 2) members = {id};
    return compareSideOf(store, members, warmupS);
}

CompareSide compareSideOf(SessionStore &store, const std::vector<std::int64_t> &sessions,
                          double warmupS)
{
    CompareSide out;
    out.sessions = sessions;
    if (sessions.size() == 1) {
        const SampleTable tab = store.samples(sessions[0]);
        collect(tab, allRows(tab, warmupS), out);
        out.label = "session " + std::to_string(sessions[0]);
        return out;
    }
    // Repeats: one value per repeat, its mean after the warm-up.
    out.repeats = true;
    out.label = "group of " + std::to_string(sessions.size()) + " repeats (sessions";
    for (auto m : sessions) {
        out.label += " " + std::to_string(m);
        const SampleTable tab = store.samples(m);
        CompareSide one;
        collect(tab, allRows(tab, warmupS), one);
        for (const auto &[label, v] : one.values) {
            if (v.empty()) continue;
            double sum = 0;
            for (double x : v)
                sum += x;
            out.values[label].push_back(sum / static_cast<double>(v.size()));
            out.units[label] = one.units[label];
        }
    }
    out.label += ")";
    return out;
}

std::vector<CompareRow> compareSides(const CompareSide &a, const CompareSide &b,
                                     const std::vector<std::string> &metrics,
                                     std::vector<std::string> &missing)
{
    std::vector<std::string> names = metrics;
    if (names.empty())
        for (const auto &[label, v] : a.values)
            if (b.values.count(label) && !v.empty()) names.push_back(label);
    std::vector<CompareRow> rows;
    for (const auto &name : names) {
        const auto ia = a.values.find(name), ib = b.values.find(name);
        if (ia == a.values.end() || ib == b.values.end() || ia->second.empty() ||
            ib->second.empty()) {
            missing.push_back(name);
            continue;
        }
        CompareRow r;
        r.metric = name;
        r.unit = a.units.count(name) ? a.units.at(name) : "";
        r.a = estimate(ia->second, a.repeats ? 1 : kSamplesPerBatch);
        r.b = estimate(ib->second, b.repeats ? 1 : kSamplesPerBatch);
        r.diff = compareEstimates(r.a, r.b);
        r.better = betterDirection(name.substr(0, name.find('[')));
        char buf[160];
        if (!hasInterval(r.a) || !hasInterval(r.b)) {
            r.verdict = "too short to judge (no interval: fewer than 3 batches)";
        } else if (!r.diff.significant) {
            r.verdict = "no significant difference";
        } else {
            const char *dir = r.better > 0   ? " (higher is better)"
                              : r.better < 0 ? " (lower is better)"
                                             : "";
            const bool improved = r.better != 0 && ((r.diff.diff > 0) == (r.better > 0));
            std::snprintf(buf, sizeof buf, "%+.1f %%%s, significant%s", r.diff.pct, dir,
                          r.better == 0 ? ""
                          : improved    ? ": B is better"
                                        : ": B is worse");
            r.verdict = buf;
        }
        rows.push_back(r);
    }
    return rows;
}

namespace {
// The mean of a metric over a side's samples (the other processes' CPU, the engine's); NaN
// when not recorded.
double sideMean(const CompareSide &side, std::string_view metric)
{
    const auto it = side.values.find(std::string(metric));
    if (it == side.values.end() || it->second.empty()) return std::nan("");
    double sum = 0;
    for (const double v : it->second)
        sum += v;
    return sum / static_cast<double>(it->second.size());
}
} // namespace

std::vector<EnvironmentDifference> environmentCaveats(SessionStore &store, const CompareSide &a,
                                                      const CompareSide &b)
{
    if (a.sessions.empty() || b.sessions.empty()) return {};
    auto out = environmentDifferences(store.environment(a.sessions.front()),
                                      store.environment(b.sessions.front()));
    // The load measured during the runs, beside the load average taken at their start. When
    // other processes' CPU differs by more than the engine's own (or the engine's is not
    // recorded), that interference alone can explain a difference: it is the first caveat,
    // ahead of facts that only might (a placement, a governor).
    const double na = sideMean(a, kNeighbourMetric), nb = sideMean(b, kNeighbourMetric);
    if (std::isfinite(na) && std::isfinite(nb) && std::fabs(na - nb) > kLoadSpreadMsPerS) {
        char va[32], vb[32];
        std::snprintf(va, sizeof va, "%.0f ms/s", na);
        std::snprintf(vb, sizeof vb, "%.0f ms/s", nb);
        const double ea = sideMean(a, kEngineCpuMetric), eb = sideMean(b, kEngineCpuMetric);
        const bool explains =
            !std::isfinite(ea) || !std::isfinite(eb) || std::fabs(na - nb) > std::fabs(ea - eb);
        const auto at =
            explains ? out.begin() : std::find_if(out.begin(), out.end(), [](const auto &d) {
                return d.rank > FactRank::Load;
            });
        out.insert(at, {std::string(kNeighbourMetric), FactRank::Load, va, vb,
                        "other processes' CPU during the run (more than " +
                            std::to_string(static_cast<int>(kLoadSpreadMsPerS)) + " ms/s apart)"});
    }
    return out;
}

void addEnvironmentCaveat(std::vector<CompareRow> &rows,
                          const std::vector<EnvironmentDifference> &caveats)
{
    if (caveats.empty()) return;
    std::string note = "; but the environment differs (" + std::string(rankName(caveats[0].rank)) +
                       "): " + caveats[0].text();
    if (caveats.size() > 1) note += " and " + std::to_string(caveats.size() - 1) + " more";
    for (auto &r : rows)
        if (r.diff.significant && hasInterval(r.a) && hasInterval(r.b)) r.verdict += note;
}

namespace {
// The latency sampling a side was measured at (latency.sample_every): "every load frame",
// "1 load frame in 16", "1 load frame in 4 to 16" when it changed within the side. Sessions
// from before the sampling existed measured every frame.
std::string latencySampling(const CompareSide &side)
{
    const auto it = side.values.find(std::string(kLatencySampleEveryMetric));
    if (it == side.values.end() || it->second.empty()) return "every load frame";
    const auto [lo, hi] = std::minmax_element(it->second.begin(), it->second.end());
    const long long l = std::llround(*lo), h = std::llround(*hi);
    if (l == h) return l <= 1 ? "every load frame" : "1 load frame in " + std::to_string(l);
    return "1 load frame in " + std::to_string(l) + " to " + std::to_string(h);
}
} // namespace

std::vector<std::string> compareNotes(const CompareSide &a, const CompareSide &b)
{
    std::vector<std::string> notes;
    if (const std::string sa = latencySampling(a), sb = latencySampling(b); sa != sb)
        notes.push_back("latency was measured on " + sa + " in A and on " + sb +
                        " in B (latency.sample_every): the latency rows compare estimates of "
                        "unequal precision, a sampled side's tail resting on fewer frames");
    if (a.repeats != b.repeats)
        notes.push_back("one side is a group of repeats and the other a single run: their "
                        "intervals measure different noise (between runs, within a run)");
    if (!a.repeats && !b.repeats)
        notes.push_back("two single runs show the noise within each run, not between runs; for "
                        "a verdict that holds across runs, record both with --repeat N");
    return notes;
}

void orderForReading(std::vector<CompareRow> &rows)
{
    const auto &key = keyMetrics();
    auto rank = [&](const CompareRow &r) {
        const auto it = std::find(key.begin(), key.end(), r.metric);
        return static_cast<std::size_t>(it - key.begin());
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow &x, const CompareRow &y) {
        const auto rx = rank(x), ry = rank(y);
        return rx != ry ? rx < ry : x.metric < y.metric;
    });
}

std::vector<std::string> defaultCompareMetrics(const CompareSide &a, const CompareSide &b)
{
    // The metric table's (MetricView::compare), in their place.
    std::vector<std::string> metrics;
    for (const MetricDef *d : rankedMetrics(&MetricView::compare))
        if (!d->perThread()) metrics.push_back(d->name);
    // A family's: every engine thread present on both sides but the sampler, in the sides'
    // order (CPU and wakeups of a thread side by side).
    for (const auto &[label, v] : a.values) {
        const std::size_t open = label.find('[');
        if (open == std::string::npos || !b.values.count(label) ||
            label.find("sampler") != std::string::npos)
            continue;
        const MetricDef *d = findMetric(std::string_view(label).substr(0, open));
        if (d && d->perThread() && d->view.compare > 0) metrics.push_back(label);
    }
    // The device's own rates both sides have (the kernel device's NAPI, softirq and netdev
    // figures, who drove each poll), after the engine's.
    for (const auto &[label, v] : a.values)
        if (b.values.count(label) && isDeviceRateFigure(label)) metrics.push_back(label);
    return metrics;
}

} // namespace ringlab
