// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/tune_command.h"

#include <unistd.h>

#include <cstdio>

#include "app/stop_signals.h"

namespace ringlab {

int tuneCommand(const TuneOptions &opts)
{
    TuneOptions o = opts;
    o.progress = [](const std::string &msg) {
        std::fprintf(stderr, "ringlab-engine: %s\n", msg.c_str());
    };
    const int sigFd = takeStopSignals();
    TuneResult result;
    std::string report, error;
    const TuneEnd end = runTune(o, sigFd, result, report, error);
    close(sigFd);
    if (end == TuneEnd::BadInput) {
        std::fprintf(stderr, "ringlab-engine: tune: %s\n", error.c_str());
        return 2;
    }
    std::fputs(report.c_str(), stdout);
    if (end == TuneEnd::Found && !o.saveProfile.empty()) {
        if (!saveTunedProfile(o, result, error)) {
            std::fprintf(stderr, "ringlab-engine: tune: --save-profile: %s\n", error.c_str());
            return 1;
        }
        std::printf("\nsaved as %s\n", o.saveProfile.c_str());
    }
    if (!error.empty()) std::fprintf(stderr, "ringlab-engine: tune: %s\n", error.c_str());
    return end == TuneEnd::Found ? 0 : 1;
}

} // namespace ringlab
