// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/reproduce_command.h"
#include "app/cli_model.h"
#include "drivers/registry_devices.h"
#include "engine/common/duration.h"
#include "engine/experiments/napi_reproduction.h"
#include "engine/profile/reference_cases.h"
#include <memory>

#include <unistd.h>

#include <cstdio>

#include "app/stop_signals.h"

namespace ringlab {

namespace {

// `reproduce napi`: IRQ suspension's cases on the kernel lab, one table at the end.
int reproduceNapi(ReproduceOptions o)
{
    o.progress = [](const std::string &msg) {
        std::fprintf(stderr, "ringlab-engine: reproduce %s\n", msg.c_str());
    };
    std::fputs(reproduceHeader(o, o.markdown).c_str(), stdout);
    std::fflush(stdout);
    const int sigFd = takeStopSignals();
    std::string error;
    std::vector<NapiRow> rows;
    const Outcome end = runNapiReproduction(o, sigFd, rows, error);
    close(sigFd);
    if (!rows.empty()) std::fputs(formatNapiReproduction(rows, o.markdown).c_str(), stdout);
    if (end != Outcome::Done) {
        std::fprintf(stderr, "ringlab-engine: reproduce: %s\n", error.c_str());
        return exitCode(end);
    }
    return 0;
}

} // namespace

int reproduceCommand(const ReproduceOptions &opts)
{
    ReproduceOptions o = opts;
    o.devices = &registryDevices();
    if (o.which == kNapiCaseName) return reproduceNapi(o);
    if (const auto cases = casesFor(o.which); !cases.ok()) {
        std::fprintf(stderr, "ringlab-engine: reproduce: %s\n", cases.error().c_str());
        return exitCode(cases.status().outcome());
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
    std::string error;
    const Outcome end = runReproduce(o, sigFd, error);
    close(sigFd);
    if (end != Outcome::Done)
        std::fprintf(stderr, "ringlab-engine: reproduce: %s\n", error.c_str());
    return exitCode(end);
}

Subcommand addReproduceCommand(CLI::App &app)
{
    struct Words {
        ReproduceOptions o;
        std::string duration = "5s", warmup = "1s";
    };
    auto w = std::make_shared<Words>();
    ReproduceOptions &rp = w->o;
    auto *reproduce = app.add_subcommand(
        "reproduce", "Run a reference case's before and after profiles, interleaved, and set the "
                     "seed's figures beside the measured ones");
    reproduce
        ->add_option("case", rp.which,
                     "Case: " + referenceCaseNames() + ", or all (the five seeds); or " +
                         std::string(kNapiCaseName) +
                         ": IRQ suspension's cases on the kernel lab (root)")
        ->required()
        ->type_name(kValueCase);
    reproduce->add_option("--repeat,-r", rp.repeat, "Runs of each profile")
        ->check(CLI::Range(1, 100));
    reproduce->add_option("--duration,-d", w->duration, "Length of each run")
        ->check(durationValidator(500'000'000));
    reproduce->add_option("--warmup", w->warmup, "Left out at the start of each run")
        ->check(durationValidator(0));
    reproduce->add_flag("--markdown", rp.markdown, "Print Markdown tables (docs/experiments.md)");
    reproduce
        ->add_option("--device", rp.device,
                     "sim (default) or lab, as for run; napi: kernel-lab, always")
        ->type_name(kValueDevice);
    reproduce->add_option("--traffic", rp.traffic, "With --device lab: a real client, as for run");
    addDbOption(reproduce, rp.db);
    return {reproduce, [w] {
                if (!warmupFits(w->warmup, w->duration, "reproduce")) return 2;
                w->o.durationNs = *parseDurationNs(w->duration);
                w->o.warmupS = durationSeconds(w->warmup);
                return reproduceCommand(w->o);
            }};
}

} // namespace ringlab
