// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/recorded_run.h"

#include <poll.h>

#include <algorithm>
#include <memory>

#include "drivers/registry.h"
#include "engine/clock.h"
#include "engine/engine.h"
#include "engine/recorder.h"

namespace ringlab {

RunEnd recordRun(const RecordedRun &run, SessionStore &store, int sigFd,
                 const std::function<bool()> &cancelled,
                 const std::function<void(const std::string &)> &say, std::int64_t &session)
{
    session = 0;
    DeviceOptions dev;
    dev.spec = run.device.empty() ? "sim" : run.device;
    dev.traffic = run.traffic;
    dev.trafficBoundS = static_cast<int>(run.durationNs / 1'000'000'000) + 1;
    std::unique_ptr<Engine> engine;
    try {
        engine = std::make_unique<Engine>(run.params, deviceFactory(dev), EngineOptions{});
    } catch (const std::exception &e) {
        say("device " + dev.spec + ": " + e.what());
        return RunEnd::Failed;
    }
    if (auto st = engine->checkDevice(); !st.ok()) {
        say(st.error);
        return RunEnd::Failed;
    }
    SessionInfo info;
    info.name = run.name;
    info.device = engine->deviceInfo().name;
    info.profile = run.profile;
    info.intervalS = 0.1;
    info.runGroup = run.group;
    info.repeatIndex = run.index;
    const std::int64_t id = store.createSession(info, run.params);
    session = id;
    if (!run.atStart.empty()) store.append(id, {}, run.atStart);
    auto recorder = std::make_shared<Recorder>(store.file(), id);
    engine->subscribe(recorder);
    try {
        engine->start();
    } catch (const std::exception &e) {
        say("cannot start " + run.profile + ": " + e.what());
        recorder->finish("failed");
        store.deleteSession(id);
        session = 0;
        return RunEnd::Failed;
    }
    const std::int64_t deadline = nowNs() + run.durationNs;
    bool interrupted = false;
    // In slices of at most 100 ms, so that a cancel from the desktop is seen soon.
    for (std::int64_t left; (left = deadline - nowNs()) > 0;) {
        pollfd fd{sigFd, POLLIN, 0};
        const auto ms =
            static_cast<int>(std::min<std::int64_t>(left + 999'999, 100'000'000) / 1'000'000);
        if (::poll(&fd, 1, ms) > 0 || (cancelled && cancelled())) {
            interrupted = true;
            break;
        }
    }
    engine->stop();
    engine.reset();
    recorder->finish(interrupted ? "interrupted" : "completed");
    if (recorder->samplesLost() > 0) {
        say("session " + std::to_string(id) + " lost " + std::to_string(recorder->samplesLost()) +
            " samples (" + recorder->lastError() + ")");
        return RunEnd::Failed;
    }
    return interrupted ? RunEnd::Interrupted : RunEnd::Completed;
}

} // namespace ringlab
