// SPDX-License-Identifier: GPL-2.0-or-later
// What a sweep varies: axes (a list of values, or a range in linear or log steps) over
// tunables, crossed as a grid, and ties that compute other tunables from each point's
// values ("poll.sleep_max_us=2*poll.sleep_min_us"). Every point is checked against the
// registry, cross-field rules included, before anything runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/datapath/tunables.h"
#include "engine/profile/run_defaults.h"

namespace ringlab {

struct SweepAxis {
    std::string tunable;
    std::vector<std::string> values; // as the registry formats them
};

struct SweepTie {
    std::string tunable;
    std::string expression; // arithmetic over other tunables' names, e.g. 2*poll.sleep_min_us
};

struct SweepSpec {
    std::string profile = "default";
    Assignments sets; // --set, on top of the profile
    std::vector<SweepAxis> axes;
    std::vector<SweepTie> ties;
    int repeat = 1;
    std::int64_t durationNs = 5'000'000'000;
    double warmupS = kWarmupS;
    std::string device; // empty: sim
    std::string traffic;
};

struct SweepPoint {
    int index = 0;            // 1-based, in grid order (the first axis varies slowest)
    Assignments values;       // the axes' values, then the ties'
    std::string text() const; // "poll.sleep_min_us=5 poll.sleep_max_us=10"
};

// "NAME=V1,V2,...": values in the given order.
Status parseVaryAxis(std::string_view text, SweepAxis &out);
// "NAME=A..B[:lin|:log][:N]" (N points, default 5; log needs A > 0) or a list as for
// parseVaryAxis. Integers are rounded, and repeated values kept once.
Status parseGridAxis(std::string_view text, SweepAxis &out);
// "NAME=EXPRESSION"; the expression is checked for syntax and unknown names here, and one
// that reads NAME itself is refused.
Status parseTie(std::string_view text, SweepTie &out);
// The tunables a tie's expression reads.
std::vector<std::string> tieInputs(const SweepTie &tie);
// Puts ties in the order they are computed in, each after the ties it reads, so that the
// order they were given in never changes a value. Refuses a tunable tied twice, a tie that
// reads itself and ties that form a cycle, naming it ("ties form a cycle:
// poll.sleep_max_us -> refill.batch -> poll.sleep_max_us").
Status orderTies(std::vector<SweepTie> &ties);

// Every point of the grid with its ties (computed in orderTies' order), each checked on top of
// `base`; the first point the registry refuses is named with the refusal, and nothing is returned.
Status expandPoints(const SweepSpec &spec, const ParamSet &base, std::vector<SweepPoint> &out);
// Every tunable's value as a number, indexed by TunableId (choices and flags as their index).
std::vector<double> numericValues(const ParamSet &values);
// The value of a tie's expression over `values` (as numericValues gives them).
Status evaluateTie(const SweepTie &tie, const std::vector<double> &values, double &out);

nlohmann::json sweepSpecToJson(const SweepSpec &spec);
// Reads back what sweepSpecToJson wrote; anything else is refused with a message.
Result<SweepSpec> sweepSpecFromJson(const nlohmann::json &j);

} // namespace ringlab
