// SPDX-License-Identifier: GPL-2.0-or-later
// Comparing two sessions or segments, metric by metric, with confidence intervals and a
// verdict that spells out the direction. A difference inside the noise is never a gain.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/metrics/statistics.h"
#include "engine/store/session_store.h"

namespace ringlab {

// One side of a comparison: per metric label, the values treated as samples.
struct CompareSide {
    std::string label;    // "session 3", "session 3 segment 2", "group of 5 repeats (3, 4, ...)"
    bool repeats = false; // values are per-repeat means (independent)
    std::map<std::string, std::vector<double>> values;
    std::map<std::string, std::string> units;
    std::vector<std::int64_t> sessions; // the sessions it was read from
};

// "ID" or "ID:SEG". A session that belongs to a group of repeats stands for the group.
// Refused, saying why, for a spec that is not one or names no session or segment.
Result<CompareSide> loadCompareSide(SessionStore &store, const std::string &spec, double warmupS);

// The given sessions as one side: one session's samples, or several sessions' means (one
// value per session, as independent repeats). `sessions` must not be empty.
CompareSide compareSideOf(SessionStore &store, const std::vector<std::int64_t> &sessions,
                          double warmupS);

struct CompareRow {
    std::string metric, unit;
    Estimate a, b;
    Difference diff;
    int better = 0; // +1 higher is better, -1 lower is better, 0 neither
    std::string verdict;
};

// What a reader must know before trusting the intervals: two single runs show the noise
// within each run, not between runs; a group of repeats against a single run mixes the two.
std::vector<std::string> compareNotes(const CompareSide &a, const CompareSide &b);

// Every difference in environment between A's and B's first sessions (a group's members
// ran on one machine in a row), ranked by how much it can move a result.
std::vector<EnvironmentDifference> environmentCaveats(SessionStore &store, const CompareSide &a,
                                                      const CompareSide &b);
// A "significant" verdict carries the environment's first caveat beside it: the difference
// may be the machine's, not the setting's.
void addEnvironmentCaveat(std::vector<CompareRow> &rows,
                          const std::vector<EnvironmentDifference> &caveats);

// The metrics a case turns on first (keyMetrics()), then the rest by name.
void orderForReading(std::vector<CompareRow> &rows);

// What compare shows when no metric is named: the headline rates, CPU and latency, and the CPU
// and wakeups of every engine thread both sides have.
std::vector<std::string> defaultCompareMetrics(const CompareSide &a, const CompareSide &b);

// Every metric in `metrics` (all common ones when empty), in a stable order.
std::vector<CompareRow> compareSides(const CompareSide &a, const CompareSide &b,
                                     const std::vector<std::string> &metrics,
                                     std::vector<std::string> &missing);

} // namespace ringlab
