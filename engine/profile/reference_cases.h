// SPDX-License-Identifier: GPL-2.0-or-later
// The five reference cases (docs/experiments.md, ../shared/seeds): for each, the profiles
// before and after the change, and the figures the seed reported beside the metrics that
// measure them. One table, read by `ringlab-engine reproduce` and its report.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

struct CaseMetric {
    std::string_view name;  // as the report shows it
    std::string_view unit;  // of the value after `scale`
    std::string_view label; // the recorded metric (a CSV column); before and after alike...
    std::string_view labelAfter = {}; // ...unless the after side records it elsewhere
    std::string_view per = {};        // divided by this metric (a figure per frame)
    double scale = 1;                 // applied after the division
    // What the seed reported: its text, and the direction and size of its change (after
    // against before). seedDirection 0: the seed has no figure, the row shows the mechanism.
    std::string_view seedText;
    int seedDirection = 0;
    double seedPct = 0;
    bool mechanism = false; // the change's direct effect, not an outcome
};

struct ReferenceCase {
    std::string_view name; // stmmac, mhi, zephyr, ocelot, kni
    std::string_view title;
    std::string_view before, after; // profiles
    std::vector<CaseMetric> metrics;
    std::string_view note; // where the model and the seed part, and why
};

std::span<const ReferenceCase> referenceCases();
const ReferenceCase *findReferenceCase(std::string_view name);
// "stmmac, mhi, zephyr, ocelot, kni"
std::string referenceCaseNames();

} // namespace ringlab
