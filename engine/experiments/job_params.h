// SPDX-License-Identifier: GPL-2.0-or-later
// A job's kind and parameters from a request's JSON, in the command line's words (docs/api.md,
// "Jobs"): sweep (profile, set, vary, grid, tie, repeat, duration), tune (profile, set,
// minimize or maximize, subject_to, over, tie, budget, duration), reproduce (case, repeat,
// duration). A list's word takes a string or an array of strings; a duration "2s", "500ms"
// or a number of seconds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/common/status.h"
#include "engine/experiments/reproduce_job.h"
#include "engine/experiments/sweep_job.h"
#include "engine/experiments/tune_job.h"

namespace ringlab {

struct JobSpec {
    std::string kind; // sweep, tune, reproduce
    SweepOptions sweep;
    TuneOptions tune;
    ReproduceOptions reproduce;
    nlohmann::json params; // as given (without "kind")
};

// The error names the field, its value and what is allowed. Profiles by name only: paths
// are not taken over the API.
// `devices`: the engine's, which the job's runs are made by (and its values checked against).
[[nodiscard]] Status jobSpecFromJson(const nlohmann::json &body, const DeviceProvider &devices,
                                     JobSpec &out);

} // namespace ringlab
