// SPDX-License-Identifier: GPL-2.0-or-later
// A Sample as a flat list of named metrics (name, unit, thread, value): the rows of the
// session database and the columns of a CSV export.
#pragma once

#include <string>
#include <vector>

#include "engine/sample.h"

namespace ringlab {

struct MetricValue {
    std::string name;
    std::string unit;
    std::string thread; // empty for whole-engine metrics
    double value = 0;
};

std::vector<MetricValue> flattenSample(const Sample &s);
// Whether a larger value of this metric is better (throughput) or worse (CPU, latency,
// drops); nullopt-like 0 when neither applies. Returns +1, -1 or 0.
int betterDirection(const std::string &name);
// The inverse of flattenSample for one metric: sets the field it came from.
void setSampleMetric(Sample &s, const std::string &name, const std::string &thread, double value);

} // namespace ringlab
