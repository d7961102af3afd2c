// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/profile/sweep_spec.h"

#include <cstdio>

#include <muParser.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

namespace ringlab {
namespace {

constexpr int kMaxPoints = 10000;

Status splitAssignment(std::string_view text, std::string_view what, std::string &name,
                       std::string_view &rest)
{
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
        return Status{std::string(what) + " \"" + std::string(text) +
                      "\" is not NAME=VALUES (e.g. poll.sleep_min_us=5,20,100)"};
    name = std::string(text.substr(0, eq));
    rest = text.substr(eq + 1);
    return Status::success();
}

std::vector<std::string_view> splitList(std::string_view text)
{
    std::vector<std::string_view> out;
    std::size_t pos = 0;
    while (true) {
        const auto comma = text.find(',', pos);
        out.push_back(text.substr(pos, comma - pos));
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    return out;
}

bool parseDouble(std::string_view text, double &out)
{
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && p == text.data() + text.size() && std::isfinite(out);
}

// The values of a list, each parsed by the registry and kept in its own format.
Status listValues(const TunableInfo &t, std::string_view list, SweepAxis &out)
{
    for (std::string_view item : splitList(list)) {
        Value v;
        if (auto st = ParamSet::parse(t, item, v); !st.ok()) return st;
        const std::string text = ParamSet::format(t, v);
        if (std::find(out.values.begin(), out.values.end(), text) == out.values.end())
            out.values.push_back(text);
    }
    return Status::success();
}

// A muparser that knows every numeric tunable by name, bound to `vars`.
std::unique_ptr<mu::Parser> tieParser(std::vector<double> &vars)
{
    auto p = std::make_unique<mu::Parser>();
    p->DefineNameChars("0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.");
    vars.assign(kParamCount, 0.0);
    for (const auto &t : tunables())
        if (t.type == Type::Integer || t.type == Type::Real)
            p->DefineVar(std::string(t.name), &vars[static_cast<std::size_t>(t.id)]);
    return p;
}

} // namespace

std::string SweepPoint::text() const
{
    std::string out;
    for (const auto &[name, value] : values)
        out += (out.empty() ? "" : " ") + name + "=" + value;
    return out;
}

Status parseVaryAxis(std::string_view text, SweepAxis &out)
{
    std::string name;
    std::string_view rest;
    if (auto st = splitAssignment(text, "--vary", name, rest); !st.ok()) return st;
    const TunableInfo *t = findTunable(name);
    if (!t) return unknownTunable(name);
    out = SweepAxis{name, {}};
    return listValues(*t, rest, out);
}

Status parseGridAxis(std::string_view text, SweepAxis &out)
{
    std::string name;
    std::string_view rest;
    if (auto st = splitAssignment(text, "--grid", name, rest); !st.ok()) return st;
    const TunableInfo *t = findTunable(name);
    if (!t) return unknownTunable(name);
    out = SweepAxis{name, {}};
    const auto dots = rest.find("..");
    if (dots == std::string_view::npos) return listValues(*t, rest, out);

    const std::string form = "\"" + std::string(text) + "\"";
    if (t->type != Type::Integer && t->type != Type::Real)
        return Status{name + ": a range " + form +
                      " needs a numeric tunable; list the values "
                      "instead (allowed: " +
                      allowedText(*t) + ")"};
    std::vector<std::string_view> parts;
    std::string_view tail = rest.substr(dots + 2);
    std::size_t pos = 0;
    while (true) {
        const auto colon = tail.find(':', pos);
        parts.push_back(tail.substr(pos, colon - pos));
        if (colon == std::string_view::npos) break;
        pos = colon + 1;
    }
    double a = 0, b = 0;
    if (!parseDouble(rest.substr(0, dots), a) || !parseDouble(parts[0], b))
        return Status{name + ": " + form + " is not a range A..B[:lin|:log][:N]"};
    bool log = false;
    int n = 5;
    for (std::size_t k = 1; k < parts.size(); ++k) {
        if (parts[k] == "log")
            log = true;
        else if (parts[k] == "lin")
            log = false;
        else if (double d = 0;
                 parseDouble(parts[k], d) && d == std::floor(d) && d >= 2 && d <= 1000)
            n = static_cast<int>(d);
        else
            return Status{name + ": " + form + ": \"" + std::string(parts[k]) +
                          "\" is neither lin, log nor a number of points (2..1000)"};
    }
    if (a >= b) return Status{name + ": range " + form + " must run from low to high"};
    if (a < t->min || b > t->max)
        return Status{name + ": range " + form +
                      " leaves the registry's (allowed: " + allowedText(*t) + ")"};
    if (log && a <= 0) return Status{name + ": a log range " + form + " must start above 0"};
    for (int k = 0; k < n; ++k) {
        const double f = static_cast<double>(k) / (n - 1);
        double v = log ? a * std::pow(b / a, f) : a + (b - a) * f;
        if (t->type == Type::Integer) v = std::round(v);
        char buf[64];
        std::snprintf(buf, sizeof buf, t->type == Type::Integer ? "%.0f" : "%.6g", v);
        if (auto st = listValues(*t, buf, out); !st.ok()) return st;
    }
    return Status::success();
}

Status parseTie(std::string_view text, SweepTie &out)
{
    std::string name;
    std::string_view rest;
    if (auto st = splitAssignment(text, "--tie", name, rest); !st.ok()) return st;
    const TunableInfo *t = findTunable(name);
    if (!t) return unknownTunable(name);
    if (t->type != Type::Integer && t->type != Type::Real)
        return Status{name + ": a tie computes a number; " + name + " is a " +
                      std::string(typeName(t->type)) + " (allowed: " + allowedText(*t) + ")"};
    // An expression is ASCII (names, numbers, operators): a byte outside it is refused here,
    // not carried into the stored description (where JSON wants UTF-8).
    for (std::size_t k = 0; k < rest.size(); ++k) {
        const auto c = static_cast<unsigned char>(rest[k]);
        if (c < 0x20 || c > 0x7e) {
            char buf[96];
            std::snprintf(buf, sizeof buf,
                          ": byte 0x%02x at %zu is not allowed in a tie (allowed: printable ASCII)",
                          c, k + 1);
            return Status{"--tie " + name + buf};
        }
    }
    SweepTie tie{name, std::string(rest)};
    double v = 0;
    if (auto st = evaluateTie(tie, numericValues(ParamSet{}), v); !st.ok()) return st;
    const auto inputs = tieInputs(tie);
    if (std::find(inputs.begin(), inputs.end(), name) != inputs.end())
        return Status{"--tie " + name + "=" + tie.expression + " reads " + name +
                      " itself: a tie computes a tunable from other tunables"};
    out = std::move(tie);
    return Status::success();
}

std::vector<std::string> tieInputs(const SweepTie &tie)
{
    std::vector<double> vars;
    std::vector<std::string> out;
    try {
        auto p = tieParser(vars);
        p->SetExpr(tie.expression);
        for (const auto &[name, where] : p->GetUsedVar())
            out.push_back(name);
    } catch (const mu::Parser::exception_type &) {
        // A malformed expression reads nothing; evaluateTie says what is wrong with it.
    }
    return out;
}

Status orderTies(std::vector<SweepTie> &ties)
{
    const auto tiedAt = [&](const std::string &name) {
        for (std::size_t k = 0; k < ties.size(); ++k)
            if (ties[k].tunable == name) return k;
        return ties.size();
    };
    for (std::size_t k = 0; k < ties.size(); ++k) {
        if (tiedAt(ties[k].tunable) != k) return Status{ties[k].tunable + " is tied twice"};
        const auto inputs = tieInputs(ties[k]);
        if (std::find(inputs.begin(), inputs.end(), ties[k].tunable) != inputs.end())
            return Status{"--tie " + ties[k].tunable + "=" + ties[k].expression + " reads " +
                          ties[k].tunable +
                          " itself: a tie computes a tunable from other tunables"};
    }
    // Depth first: each tie after the ties it reads; a tie met again while its own inputs
    // are being placed closes a cycle.
    enum class Mark { None, Open, Done };
    std::vector<Mark> mark(ties.size(), Mark::None);
    std::vector<std::size_t> path;
    std::vector<SweepTie> ordered;
    std::string cycle;
    std::function<bool(std::size_t)> place = [&](std::size_t k) {
        if (mark[k] == Mark::Done) return true;
        if (mark[k] == Mark::Open) {
            auto from = std::find(path.begin(), path.end(), k);
            for (auto it = from; it != path.end(); ++it)
                cycle += ties[*it].tunable + " -> ";
            cycle += ties[k].tunable;
            return false;
        }
        mark[k] = Mark::Open;
        path.push_back(k);
        for (const auto &input : tieInputs(ties[k]))
            if (const auto j = tiedAt(input); j < ties.size() && !place(j)) return false;
        path.pop_back();
        mark[k] = Mark::Done;
        ordered.push_back(ties[k]);
        return true;
    };
    for (std::size_t k = 0; k < ties.size(); ++k)
        if (!place(k)) return Status{"ties form a cycle: " + cycle};
    ties = std::move(ordered);
    return Status::success();
}

std::vector<double> numericValues(const ParamSet &values)
{
    std::vector<double> out(kParamCount, 0.0);
    for (const auto &t : tunables())
        out[static_cast<std::size_t>(t.id)] =
            t.type == Type::Real ? values.real(t.id) : static_cast<double>(values.integer(t.id));
    return out;
}

Status evaluateTie(const SweepTie &tie, const std::vector<double> &values, double &out)
{
    std::vector<double> vars;
    try {
        auto p = tieParser(vars);
        std::copy_n(values.begin(), std::min(values.size(), vars.size()), vars.begin());
        p->SetExpr(tie.expression);
        out = p->Eval();
    } catch (const mu::Parser::exception_type &e) {
        return Status{"--tie " + tie.tunable + "=" + tie.expression + ": " + e.GetMsg() +
                      " (an expression over numeric tunables, e.g. 2*poll.sleep_min_us)"};
    }
    if (!std::isfinite(out))
        return Status{"--tie " + tie.tunable + "=" + tie.expression + " gives " +
                      std::to_string(out) + ", not a number"};
    return Status::success();
}

Status expandPoints(const SweepSpec &spec, const ParamSet &base, std::vector<SweepPoint> &result)
{
    result.clear();
    std::vector<SweepPoint> out;
    if (spec.axes.empty()) return Status{"nothing to sweep: give --vary or --grid"};
    std::size_t total = 1;
    for (const auto &axis : spec.axes) {
        if (axis.values.empty()) return Status{axis.tunable + ": no values to sweep"};
        total *= axis.values.size();
        if (total > kMaxPoints)
            return Status{"the grid has more than " + std::to_string(kMaxPoints) +
                          " points; sweep fewer values"};
    }
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
        for (std::size_t b = a + 1; b < spec.axes.size(); ++b)
            if (spec.axes[a].tunable == spec.axes[b].tunable)
                return Status{spec.axes[a].tunable + " is swept twice"};
    for (const auto &tie : spec.ties)
        for (const auto &axis : spec.axes)
            if (tie.tunable == axis.tunable) return Status{tie.tunable + " is both swept and tied"};
    std::vector<SweepTie> ties = spec.ties;
    if (auto st = orderTies(ties); !st.ok()) return st;

    std::vector<std::size_t> at(spec.axes.size(), 0);
    for (std::size_t k = 0; k < total; ++k) {
        SweepPoint pt;
        pt.index = static_cast<int>(k) + 1;
        for (std::size_t a = 0; a < spec.axes.size(); ++a)
            pt.values.emplace_back(spec.axes[a].tunable, spec.axes[a].values[at[a]]);
        // Ties see the point's axes on top of the base, and the ties before them. The
        // cross-field rules are checked once, on the whole point.
        std::vector<double> partial = numericValues(base);
        auto put = [&](const TunableInfo &t, Value v) {
            partial[static_cast<std::size_t>(t.id)] =
                t.type == Type::Real ? v.r : static_cast<double>(v.i);
        };
        for (const auto &[name, value] : pt.values) {
            Value v;
            if (auto st = ParamSet::parse(*findTunable(name), value, v); !st.ok()) return st;
            put(*findTunable(name), v);
        }
        for (const auto &tie : ties) {
            double x = 0;
            if (auto st = evaluateTie(tie, partial, x); !st.ok()) return st;
            const TunableInfo &t = *findTunable(tie.tunable);
            char buf[64];
            std::snprintf(buf, sizeof buf, t.type == Type::Integer ? "%.0f" : "%.6g",
                          t.type == Type::Integer ? std::round(x) : x);
            pt.values.emplace_back(tie.tunable, buf);
            Value v;
            if (auto st = ParamSet::parse(t, buf, v); !st.ok())
                return Status{"point " + std::to_string(pt.index) + " (" + pt.text() +
                              "): the tie " + tie.tunable + "=" + tie.expression + " gives " +
                              st.error};
            put(t, v);
        }
        ParamSet check = base;
        if (auto st = check.set(pt.values); !st.ok())
            return Status{"point " + std::to_string(pt.index) + " (" + pt.text() +
                          "): " + st.error};
        out.push_back(std::move(pt));
        for (std::size_t a = spec.axes.size(); a-- > 0;) {
            if (++at[a] < spec.axes[a].values.size()) break;
            at[a] = 0;
        }
    }
    result = std::move(out);
    return Status::success();
}

nlohmann::json sweepSpecToJson(const SweepSpec &spec)
{
    nlohmann::json j;
    j["version"] = 1;
    j["profile"] = spec.profile;
    j["sets"] = nlohmann::json::array();
    for (const auto &[n, v] : spec.sets)
        j["sets"].push_back({n, v});
    j["axes"] = nlohmann::json::array();
    for (const auto &a : spec.axes)
        j["axes"].push_back({{"tunable", a.tunable}, {"values", a.values}});
    j["ties"] = nlohmann::json::array();
    for (const auto &t : spec.ties)
        j["ties"].push_back({{"tunable", t.tunable}, {"expression", t.expression}});
    j["repeat"] = spec.repeat;
    j["duration_s"] = static_cast<double>(spec.durationNs) / 1e9;
    j["warmup_s"] = spec.warmupS;
    j["device"] = spec.device;
    j["traffic"] = spec.traffic;
    return j;
}

Result<SweepSpec> sweepSpecFromJson(const nlohmann::json &j)
{
    try {
        if (!j.is_object() || j.value("version", 0) != 1)
            return Status::refused("not a sweep description of version 1");
        SweepSpec s;
        s.profile = j.at("profile").get<std::string>();
        for (const auto &p : j.at("sets"))
            s.sets.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
        for (const auto &a : j.at("axes"))
            s.axes.push_back({a.at("tunable").get<std::string>(),
                              a.at("values").get<std::vector<std::string>>()});
        for (const auto &t : j.at("ties"))
            s.ties.push_back(
                {t.at("tunable").get<std::string>(), t.at("expression").get<std::string>()});
        s.repeat = j.at("repeat").get<int>();
        const double d = j.at("duration_s").get<double>();
        s.warmupS = j.at("warmup_s").get<double>();
        s.device = j.value("device", "");
        s.traffic = j.value("traffic", "");
        if (s.repeat < 1 || s.repeat > 1000 || !(d >= 0.001 && d < 1e6) ||
            !(s.warmupS >= 0 && s.warmupS < d))
            return Status::refused("repeat, duration or warm-up out of range");
        s.durationNs = std::llround(d * 1e9);
        for (const auto &a : s.axes)
            if (!findTunable(a.tunable)) return unknownTunable(a.tunable);
        for (const auto &t : s.ties)
            if (!findTunable(t.tunable)) return unknownTunable(t.tunable);
        return s;
    } catch (const nlohmann::json::exception &e) {
        return Status::refused(std::string("malformed sweep description: ") + e.what());
    }
}

} // namespace ringlab
