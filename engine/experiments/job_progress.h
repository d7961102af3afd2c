// SPDX-License-Identifier: GPL-2.0-or-later
// How far an experiment (a sweep, a tune, a reproduction) has come, as counts and the time
// left: what a job reports on the API's stream ({"type":"job",...}) and what the desktop and
// the command line show, never English text for a program to parse.
#pragma once

#include <functional>
#include <string>

namespace ringlab {

struct JobProgress {
    int run = 0;             // the run about to start (1-based)
    int runs = 0;            // the runs planned (a tune: its budget)
    int done = 0;            // the runs measured so far
    double secondsLeft = -1; // an estimate; < 0: not known
    std::string step;        // what this run measures, for people: "point 3 (poll.mode=busy)"
};

using ProgressFn = std::function<void(const JobProgress &)>;

} // namespace ringlab
