// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/tune/tuner.h"

#include <nlopt.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "engine/common/number_text.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/store/sweep_store.h"
#include "engine/tune/pareto.h"

namespace ringlab {
namespace {

constexpr double kInvalid = 1e4;    // the registry refuses the setting: no run spent
constexpr double kInfeasible = 1e3; // measured, a constraint broken by its mean

double normalCdf(double z)
{
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

struct Candidate {
    int index = 0;
    Assignments values;
    std::vector<double> x;
    Measurement m;
};

class Search {
  public:
    Search(const TuneSpec &spec, const ParamSet &base, const MeasureFn &measure,
           const std::function<void(const std::string &)> &progress, TuneResult &result)
        : spec_(spec), base_(base), measure_(measure), progress_(progress), result_(result)
    {
    }

    // The setting at x (search coordinates), rounded as the registry wants it; false if
    // the registry refuses it.
    bool settingAt(const std::vector<double> &x, Assignments &values) const
    {
        values.clear();
        std::vector<double> numeric = numericValues(base_);
        for (std::size_t k = 0; k < spec_.axes.size(); ++k) {
            const TuneAxis &a = spec_.axes[k];
            const TunableInfo &t = *findTunable(a.tunable);
            double v = a.log ? std::exp(x[k]) - (a.lo < 1 ? 1 : 0) : x[k];
            v = std::clamp(v, a.lo, a.hi);
            char buf[64];
            if (t.type == Type::Integer)
                std::snprintf(buf, sizeof buf, "%.0f", std::round(v));
            else
                std::snprintf(buf, sizeof buf, "%.4g", v);
            values.emplace_back(a.tunable, buf);
            numeric[static_cast<std::size_t>(t.id)] = std::strtod(buf, nullptr);
        }
        for (const auto &tie : spec_.ties) {
            double v = 0;
            if (!evaluateTie(tie, numeric, v).ok()) return false;
            const TunableInfo &t = *findTunable(tie.tunable);
            char buf[64];
            std::snprintf(buf, sizeof buf, t.type == Type::Integer ? "%.0f" : "%.4g",
                          t.type == Type::Integer ? std::round(v) : v);
            values.emplace_back(tie.tunable, buf);
            numeric[static_cast<std::size_t>(t.id)] = std::strtod(buf, nullptr);
        }
        ParamSet check = base_;
        return check.set(values).ok();
    }

    double lower(std::size_t k) const { return coord(spec_.axes[k], spec_.axes[k].lo); }
    double upper(std::size_t k) const { return coord(spec_.axes[k], spec_.axes[k].hi); }
    static double coord(const TuneAxis &a, double v)
    {
        return a.log ? std::log(v + (a.lo < 1 ? 1 : 0)) : v;
    }

    // The value NLopt minimises: the objective scaled by the first measurement, or a
    // constant above any objective plus the relative violation when a constraint fails.
    double penalized(const Measurement &m) const
    {
        const auto it = m.metrics.find(spec_.objective);
        if (it == m.metrics.end()) return kInfeasible * 2;
        const double v = violation(m);
        if (v > 0) return kInfeasible + v;
        return (spec_.maximize ? -1 : 1) * it->second.mean / scale_;
    }
    double violation(const Measurement &m) const
    {
        double total = 0;
        for (const auto &c : spec_.constraints) {
            const auto it = m.metrics.find(c.metric);
            if (it == m.metrics.end()) {
                total += 1;
                continue;
            }
            const double mean = it->second.mean;
            if (satisfied(c, mean)) continue;
            total += std::fabs(mean - c.bound) / (std::fabs(c.bound) + 1);
        }
        return total;
    }

    // One more run of a candidate; false when the run failed or was interrupted.
    bool run(Candidate &c, const char *phase)
    {
        Measurement m = measure_(c.values, c.index);
        if (!m.ok) {
            result_.interrupted = true;
            if (!m.failure.empty())
                result_.failure =
                    "run " + std::to_string(result_.runsUsed + 1) + " failed: " + m.failure;
            return false;
        }
        c.m = std::move(m);
        ++result_.runsUsed;
        if (scale_ == 0) {
            const auto it = c.m.metrics.find(spec_.objective);
            scale_ =
                it != c.m.metrics.end() && it->second.mean != 0 ? std::fabs(it->second.mean) : 1.0;
        }
        TrailEntry e;
        e.run = result_.runsUsed;
        e.candidate = c.index;
        e.phase = phase;
        e.values = c.values;
        const auto it = c.m.metrics.find(spec_.objective);
        e.objective = it != c.m.metrics.end() ? it->second.mean : NAN;
        e.meetsConstraints = violation(c.m) == 0;
        result_.trail.push_back(e);
        if (progress_) {
            std::string line = "tune run " + std::to_string(e.run) + "/" +
                               std::to_string(spec_.budget) + " (" + phase + "): candidate " +
                               std::to_string(c.index) + " " + SweepPoint{0, c.values}.text() +
                               ": " + spec_.objective + " " + shortNumber(e.objective);
            for (const auto &k : spec_.constraints)
                if (auto jt = c.m.metrics.find(k.metric); jt != c.m.metrics.end())
                    line += ", " + k.metric + " " + shortNumber(jt->second.mean);
            line += e.meetsConstraints ? " (meets the constraints)" : " (breaks a constraint)";
            progress_(line);
        }
        return true;
    }

    // The candidate at x: measured once per distinct setting, until `limit` runs are used
    // (then NLopt is stopped); nullptr when the registry refuses the setting.
    Candidate *at(const std::vector<double> &x)
    {
        Assignments values;
        if (!settingAt(x, values)) return nullptr;
        const std::string key = SweepPoint{0, values}.text();
        if (auto it = cache_.find(key); it != cache_.end()) return it->second;
        if (result_.runsUsed >= limit_ || ++evaluations_ > 50 * spec_.budget)
            throw nlopt::forced_stop();
        auto c = std::make_unique<Candidate>();
        c->index = static_cast<int>(candidates_.size()) + 1;
        c->values = values;
        c->x = x;
        if (!run(*c, phase_)) throw nlopt::forced_stop();
        Candidate *ref = c.get();
        candidates_.push_back(std::move(c));
        cache_[key] = ref;
        return ref;
    }

    // What DIRECT minimises (it takes no constraints): the penalised objective.
    double penalizedAt(const std::vector<double> &x)
    {
        Candidate *c = at(x);
        return c ? penalized(c->m) : kInvalid;
    }
    // What COBYLA minimises, and its constraints (<= 0 when met), relative to the bound.
    double objectiveAt(const std::vector<double> &x)
    {
        Candidate *c = at(x);
        if (!c) return kInvalid;
        const auto it = c->m.metrics.find(spec_.objective);
        if (it == c->m.metrics.end()) return kInfeasible;
        return (spec_.maximize ? -1 : 1) * it->second.mean / scale_;
    }
    double constraintAt(std::size_t k, const std::vector<double> &x)
    {
        Candidate *c = at(x);
        if (!c) return 1;
        const Constraint &con = spec_.constraints[k];
        const auto it = c->m.metrics.find(con.metric);
        if (it == c->m.metrics.end()) return 1;
        const double d = (it->second.mean - con.bound) / (std::fabs(con.bound) + 1);
        switch (con.op) {
        case Constraint::Op::Le:
        case Constraint::Op::Lt:
            return d;
        case Constraint::Op::Ge:
        case Constraint::Op::Gt:
            return -d;
        case Constraint::Op::Eq:
            return std::fabs(d);
        }
        return d;
    }

    void optimise(nlopt::algorithm algo, const std::vector<double> &start, int limit,
                  const char *phase)
    {
        if (result_.runsUsed >= limit || result_.interrupted) return;
        limit_ = limit;
        phase_ = phase;
        const unsigned n = static_cast<unsigned>(spec_.axes.size());
        nlopt::opt opt(algo, n);
        std::vector<double> lb(n), ub(n), step(n);
        for (unsigned k = 0; k < n; ++k) {
            lb[k] = lower(k);
            ub[k] = upper(k);
            step[k] = (ub[k] - lb[k]) / 8;
        }
        opt.set_lower_bounds(lb);
        opt.set_upper_bounds(ub);
        opt.set_maxeval(50 * spec_.budget);
        if (algo != nlopt::GN_DIRECT_L) {
            // A local method stops once its steps are under 0.5 % of each range: below that
            // it only chases the noise of single runs, and the runs left go to a restart.
            opt.set_initial_step(step);
            std::vector<double> tol(n);
            for (unsigned k = 0; k < n; ++k)
                tol[k] = (ub[k] - lb[k]) / 200;
            opt.set_xtol_abs(tol);
        }
        if (algo == nlopt::LN_COBYLA) {
            opt.set_min_objective(
                [](const std::vector<double> &x, std::vector<double> &, void *self) {
                    return static_cast<Search *>(self)->objectiveAt(x);
                },
                this);
            constraintData_.clear();
            for (std::size_t k = 0; k < spec_.constraints.size(); ++k)
                constraintData_.push_back({this, k});
            for (auto &d : constraintData_)
                opt.add_inequality_constraint(
                    [](const std::vector<double> &x, std::vector<double> &, void *data) {
                        auto *cd = static_cast<ConstraintData *>(data);
                        return cd->self->constraintAt(cd->k, x);
                    },
                    &d, 1e-3);
        } else {
            opt.set_min_objective(
                [](const std::vector<double> &x, std::vector<double> &, void *self) {
                    return static_cast<Search *>(self)->penalizedAt(x);
                },
                this);
        }
        std::vector<double> x = start;
        double fx = 0;
        try {
            opt.optimize(x, fx);
        } catch (const nlopt::forced_stop &) {
        } catch (const std::exception &) {
            // roundoff or a failure inside NLopt: what was measured stands
        }
    }

    Candidate *bestByPenalty() const
    {
        Candidate *best = nullptr;
        for (const auto &c : candidates_)
            if (!best || penalized(c->m) < penalized(best->m)) best = c.get();
        return best;
    }

    std::vector<std::unique_ptr<Candidate>> &candidates() { return candidates_; }

  private:
    const TuneSpec &spec_;
    const ParamSet &base_;
    const MeasureFn &measure_;
    const std::function<void(const std::string &)> &progress_;
    TuneResult &result_;
    std::vector<std::unique_ptr<Candidate>> candidates_;
    std::map<std::string, Candidate *> cache_;
    struct ConstraintData {
        Search *self;
        std::size_t k;
    };
    std::vector<ConstraintData> constraintData_;
    double scale_ = 0;
    int limit_ = 0;
    int evaluations_ = 0;
    const char *phase_ = "search";
};

} // namespace

Status parseConstraint(std::string_view text, Constraint &out)
{
    static constexpr std::pair<std::string_view, Constraint::Op> ops[] = {
        {"<=", Constraint::Op::Le},
        {">=", Constraint::Op::Ge},
        {"==", Constraint::Op::Eq},
        {"<", Constraint::Op::Lt},
        {">", Constraint::Op::Gt}};
    for (const auto &[sym, op] : ops) {
        const auto at = text.find(sym);
        if (at == std::string_view::npos) continue;
        std::string metric(text.substr(0, at));
        std::string_view rhs = text.substr(at + sym.size());
        while (!metric.empty() && metric.back() == ' ')
            metric.pop_back();
        while (!rhs.empty() && rhs.front() == ' ')
            rhs.remove_prefix(1);
        double bound = 0;
        auto [p, ec] = std::from_chars(rhs.data(), rhs.data() + rhs.size(), bound);
        if (metric.empty() || ec != std::errc() || p != rhs.data() + rhs.size() ||
            !std::isfinite(bound))
            break;
        out.metric = metricLabel(metric);
        if (!isEngineMetric(out.metric))
            return Status{"constraint \"" + std::string(text) + "\": \"" + metric +
                          "\" is not a metric the engine records (e.g. latency_p99_us, "
                          "drops_per_s, engine_cpu_ms_per_s)"};
        out.op = op;
        out.bound = bound;
        out.text = std::string(text);
        return Status::success();
    }
    return Status{"constraint \"" + std::string(text) +
                  "\" is not METRIC OP NUMBER with OP one of <=, <, >=, >, == (e.g. "
                  "\"latency_p99_us<=200\")"};
}

bool satisfied(const Constraint &c, double v)
{
    switch (c.op) {
    case Constraint::Op::Le:
        return v <= c.bound;
    case Constraint::Op::Lt:
        return v < c.bound;
    case Constraint::Op::Ge:
        return v >= c.bound;
    case Constraint::Op::Gt:
        return v > c.bound;
    case Constraint::Op::Eq:
        return std::fabs(v - c.bound) <= 1e-9 * (1 + std::fabs(c.bound));
    }
    return false;
}

double probabilityHolds(const Constraint &c, const Estimate &e)
{
    if (e.n == 0) return 0;
    if (c.op == Constraint::Op::Eq) return satisfied(c, e.min) && satisfied(c, e.max) ? 1 : 0;
    const double se = e.batches >= 2 ? e.ciHalf / tQuantile975(e.batches - 1) : 0;
    if (se <= 0) return satisfied(c, e.mean) ? 1 : 0;
    const double z = (c.bound - e.mean) / se;
    const bool upper = c.op == Constraint::Op::Le || c.op == Constraint::Op::Lt;
    return normalCdf(upper ? z : -z);
}

Status parseTuneAxis(std::string_view text, TuneAxis &out)
{
    const auto eq = text.find('=');
    const std::string name(text.substr(0, eq));
    const TunableInfo *t = findTunable(name);
    if (!t) return unknownTunable(name);
    if (t->type != Type::Integer && t->type != Type::Real)
        return Status{name + ": the tuner searches numeric tunables; " + name + " is a " +
                      std::string(typeName(t->type)) + " (sweep it instead)"};
    out = TuneAxis{name, t->min, t->max, false};
    if (eq != std::string_view::npos) {
        const std::string_view range = text.substr(eq + 1);
        const auto dots = range.find("..");
        double lo = 0, hi = 0;
        auto parse = [](std::string_view s, double &v) {
            auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
            return ec == std::errc() && p == s.data() + s.size() && std::isfinite(v);
        };
        if (dots == std::string_view::npos || !parse(range.substr(0, dots), lo) ||
            !parse(range.substr(dots + 2), hi) || lo >= hi)
            return Status{"--over \"" + std::string(text) +
                          "\" is not NAME or NAME=LO..HI with "
                          "LO < HI"};
        if (lo < t->min || hi > t->max)
            return Status{"--over " + name + "=" + std::string(range) +
                          " leaves the registry's range (allowed: " + allowedText(*t) + ")"};
        out.lo = lo;
        out.hi = hi;
    }
    out.log = out.hi / std::max(out.lo, 1.0) >= 100;
    return Status::success();
}

namespace {

// The search proper, within `searchRuns`.
void runSearch(const TuneSpec &spec, Search &s, const TuneResult &result, int searchRuns)
{
    const std::size_t n = spec.axes.size();
    std::vector<double> start(n);
    for (std::size_t k = 0; k < n; ++k)
        start[k] = 0.5 * (s.lower(k) + s.upper(k));
    // A global look first: DIRECT-L samples the box by thirds (the centre, then a third
    // either way along each axis: 2n+1 runs at least, 40 % of the search with room for
    // more). Then COBYLA, which takes the constraints as they are and walks to their
    // boundary, from the best setting found so far. COBYLA alone from the centre crept
    // along a noisy constraint in steps of a few percent and ran out of runs.
    const int firstLook = std::max(static_cast<int>(2 * n + 1), searchRuns * 2 / 5);
    s.optimise(nlopt::GN_DIRECT_L, start, std::min(firstLook, searchRuns), "search");
    if (Candidate *b = s.bestByPenalty()) start = b->x;
    s.optimise(nlopt::LN_COBYLA, start, searchRuns, "refine");
    // COBYLA stops early once its steps are small: what is left goes to restarts at the
    // best point so far, until one adds no run.
    while (result.runsUsed < searchRuns && !result.interrupted) {
        const int before = result.runsUsed;
        if (Candidate *b = s.bestByPenalty())
            s.optimise(nlopt::LN_COBYLA, b->x, searchRuns, "refine");
        if (result.runsUsed == before) break;
    }
}

// The best few by the penalised objective, best first.
std::vector<Candidate *> finalists(const TuneSpec &spec, Search &s)
{
    std::vector<Candidate *> order;
    for (auto &c : s.candidates())
        order.push_back(c.get());
    std::sort(order.begin(), order.end(),
              [&](Candidate *a, Candidate *b) { return s.penalized(a->m) < s.penalized(b->m); });
    if (order.size() > static_cast<std::size_t>(spec.finalists))
        order.resize(static_cast<std::size_t>(spec.finalists));
    return order;
}

// Repeats at the finalists, best first, while the budget lasts.
void repeatFinalists(const TuneSpec &spec, Search &s, const TuneResult &result,
                     const std::vector<Candidate *> &order)
{
    for (int round = 1; round < spec.finalRepeats && !result.interrupted; ++round)
        for (Candidate *c : order)
            if (result.runsUsed < spec.budget && c->m.runs < spec.finalRepeats &&
                !result.interrupted)
                s.run(*c, "repeat");
}

// The probability that every constraint holds at c (0 for one not measured).
double probabilityAllHold(const TuneSpec &spec, const Candidate &c)
{
    double p = 1;
    for (const auto &k : spec.constraints) {
        const auto it = c.m.metrics.find(k.metric);
        p *= it == c.m.metrics.end() ? 0 : probabilityHolds(k, it->second);
    }
    return p;
}

// The answer: among settings whose constraints hold by the means, the best objective; a
// rival within the noise of it with more confidence in its constraints wins instead. Null
// when no setting meets the constraints.
Candidate *chooseAnswer(const TuneSpec &spec, Search &s, const std::vector<Candidate *> &order)
{
    const auto probability = [&](const Candidate &c) { return probabilityAllHold(spec, c); };
    // Judged among the settings that were run again, when one of them still meets the
    // constraints: one run's interval says nothing of how the next run differs.
    const int dir = spec.maximize ? +1 : -1;
    auto meets = [&](const Candidate &c) {
        return s.violation(c.m) == 0 && c.m.metrics.count(spec.objective);
    };
    std::vector<Candidate *> pool;
    for (Candidate *c : order)
        if (c->m.runs > 1 && meets(*c)) pool.push_back(c);
    if (pool.empty())
        for (auto &cp : s.candidates())
            if (meets(*cp)) pool.push_back(cp.get());
    Candidate *best = nullptr;
    for (Candidate *cp : pool) {
        Candidate &c = *cp;
        if (!best) {
            best = &c;
            continue;
        }
        const Estimate &eb = best->m.metrics.at(spec.objective),
                       &ec = c.m.metrics.at(spec.objective);
        const int sig = significantlyBetter(eb, ec, dir);
        const bool noisyTie = sig == 0;
        if (sig > 0 || (noisyTie && probability(c) > probability(*best) + 0.05) ||
            (noisyTie && std::fabs(probability(c) - probability(*best)) <= 0.05 &&
             (dir > 0 ? ec.mean > eb.mean : ec.mean < eb.mean) && c.m.runs >= best->m.runs))
            best = &c;
    }
    return best;
}

// The answer found, into the result.
void reportAnswer(const TuneSpec &spec, const Candidate &best, TuneResult &result)
{
    result.found = true;
    result.candidate = best.index;
    result.best = best.values;
    result.objective = best.m.metrics.at(spec.objective);
    for (const auto &k : spec.constraints) {
        const auto it = best.m.metrics.find(k.metric);
        result.constraintValues.push_back(it == best.m.metrics.end() ? Estimate{} : it->second);
    }
    result.probability = probabilityAllHold(spec, best);
    result.runs = best.m.runs;
}

// Nothing met the constraints: say which, and how close the closest came.
void explainNoAnswer(const TuneSpec &spec, Search &s, TuneResult &result)
{
    Candidate *closest = nullptr;
    for (auto &c : s.candidates())
        if (!closest || s.violation(c->m) < s.violation(closest->m)) closest = c.get();
    if (!closest) {
        result.why = !result.failure.empty() ? result.failure
                     : result.interrupted    ? "interrupted before any run completed"
                                             : "no setting in the ranges was accepted by the "
                                               "registry (see the ties and cross-field rules)";
        return;
    }
    result.why = "no setting met the constraints in " + std::to_string(result.runsUsed) +
                 " runs; the closest was candidate " + std::to_string(closest->index) + " (" +
                 SweepPoint{0, closest->values}.text() + "):";
    for (const auto &k : spec.constraints) {
        const auto it = closest->m.metrics.find(k.metric);
        if (it == closest->m.metrics.end()) {
            result.why += " " + k.metric + " not measured;";
            continue;
        }
        result.why += " " + k.metric + " " + shortNumber(it->second.mean) +
                      (satisfied(k, it->second.mean) ? " (meets " : " (breaks ") + k.text + ");";
    }
    result.why.back() = '.';
    result.best = closest->values;
    result.candidate = closest->index;
}

} // namespace

TuneResult tune(const TuneSpec &spec, const ParamSet &base, const MeasureFn &measure,
                const std::function<void(const std::string &)> &progress)
{
    TuneResult result;
    Search s(spec, base, measure, progress, result);
    // Keep runs for the repeats at the end: a fifth of the budget, at most two more runs
    // for each finalist.
    const int reserve =
        std::min(spec.budget / 5, spec.finalists * std::max(0, spec.finalRepeats - 1));
    const int searchRuns = spec.budget - reserve;
    runSearch(spec, s, result, searchRuns);
    // Repeats at the best few, best first, while the budget lasts.
    const std::vector<Candidate *> order = finalists(spec, s);
    repeatFinalists(spec, s, result, order);
    if (Candidate *best = chooseAnswer(spec, s, order)) {
        reportAnswer(spec, *best, result);
        return result;
    }
    explainNoAnswer(spec, s, result);
    return result;
}

} // namespace ringlab
