// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/session_report.h"

#include "engine/store/environment_json.h"

#include <charconv>
#include <cmath>
#include <map>

#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_metrics.h"
#include <nlohmann/json.hpp>

#include "engine/common/utf8_text.h"

namespace ringlab {

std::vector<Segment> segmentsOf(const SampleTable &tab, const std::vector<ParamChangeRow> &changes,
                                double warmupS)
{
    std::vector<Segment> segs;
    const double end = tab.t.empty() ? 0 : tab.t.back();
    segs.push_back({1, 0.0, end, "start", {}});
    for (const auto &c : changes) {
        std::string what = c.tunable + " " + c.oldValue + " -> " + c.newValue;
        if (segs.size() > 1 && std::fabs(segs.back().start - c.t) < 1e-3) {
            segs.back().opened += ", " + what; // changed together
            continue;
        }
        segs.back().end = c.t;
        segs.push_back({static_cast<int>(segs.size()) + 1, c.t, end, what, {}});
    }
    for (auto &s : segs) {
        std::vector<std::size_t> all, settled;
        for (std::size_t r = 0; r < tab.t.size(); ++r) {
            const double from = tab.t[r] - tab.interval[r], to = tab.t[r];
            if (from >= s.start - 1e-9 && to <= s.end + 1e-9) {
                all.push_back(r);
                if (from >= s.start + warmupS - 1e-9) settled.push_back(r);
            }
        }
        s.rows = settled.empty() ? all : settled;
    }
    // A change at or after the last sample's start opened a setting nothing was measured
    // under: no row of zero length at the end (its marker on the charts says it happened).
    // Live, the row appears with the first sample measured wholly under the new setting.
    if (segs.size() > 1 && segs.back().rows.empty()) {
        segs.pop_back();
        segs.back().end = std::min(segs.back().end, end);
    }
    return segs;
}

Estimate estimateOf(const SampleTable &tab, const std::vector<std::size_t> &rows,
                    const std::string &name, const std::string &thread)
{
    const int col = tab.column(name, thread);
    if (col < 0) return {};
    std::vector<double> v;
    for (auto r : rows)
        v.push_back(tab.values[static_cast<std::size_t>(col)][r]);
    return estimate(v);
}

void SampleTableBuilder::add(const Sample &s)
{
    const std::size_t r = tab_.seq.size();
    tab_.seq.push_back(static_cast<std::int64_t>(s.seq));
    tab_.t.push_back(s.t);
    tab_.interval.push_back(s.interval);
    tab_.stall.push_back(s.stall);
    for (auto &col : tab_.values)
        col.push_back(std::nan(""));
    for (const auto &m : flattenSample(s)) {
        const std::string key = m.name + '\t' + m.thread;
        auto it = index_.find(key);
        if (it == index_.end()) {
            it = index_.emplace(key, tab_.metrics.size()).first;
            tab_.metrics.push_back({m.name, m.unit, m.thread});
            tab_.values.emplace_back(r + 1, std::nan(""));
        }
        tab_.values[it->second][r] = m.value;
    }
}

void SampleTableBuilder::clear()
{
    tab_ = {};
    index_.clear();
}

SampleTable tableFromSamples(const std::vector<std::shared_ptr<const Sample>> &samples)
{
    SampleTableBuilder b;
    for (const auto &s : samples)
        b.add(*s);
    return b.table();
}

std::vector<std::shared_ptr<const Sample>> samplesFromTable(const SampleTable &tab)
{
    return samplesFromTable(tab, 0, tab.seq.size());
}

std::vector<std::shared_ptr<const Sample>> samplesFromTable(const SampleTable &tab,
                                                            std::size_t from, std::size_t to)
{
    std::vector<std::shared_ptr<const Sample>> out;
    to = std::min(to, tab.seq.size());
    out.reserve(to > from ? to - from : 0);
    std::vector<const MetricDef *> defs;
    for (const MetricKey &m : tab.metrics)
        defs.push_back(findMetric(m.name));
    for (std::size_t r = from; r < to; ++r) {
        auto s = std::make_shared<Sample>();
        s->seq = static_cast<std::uint64_t>(tab.seq[r]);
        s->t = tab.t[r];
        s->interval = tab.interval[r];
        if (r < tab.stall.size()) s->stall = tab.stall[r];
        for (std::size_t c = 0; c < tab.metrics.size(); ++c)
            if (std::isfinite(tab.values[c][r]))
                setSampleMetric(*s, defs[c], tab.metrics[c].name, tab.metrics[c].thread,
                                tab.values[c][r]);
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<ParamChangeRow> changesFromEvents(const std::vector<Event> &events)
{
    std::vector<ParamChangeRow> out;
    for (const auto &e : events)
        if (e.kind == "param") out.push_back({e.t, e.tunable, e.before, e.after, e.source});
    return out;
}

std::string csvCell(const std::string &text)
{
    std::string s = text;
    if (!s.empty() &&
        (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r'))
        s = "'" + s;
    if (s.find_first_of(",\"\n\r") != std::string::npos) {
        std::string q = "\"";
        for (char c : s)
            q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    }
    return s;
}

std::string csvNumber(double v)
{
    if (!std::isfinite(v)) return {};
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, p) : std::string();
}

void exportCsv(SessionStore &store, std::int64_t session, std::ostream &out)
{
    const SampleTable tab = store.samples(session);
    // Which setting each row measured: the segment it lies in (as `show` and the desktop
    // number them), empty for a sample that straddles a change and so belongs to neither.
    std::vector<int> segmentOfRow(tab.seq.size(), 0);
    for (const Segment &seg : segmentsOf(tab, store.changes(session), 0))
        for (std::size_t r : seg.rows)
            segmentOfRow[r] = seg.index;
    out << "seq,t,interval,segment,stall";
    for (const auto &m : tab.metrics)
        out << ',' << csvCell(m.label());
    out << '\n';
    for (std::size_t r = 0; r < tab.seq.size(); ++r) {
        out << tab.seq[r] << ',' << csvNumber(tab.t[r]) << ',' << csvNumber(tab.interval[r]) << ',';
        if (segmentOfRow[r]) out << segmentOfRow[r];
        out << ',' << (r < tab.stall.size() ? stallName(tab.stall[r]) : "");
        for (std::size_t c = 0; c < tab.metrics.size(); ++c)
            out << ',' << csvNumber(tab.values[c][r]);
        out << '\n';
    }
}

void exportJson(SessionStore &store, std::int64_t session, std::ostream &out)
{
    using nlohmann::json;
    // Names, labels and messages are stored as they were typed: escaped where not UTF-8.
    const auto t = [](const std::string &text) { return utf8OrEscaped(text); };
    SessionInfo s;
    if (!store.get(session, s)) return;
    json j;
    j["format"] = "ringlab-session";
    j["format_version"] = 1;
    j["session"] = {{"id", s.id},
                    {"uuid", t(s.uuid)},
                    {"name", t(s.name)},
                    {"created_at", t(s.createdAt)},
                    {"ended_at", t(s.endedAt)},
                    {"status", t(s.status)},
                    {"device", t(s.device)},
                    {"profile", t(s.profile)},
                    {"host",
                     {{"name", t(s.host.hostname)},
                      {"cpu", t(s.host.cpuModel)},
                      {"cores", s.host.cores},
                      {"kernel", t(s.host.kernel)}}},
                    {"engine_version", t(s.engineVersion)},
                    {"git_revision", t(s.gitRevision)},
                    {"interval_s", s.intervalS},
                    {"notes", t(s.notes)},
                    {"run_group", t(s.runGroup)},
                    {"repeat_index", s.repeatIndex}};
    j["environment"] = environmentJson(store.environment(session));
    json params = json::object();
    for (const auto &[k, v] : store.params(session))
        params[t(k)] = t(v);
    j["params"] = params;
    json changes = json::array();
    for (const auto &c : store.changes(session))
        changes.push_back({{"t", c.t},
                           {"tunable", t(c.tunable)},
                           {"old", t(c.oldValue)},
                           {"new", t(c.newValue)},
                           {"source", t(c.source)}});
    j["param_changes"] = changes;
    json events = json::array();
    for (const auto &e : store.events(session))
        events.push_back(
            {{"t", e.t}, {"kind", t(e.kind)}, {"message", t(e.message)}, {"source", t(e.source)}});
    j["events"] = events;
    const SampleTable tab = store.samples(session);
    json metrics = json::array();
    for (const auto &m : tab.metrics)
        metrics.push_back({{"name", t(m.name)}, {"unit", t(m.unit)}, {"thread", t(m.thread)}});
    j["metrics"] = metrics;
    json samples = json::array();
    for (std::size_t r = 0; r < tab.seq.size(); ++r) {
        json values = json::object();
        for (std::size_t c = 0; c < tab.metrics.size(); ++c)
            if (std::isfinite(tab.values[c][r]))
                values[t(tab.metrics[c].label())] = tab.values[c][r];
        samples.push_back({{"seq", tab.seq[r]},
                           {"t", tab.t[r]},
                           {"interval", tab.interval[r]},
                           {"stall", r < tab.stall.size() ? stallName(tab.stall[r]) : ""},
                           {"values", values}});
    }
    j["samples"] = samples;
    out << j.dump(1, ' ', false, json::error_handler_t::replace) << '\n';
}

const ExportFormat *findExportFormat(std::string_view name)
{
    for (const auto &f : kExportFormats)
        if (f.name == name) return &f;
    return nullptr;
}

std::string exportFormatNames()
{
    std::string out;
    for (std::size_t i = 0; i < kExportFormats.size(); ++i)
        out += std::string(i == 0                           ? ""
                           : i + 1 == kExportFormats.size() ? " or "
                                                            : ", ") +
               std::string(kExportFormats[i].name);
    return out;
}

Status writeExport(SessionStore &store, std::int64_t session, std::string_view format,
                   std::ostream &out)
{
    if (format == "csv")
        exportCsv(store, session, out);
    else if (format == "json")
        exportJson(store, session, out);
    else if (format == "sqlite")
        out << store.exportSession(session);
    else if (format == "environment")
        environmentCsv(store.environment(session), out);
    else
        return Status::failure("export format \"" + std::string(format) + "\": use " +
                               exportFormatNames());
    return Status::success();
}

} // namespace ringlab
