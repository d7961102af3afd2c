// SPDX-License-Identifier: GPL-2.0-or-later
// The tuner: minimise or maximise one metric subject to constraints on others, over chosen
// tunables within their ranges, within a budget of runs. Every run is noisy, so:
// - the search (NLopt: DIRECT-L over the box, log-scaled where a range spans two decades,
//   then COBYLA from the best point, restarted while runs are left) sees one run per
//   setting, with settings rounded to what the registry accepts and each setting measured
//   once;
// - the best few settings are then run again (repeats at the incumbent) and the answer is
//   the best of those whose constraints still hold by the means of their runs (any setting
//   only when none of them does), judged with 95 % intervals over its repeats; one that is
//   not significantly better than another with more confidence in its constraints does not
//   displace it.
// A constraint that no setting met is reported as such, with the closest setting, never
// as an answer.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/datapath/tunables.h"
#include "engine/metrics/statistics.h"
#include "engine/profile/sweep_spec.h"

namespace ringlab {

struct Constraint {
    std::string metric; // a metric label
    enum class Op { Le, Lt, Ge, Gt, Eq } op = Op::Le;
    double bound = 0;
    std::string text; // as the user wrote it
};
// "latency_p99_us<=200", "drops_per_s==0", "rx_pps>=9000" (dots for underscores accepted).
Status parseConstraint(std::string_view text, Constraint &out);
// Whether `value` satisfies the constraint, and the probability that the true mean does,
// given the estimate (normal approximation over its interval; 1 or 0 without noise).
bool satisfied(const Constraint &c, double value);
double probabilityHolds(const Constraint &c, const Estimate &e);

struct TuneAxis {
    std::string tunable;
    double lo = 0, hi = 0; // within the registry's range
    bool log = false;
};
// "NAME" (the registry's range) or "NAME=LO..HI".
Status parseTuneAxis(std::string_view text, TuneAxis &out);

struct TuneSpec {
    std::string objective; // a metric label
    bool maximize = false;
    std::vector<Constraint> constraints;
    std::vector<TuneAxis> axes;
    std::vector<SweepTie> ties;
    int budget = 40;      // runs, repeats included
    int finalists = 3;    // settings run again at the end
    int finalRepeats = 3; // runs each finalist gets in all
};

// What measuring a setting gives: per metric label, the estimate over every run of that
// setting so far. `ok` false: the run failed or was interrupted, and the tuner stops.
struct Measurement {
    bool ok = false;
    std::string failure; // when not ok: why the run failed (empty: it was interrupted)
    std::map<std::string, Estimate> metrics;
    int runs = 0; // of this setting so far
};
// Runs `values` once more (on top of the base) and returns the setting's estimates.
using MeasureFn = std::function<Measurement(const Assignments &values, int candidate)>;

struct TrailEntry {
    int run = 0;       // 1-based run number
    int candidate = 0; // which setting (1-based, in the order first measured)
    std::string phase; // search, refine, repeat
    Assignments values;
    double objective = 0;
    bool meetsConstraints = false; // by the means
};

struct TuneResult {
    bool found = false;       // a setting whose constraints hold by the means
    bool interrupted = false; // stopped before its budget: a cancel, or a run that failed
    std::string failure;      // the run that failed, and why (empty when cancelled)
    int candidate = 0;
    Assignments best; // the tuned tunables' values (and ties')
    Estimate objective;
    std::vector<Estimate> constraintValues; // per constraint
    double probability = 0;                 // that every constraint holds
    int runs = 0;                           // of the answer
    int runsUsed = 0;
    std::vector<TrailEntry> trail;
    std::string why; // when not found: which constraint failed, and the closest setting
};

TuneResult tune(const TuneSpec &spec, const ParamSet &base, const MeasureFn &measure,
                const std::function<void(const std::string &)> &progress = {});

} // namespace ringlab
