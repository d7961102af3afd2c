// SPDX-License-Identifier: GPL-2.0-or-later
// The engine API's sessions (engine/run/run_api.h): the list, one session whole, its export
// and a comparison of two, read on a connection of their own (reader()) so that a long read
// never holds the run's lock.
#include <sstream>

#include "engine/metrics/sample_metrics.h"
#include "engine/run/api_fields.h"
#include "engine/run/run_api.h"
#include "engine/store/environment_json.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_report.h"

namespace ringlab {

using nlohmann::json;

namespace {

json sessionJson(const SessionInfo &s)
{
    return {{"id", s.id},
            {"uuid", s.uuid},
            {"name", s.name},
            {"status", s.status},
            {"created_at", s.createdAt},
            {"ended_at", s.endedAt},
            {"device", s.device},
            {"profile", s.profile},
            {"host", s.host.hostname},
            {"engine_version", s.engineVersion},
            {"interval_s", s.intervalS},
            {"run_group", s.runGroup},
            {"repeat_index", s.repeatIndex},
            {"duration_s", s.durationS},
            {"samples", s.sampleCount},
            {"mean_rx_pps", s.meanRxPps}};
}

json estimateJson(const Estimate &e)
{
    return {{"n", e.n},
            {"mean", e.mean},
            {"median", e.median},
            {"ci_half", e.ciHalf},
            {"batches", e.batches}};
}

} // namespace

ApiReply RunApi::sessionPath(const ApiRequest &r)
{
    std::string id;
    bool exporting = false;
    if (!idPath(r.path, "/v1/sessions/", "/export", id, exporting))
        return ApiReply::error(404, "no such endpoint: " + r.path + " (see docs/api.md)");
    if (r.method != "GET" && r.method != "HEAD")
        return ApiReply::error(405, r.method + " " + r.path + ": use GET");
    std::int64_t n = 0;
    if (!positiveId(id, n))
        return ApiReply::error(400,
                               "session \"" + id + "\" is not a session id (a positive integer)");
    return exporting ? exportSession(n, r) : session(n);
}

ApiReply RunApi::sessions()
{
    json arr = json::array();
    for (const auto &s : reader()->list())
        arr.push_back(sessionJson(s));
    return {200, arr, {}, {}};
}

ApiReply RunApi::session(std::int64_t id)
{
    auto store = reader();
    SessionInfo s;
    if (!store->get(id, s)) return ApiReply::error(404, "no session " + std::to_string(id));
    json j = sessionJson(s);
    j["environment"] = environmentJson(store->environment(id));
    json params = json::object();
    for (const auto &[k, v] : store->params(id))
        params[k] = v;
    j["params"] = params;
    json changes = json::array();
    const auto changeRows = store->changes(id);
    for (const auto &c : changeRows)
        changes.push_back({{"t", c.t},
                           {"tunable", c.tunable},
                           {"old", c.oldValue},
                           {"new", c.newValue},
                           {"source", c.source}});
    j["changes"] = changes;
    json events = json::array();
    for (const auto &e : store->events(id))
        events.push_back(
            {{"t", e.t}, {"kind", e.kind}, {"message", e.message}, {"source", e.source}});
    j["events"] = events;
    const SampleTable tab = store->samples(id);
    json segments = json::array();
    for (const auto &seg : segmentsOf(tab, changeRows, kWarmupS)) {
        json summary = json::object();
        for (const auto &metric : keyMetrics()) {
            const auto open = metric.find('[');
            const std::string name = metric.substr(0, open);
            const std::string thread =
                open == std::string::npos ? "" : metric.substr(open + 1, metric.size() - open - 2);
            if (tab.column(name, thread) >= 0)
                summary[metric] = estimateJson(estimateOf(tab, seg.rows, name, thread));
        }
        segments.push_back({{"index", seg.index},
                            {"start", seg.start},
                            {"end", seg.end},
                            {"opened", seg.opened},
                            {"samples", seg.rows.size()},
                            {"summary", summary}});
    }
    j["segments"] = segments;
    return {200, j, {}, {}};
}

ApiReply RunApi::exportSession(std::int64_t id, const ApiRequest &r)
{
    const std::string format = queryValue(r.query, "format", "csv");
    const ExportFormat *f = findExportFormat(format);
    if (!f) return ApiReply::error(400, "format \"" + format + "\": use " + exportFormatNames());
    auto store = reader();
    SessionInfo s;
    if (!store->get(id, s)) return ApiReply::error(404, "no session " + std::to_string(id));
    std::ostringstream out;
    if (auto st = writeExport(*store, id, format, out); !st.ok())
        return ApiReply::error(400, st.error);
    return {200, {}, out.str(), std::string(f->contentType)};
}

ApiReply RunApi::compare(const ApiRequest &r)
{
    const std::string specA = queryValue(r.query, "a", ""), specB = queryValue(r.query, "b", "");
    if (specA.empty() || specB.empty())
        return ApiReply::error(400, "compare: give a=ID[:SEGMENT] and b=ID[:SEGMENT]");
    auto store = reader();
    auto sideA = loadCompareSide(*store, specA, kWarmupS);
    auto sideB = sideA.ok() ? loadCompareSide(*store, specB, kWarmupS) : sideA;
    if (!sideB.ok()) return ApiReply::error(404, "compare: " + sideB.error());
    const CompareSide a = std::move(sideA).value(), b = std::move(sideB).value();
    if (a.label == b.label)
        return ApiReply::error(400, "compare: A and B are the same (" + a.label + ")");
    std::vector<std::string> metrics;
    for (auto [it, end] = r.query.equal_range("metric"); it != end; ++it)
        metrics.push_back(it->second);
    const bool named = !metrics.empty();
    if (!named) metrics = defaultCompareMetrics(a, b);
    std::vector<std::string> missing;
    auto rows = compareSides(a, b, metrics, missing);
    const auto caveats = environmentCaveats(*store, a, b);
    addEnvironmentCaveat(rows, caveats);
    if (named && !missing.empty())
        return ApiReply::error(404, "compare: metric \"" + missing.front() +
                                        "\" is not in both sides (the metrics are the columns "
                                        "of a CSV export, e.g. rx_pps, cpu_ms_per_s[poll])");
    orderForReading(rows);
    json out = json::array();
    for (const auto &row : rows)
        out.push_back({{"metric", row.metric},
                       {"unit", row.unit},
                       {"a", estimateJson(row.a)},
                       {"b", estimateJson(row.b)},
                       {"diff", row.diff.diff},
                       {"pct", row.diff.pct},
                       {"ci_half", row.diff.ciHalf},
                       {"significant", row.diff.significant},
                       {"better", row.better},
                       {"verdict", row.verdict}});
    json caveatsJson = json::array();
    for (const auto &c : caveats)
        caveatsJson.push_back({{"key", c.key},
                               {"rank", std::string(rankName(c.rank))},
                               {"a", c.a},
                               {"b", c.b},
                               {"text", c.text()}});
    return {200,
            {{"a", a.label},
             {"b", b.label},
             {"notes", compareNotes(a, b)},
             {"caveats", caveatsJson},
             {"rows", out},
             {"missing", missing}},
            {},
            {}};
}

} // namespace ringlab
