// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/reproduce_command.h"

#include <unistd.h>

#include <cstdio>

#include "app/stop_signals.h"

namespace ringlab {

int reproduceCommand(const ReproduceOptions &opts)
{
    ReproduceOptions o = opts;
    std::string error;
    if (casesFor(o.which, error).empty()) {
        std::fprintf(stderr, "ringlab-engine: reproduce: %s\n", error.c_str());
        return 2;
    }
    if (o.repeat == 1)
        std::fprintf(stderr, "ringlab-engine: reproduce: with --repeat 1 the intervals show the "
                             "noise within one run, not between runs: use --repeat 3 or more "
                             "for a verdict that holds across runs\n");
    else if (o.repeat == 2)
        std::fprintf(stderr, "ringlab-engine: reproduce: --repeat 2 gives no interval (it needs "
                             "3 or more repeats): the verdicts will say so\n");
    o.progress = [](const std::string &msg) {
        std::fprintf(stderr, "ringlab-engine: reproduce %s\n", msg.c_str());
    };
    o.onCase = [&](const ReproduceCase &rc) {
        std::fputs(formatReproduceCase(rc, o.markdown).c_str(), stdout);
        std::fflush(stdout);
    };
    std::fputs(reproduceHeader(o, o.markdown).c_str(), stdout);
    std::fflush(stdout);
    // Signals are taken through a descriptor; engine threads inherit the blocked mask.
    const int sigFd = takeStopSignals();
    const ReproduceEnd end = runReproduce(o, sigFd, error);
    close(sigFd);
    if (end != ReproduceEnd::Completed)
        std::fprintf(stderr, "ringlab-engine: reproduce: %s\n", error.c_str());
    return end == ReproduceEnd::Completed ? 0 : end == ReproduceEnd::BadInput ? 2 : 1;
}

} // namespace ringlab
