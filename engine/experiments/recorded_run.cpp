// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/recorded_run.h"

#include <poll.h>

#include <algorithm>
#include <memory>

#include "engine/datapath/clock.h"
#include "engine/run/run_service.h"

namespace ringlab {

Outcome recordRun(const RecordedRun &run, const DeviceProvider &devices, SessionStore &store,
                  int sigFd, const std::function<bool()> &cancelled,
                  const std::function<void(const std::string &)> &say, std::int64_t &session)
{
    session = 0;
    RunSetup setup = run.setup;
    if (setup.device.spec.empty()) setup.device.spec = DeviceOptions{}.spec;
    setup.device.trafficBoundS = static_cast<int>(run.durationNs / 1'000'000'000) + 1;
    RunService service(devices);
    if (const Status st = service.start(setup, &store); !st.ok()) {
        say(st.error);
        return Outcome::Failed;
    }
    session = service.sessionId();
    if (run.started) run.started(session);
    const std::int64_t deadline = nowNs() + run.durationNs;
    bool interrupted = false;
    // In slices of at most 50 ms, so that a cancel (a job's, the desktop's) is seen soon.
    for (std::int64_t left; (left = deadline - nowNs()) > 0;) {
        pollfd fd{sigFd, POLLIN, 0};
        const auto ms =
            static_cast<int>(std::min<std::int64_t>(left + 999'999, 50'000'000) / 1'000'000);
        if (::poll(&fd, 1, ms) > 0 || (cancelled && cancelled())) {
            interrupted = true;
            break;
        }
    }
    const RunOutcome out = service.stop(interrupted ? "interrupted" : "completed");
    if (const std::string what = store.rescueIfReplaced(out.session); !what.empty()) {
        say(what);
        return Outcome::Failed;
    }
    if (out.samplesLost > 0) {
        say("session " + std::to_string(out.session) + " lost " + std::to_string(out.samplesLost) +
            " samples (" + out.recordError + ")");
        return Outcome::Failed;
    }
    return interrupted ? Outcome::Interrupted : Outcome::Done;
}

} // namespace ringlab
