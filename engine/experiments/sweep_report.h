// SPDX-License-Identifier: GPL-2.0-or-later
// A sweep's results: per point its knob values, each metric's mean with its 95 % interval,
// and whether it is on the Pareto front; as a table for a terminal, CSV or JSON.
#pragma once

#include <string>
#include <vector>

#include "engine/store/session_store.h"
#include "engine/store/sweep_store.h"
#include "engine/tune/pareto.h"

namespace ringlab {

// What the table and the front are over when the user names nothing.
std::vector<std::string> defaultSweepMetrics();
// Each of `names` as a metric label (dots for underscores accepted); refused, naming the
// first that is not a metric the engine records (device metrics are allowed when
// `deviceMetricsToo`).
Result<std::vector<std::string>> sweepMetricLabels(const std::vector<std::string> &names,
                                                   bool deviceMetricsToo);

struct SweepTable {
    std::vector<std::string> metrics; // labels
    std::vector<int> directions;      // betterDirection of each (0: not on the front's axes)
    std::vector<PointResult> points;
    std::vector<bool> front;       // among measured points: place == On
    std::vector<FrontPlace> place; // On for a point not measured
    std::vector<int> beatenBy;     // the point index that puts it off the front, or -1
    // Whether point k is off the front by a significant margin (place Beaten); a table made
    // without places (older callers) counts every point off it as beaten.
    bool beaten(std::size_t k) const
    {
        return k < place.size() ? place[k] == FrontPlace::Beaten
                                : k < beatenBy.size() && beatenBy[k] >= 0;
    }
};

SweepTable sweepTable(SessionStore &store, const SweepRecord &sweep,
                      const std::vector<std::string> &metrics);
// Sets each point's place on the Pareto front of the table's metrics (front, place, beatenBy)
// from its points' estimates: what sweepTable() does once it has read them.
void placeOnFront(SweepTable &t);

enum class SweepFormat { Table, Csv, Json };
std::string formatSweep(const SweepRecord &sweep, const SweepTable &table, SweepFormat format);

} // namespace ringlab
