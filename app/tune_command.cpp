// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/tune_command.h"
#include "app/cli_model.h"
#include "drivers/registry_devices.h"
#include "engine/common/duration.h"
#include <memory>

#include <unistd.h>

#include <cstdio>

#include "app/stop_signals.h"

namespace ringlab {

int tuneCommand(const TuneOptions &opts)
{
    TuneOptions o = opts;
    o.devices = &registryDevices();
    o.progress = [](const std::string &msg) {
        std::fprintf(stderr, "ringlab-engine: %s\n", msg.c_str());
    };
    const int sigFd = takeStopSignals();
    TuneResult result;
    std::string report, error;
    const Outcome end = runTune(o, sigFd, result, report, error);
    close(sigFd);
    if (end == Outcome::Refused) {
        std::fprintf(stderr, "ringlab-engine: tune: %s\n", error.c_str());
        return 2;
    }
    std::fputs(report.c_str(), stdout);
    const bool found = end == Outcome::Done && result.found;
    if (found && !o.saveProfile.empty()) {
        if (const Status st = saveTunedProfile(o, result); !st.ok()) {
            std::fprintf(stderr, "ringlab-engine: tune: --save-profile: %s\n", st.error.c_str());
            return 1;
        }
        std::printf("\nsaved as %s\n", o.saveProfile.c_str());
    }
    if (!error.empty()) std::fprintf(stderr, "ringlab-engine: tune: %s\n", error.c_str());
    // No setting that meets the constraints is not a success either.
    return found ? 0 : end == Outcome::Done ? 1 : exitCode(end);
}

Subcommand addTuneCommand(CLI::App &app)
{
    struct Words {
        TuneOptions o;
        std::string duration = "5s", warmup = "1s", minimize, maximize;
        std::vector<std::string> sets;
    };
    auto w = std::make_shared<Words>();
    TuneOptions &tn = w->o;
    auto *tune = app.add_subcommand(
        "tune", "Find the setting that minimises or maximises a metric subject to constraints, "
                "within a budget of runs");
    tune->add_option("--profile,-p", tn.profile, "Profile to start from")
        ->type_name(kValueProfile)
        ->capture_default_str();
    tune->add_option("--set,-s", w->sets, "Override a tunable: NAME=VALUE")
        ->type_name(kValueAssignment);
    auto *minOpt = tune->add_option("--minimize", w->minimize, "The metric to minimise")
                       ->type_name(kValueMetric);
    tune->add_option("--maximize", w->maximize, "The metric to maximise")
        ->type_name(kValueMetric)
        ->excludes(minOpt);
    tune->add_option("--subject-to", tn.constraints,
                     "A constraint, METRIC OP NUMBER with OP <=, <, >=, >, == (repeatable), "
                     "e.g. \"latency_p99_us<=200\"");
    tune->add_option("--over", tn.over,
                     "Tunables to search, NAME or NAME=LO..HI (comma-separated or repeated)")
        ->delimiter(',')
        ->type_name(kValueTunables)
        ->required();
    tune->add_option("--tie", tn.ties, "NAME=EXPRESSION, as for sweep")->type_name(kValueTie);
    tune->add_option("--budget", tn.budget, "Runs in all, repeats included")
        ->check(CLI::Range(4, 1000));
    tune->add_option("--duration,-d", w->duration, "Length of each run")
        ->check(durationValidator(500'000'000));
    tune->add_option("--warmup", w->warmup, "Left out at the start of each run")
        ->check(durationValidator(0));
    tune->add_option("--device", tn.device, "The runs' device, as for run (default: the profile's)")
        ->type_name(kValueDevice);
    tune->add_option("--traffic", tn.traffic, "With --device lab: a real client");
    tune->add_option("--save-profile", tn.saveProfile, "Write the answer as a profile file")
        ->type_name(kValueFile);
    addDbOption(tune, tn.db);
    return {tune, [w] {
                TuneOptions &o = w->o;
                if (!assignmentsFrom(w->sets, o.sets, "tune") ||
                    !warmupFits(w->warmup, w->duration, "tune"))
                    return 2;
                o.objective = w->minimize.empty() ? w->maximize : w->minimize;
                o.maximize = !w->maximize.empty();
                o.durationNs = *parseDurationNs(w->duration);
                o.warmupS = durationSeconds(w->warmup);
                return tuneCommand(o);
            }};
}

} // namespace ringlab
