// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/store/sweep_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/common/host_info.h"
#include "engine/store/session_compare.h"

namespace ringlab {
namespace {

constexpr std::string_view kGroupPrefix = "sweep ";
constexpr std::string_view kPointWord = " point ";

bool parseGroup(const std::string &group, std::string &id, int &point)
{
    if (!group.starts_with(kGroupPrefix)) return false;
    const auto at = group.rfind(kPointWord);
    if (at == std::string::npos || at < kGroupPrefix.size()) return false;
    id = group.substr(kGroupPrefix.size(), at - kGroupPrefix.size());
    const std::string k = group.substr(at + kPointWord.size());
    if (k.empty() || k.size() > 6 || !std::all_of(k.begin(), k.end(), ::isdigit)) return false;
    point = std::stoi(k);
    return point > 0 && !id.empty();
}

// The description in a session's sweep event.
Status readDescription(SessionStore &store, std::int64_t session, SweepRecord &out)
{
    const std::string which = "session " + std::to_string(session);
    for (const auto &e : store.events(session)) {
        if (e.kind != kSweepEventKind) continue;
        const auto j = nlohmann::json::parse(e.message, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("spec") || !j.contains("points"))
            return Status::refused(which + ": its sweep event is not JSON");
        auto spec = sweepSpecFromJson(j["spec"]);
        if (!spec.ok()) return spec.status().within(which + ": ");
        out.spec = std::move(spec).value();
        out.points.clear();
        try {
            int k = 0;
            for (const auto &p : j.at("points")) {
                SweepPoint pt;
                pt.index = ++k;
                for (const auto &nv : p)
                    pt.values.emplace_back(nv.at(0).get<std::string>(),
                                           nv.at(1).get<std::string>());
                out.points.push_back(std::move(pt));
            }
        } catch (const nlohmann::json::exception &ex) {
            return Status::refused(which + ": sweep points: " + ex.what());
        }
        return Status::success();
    }
    return Status::refused(which + " has no sweep event");
}

std::vector<SweepRecord> collectSweeps(SessionStore &store, const std::string *only)
{
    std::vector<SweepRecord> out;
    for (const auto &s : store.list()) {
        std::string id;
        int point = 0;
        if (!parseGroup(s.runGroup, id, point) || (only && id != *only)) continue;
        auto it = std::find_if(out.begin(), out.end(), [&](auto &r) { return r.id == id; });
        if (it == out.end()) {
            SweepRecord r;
            r.id = id;
            r.createdAt = s.createdAt;
            if (!readDescription(store, s.id, r).ok()) continue; // try its next session
            out.push_back(std::move(r));
            it = out.end() - 1;
        }
        it->runs.push_back({point, s.repeatIndex, s.id, s.status});
    }
    return out;
}

} // namespace

int SweepRecord::completedRuns() const
{
    int n = 0;
    for (const auto &r : runs)
        n += r.status == "completed";
    return n;
}

bool SweepRecord::completed(int point, int repeat) const
{
    return std::any_of(runs.begin(), runs.end(), [&](const SweepRun &r) {
        return r.point == point && r.repeat == repeat && r.status == "completed";
    });
}

std::string sweepGroup(const std::string &id, int point)
{
    return std::string(kGroupPrefix) + id + std::string(kPointWord) + std::to_string(point);
}

Event sweepEvent(const std::string &id, const SweepSpec &spec,
                 const std::vector<SweepPoint> &points, int point)
{
    nlohmann::json j;
    j["sweep"] = id;
    j["point"] = point;
    j["spec"] = sweepSpecToJson(spec);
    j["points"] = nlohmann::json::array();
    for (const auto &p : points) {
        nlohmann::json values = nlohmann::json::array();
        for (const auto &[n, v] : p.values)
            values.push_back({n, v});
        j["points"].push_back(values);
    }
    Event e;
    e.kind = kSweepEventKind;
    e.source = "sweep";
    e.message = j.dump();
    return e;
}

std::string newSweepId(SessionStore &store)
{
    // isoTimeNow(): 2026-12-01T04:35:12Z
    const std::string iso = isoTimeNow();
    std::string base;
    for (char c : iso.substr(0, 19))
        if (std::isdigit(static_cast<unsigned char>(c))) base += c;
    if (base.size() == 14) base.insert(8, "-");
    std::string id = base;
    const auto sweeps = listSweeps(store);
    for (int k = 2; std::any_of(sweeps.begin(), sweeps.end(), [&](auto &r) { return r.id == id; });
         ++k)
        id = base + "-" + std::to_string(k);
    return id;
}

std::vector<SweepRecord> listSweeps(SessionStore &store)
{
    return collectSweeps(store, nullptr);
}

Result<SweepRecord> loadSweep(SessionStore &store, const std::string &id)
{
    auto found = collectSweeps(store, &id);
    if (found.empty())
        return Status::refused("no sweep \"" + id + "\" in " + store.file().string() +
                               " (see 'ringlab-engine sweep --list')");
    return std::move(found.front());
}

std::vector<PointResult> sweepResults(SessionStore &store, const SweepRecord &sweep)
{
    std::vector<PointResult> out;
    for (const auto &p : sweep.points) {
        PointResult r;
        r.point = p;
        for (const auto &run : sweep.runs)
            if (run.point == p.index && run.status == "completed")
                r.sessions.push_back(run.session);
        if (!r.sessions.empty()) {
            const CompareSide side = compareSideOf(store, r.sessions, sweep.spec.warmupS);
            for (const auto &[label, values] : side.values)
                if (!values.empty())
                    r.metrics[label] = estimate(values, side.repeats ? 1 : kSamplesPerBatch);
            r.units = side.units;
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::string metricLabel(const std::string &userName)
{
    std::string s = userName;
    const auto bracket = s.find('[');
    std::replace(s.begin(), bracket == std::string::npos ? s.end() : s.begin() + bracket, '.', '_');
    return s;
}

} // namespace ringlab
