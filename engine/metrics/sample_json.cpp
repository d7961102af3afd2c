// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/metrics/sample_json.h"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "engine/common/utf8_text.h"
#include "engine/metrics/metric_table.h"

namespace ringlab {

using nlohmann::json;

const char *stageSpanName(std::size_t k)
{
    static constexpr const char *names[] = {"harvest", "handoff", "process", "tx_post", "tx_wire"};
    static_assert(std::size(names) == kStageSpans);
    return names[k];
}

namespace {
// Where a line holds a figure: "a.b.c" in nested objects, made as needed.
json &place(json &root, std::string_view path)
{
    json *at = &root;
    for (std::size_t from = 0;;) {
        const std::size_t dot = path.find('.', from);
        at = &(*at)[std::string(path.substr(from, dot - from))];
        if (dot == std::string_view::npos) return *at;
        from = dot + 1;
    }
}

// A figure in a line: a whole number when the metric is one, and a figure without a value
// left out when the metric says so, else 0.
void put(json &obj, const MetricDef &d, std::string_view path, std::optional<double> v)
{
    if (!v && d.optional) return;
    json &slot = place(obj, path);
    if (d.whole)
        slot = static_cast<std::uint64_t>(v.value_or(0));
    else
        slot = v.value_or(0);
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
    for (const MetricDef &d : metricTable())
        if (!d.line.empty() && !d.perThread()) put(j, d, d.line, d.read(s));
    json threads = json::array();
    for (const auto &t : s.threads) {
        json th = {{"name", t.name}, {"cpu_pct", t.cpuPct}};
        for (const MetricDef &d : metricTable())
            if (d.perThread()) put(th, d, d.line, d.readThread(t));
        threads.push_back(std::move(th));
    }
    j["cpu"]["threads"] = std::move(threads);
    // Kept for the readers of the first lines: percentages beside the ms/s figures, the
    // stages' sum, every counter's running total and what the device measures itself.
    j["cpu"]["process_pct"] = s.processCpuPct;
    double sum = 0;
    for (double v : s.stageUs)
        sum += v;
    j["stages_us"]["total"] = sum;
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
// The figure at a dotted path, or null.
const json *find(const json &root, std::string_view path)
{
    const json *at = &root;
    for (std::size_t from = 0;;) {
        const std::size_t dot = path.find('.', from);
        if (!at->is_object()) return nullptr;
        const auto it = at->find(std::string(path.substr(from, dot - from)));
        if (it == at->end()) return nullptr;
        at = &*it;
        if (dot == std::string_view::npos) return at;
        from = dot + 1;
    }
}

// A figure the line has that reads back as absent (a negative time, a negative CPU figure):
// absence is said by leaving a figure out, never by a value.
std::range_error notAValue(const MetricDef &d, double v, const std::string &thread = {})
{
    const std::string where = thread.empty() ? d.line : "cpu.threads[" + thread + "]." + d.line;
    return std::range_error(where + ": " + std::to_string(v) +
                            (v < 0 ? " is negative" : " is not a value it can have"));
}

// Reads a figure of the table from `obj` (the line, or one thread's object); true when the
// line has it. A figure that must be there and is not throws, naming it.
bool figure(const json &obj, const MetricDef &d, double &out)
{
    const json *v = find(obj, d.line);
    if (!v) {
        if (d.optional) return false;
        throw std::range_error(d.line + " is missing");
    }
    try {
        if (!d.whole) {
            out = real(*v);
        } else if (d.kind == MetricKind::Count) {
            // Carried as a double by the table: exact up to 2^53, far above any interval's.
            const auto n = count<std::uint64_t>(*v);
            if (n > (std::uint64_t{1} << 53)) throw std::range_error("a count above 2^53");
            out = static_cast<double>(n);
        } else {
            out = count<std::uint32_t>(*v);
        }
    } catch (const std::range_error &e) {
        throw std::range_error(d.line + ": " + e.what());
    }
    return true;
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
    double v = 0;
    for (const MetricDef &d : metricTable())
        if (!d.line.empty() && !d.perThread() && figure(j, d, v)) {
            d.write(s, v);
            if (d.optional && !d.read(s)) throw notAValue(d, v);
        }
    s.processCpuPct = real(j.at("cpu").at("process_pct"));
    const json &totals = j.at("totals");
    for (std::size_t k = 0; k < kCounterCount; ++k) {
        const std::string name(counterName(static_cast<CounterId>(k)));
        if (!totals.contains(name)) throw std::range_error("totals." + name + " is missing");
        s.total[k] = count<std::uint64_t>(totals.at(name));
    }
    if (j.contains("device")) {
        if (j.at("device").size() > kMaxLineItems)
            throw std::range_error("too many device figures");
        for (const auto &[name, value] : j.at("device").items())
            s.device.push_back({name, {}, real(value), false});
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
    const json &threads = j.at("cpu").at("threads");
    if (threads.size() > kMaxLineItems) throw std::range_error("too many threads");
    for (const json &th : threads) {
        ThreadStat t;
        t.name = th.at("name").get<std::string>();
        for (const MetricDef &d : metricTable())
            if (d.perThread() && figure(th, d, v)) {
                d.writeThread(t, v);
                if (d.optional && !d.readThread(t)) throw notAValue(d, v, t.name);
            }
        t.cpuPct = real(th.at("cpu_pct"));
        s.threads.push_back(std::move(t));
    }
}
} // namespace

Result<Sample> sampleFromJson(const json &j)
{
    try {
        Sample s;
        readSample(j, s);
        return s;
    } catch (const std::exception &e) { // json::exception, std::range_error
        return Status::refused(std::string("a sample line that is not one: ") + e.what());
    }
}

Result<Event> eventFromJson(const json &j)
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
        return e;
    } catch (const std::exception &e) {
        return Status::refused(std::string("an event line that is not one: ") + e.what());
    }
}

} // namespace ringlab
