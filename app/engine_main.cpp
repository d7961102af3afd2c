// SPDX-License-Identifier: GPL-2.0-or-later
// ringlab-engine: the headless front end of the Ringlab engine.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <iostream>

#include "app/api_server.h"
#include "app/cli_model.h"
#include "app/devices_command.h"
#include "app/manual_pages.h"
#include "app/params_printer.h"
#include "app/reproduce_command.h"
#include "app/run_command.h"
#include "app/serve_command.h"
#include "app/session_commands.h"
#include "app/shell_completion.h"
#include "app/sweep_command.h"
#include "app/tune_command.h"
#include "drivers/registry.h"
#include "engine/common/duration.h"
#include "engine/common/utf8_text.h"
#include "engine/datapath/live_params.h"
#include "engine/git_revision.h"
#include "engine/profile/profile.h"
#include "engine/profile/reference_cases.h"
#include "engine/store/session_report.h"
#include "engine/version.h"

using namespace ringlab;

namespace {
// A CLI11 validator for durations, naming the option, the value and the accepted forms.
CLI::Validator durationValidator(std::int64_t minNs)
{
    return CLI::Validator(
        [minNs](std::string &v) -> std::string {
            const auto ns = parseDurationNs(v);
            if (!ns) return "\"" + v + "\" is not a duration (use e.g. 10s, 500ms, 2m)";
            if (*ns < minNs)
                return "\"" + v + "\" is too short (at least " + std::to_string(minNs / 1'000'000) +
                       " ms)";
            return {};
        },
        "DURATION");
}
// A session id: a positive integer that fits (a larger one must not saturate to another id).
CLI::Validator sessionIdValidator()
{
    return CLI::Validator(
        [](std::string &v) -> std::string {
            std::int64_t id = 0;
            const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), id);
            if (ec == std::errc::result_out_of_range)
                return "\"" + v + "\" is too large for a session id (at most 9223372036854775807)";
            if (ec != std::errc() || ptr != v.data() + v.size() || id < 1)
                return "\"" + v + "\" is not a session id (a positive integer)";
            return {};
        },
        "ID");
}
} // namespace

int main(int argc, char **argv)
{
    CLI::App app{"Ringlab engine: drive a NIC datapath, tune it live, measure what it costs",
                 "ringlab-engine"};
    app.set_version_flag("--version", std::string("ringlab-engine ") + RINGLAB_VERSION + " (" +
                                          RINGLAB_GIT_REVISION + ")");
    app.require_subcommand(1);

    auto *params = app.add_subcommand(
        "params", "List every tunable: type, unit, range, default, live or restart, explanation");
    bool paramsJson = false;
    params->add_flag("--json", paramsJson, "Print as JSON");

    std::string paramsDevice, paramsEal;
    params
        ->add_option("--device", paramsDevice,
                     "Also say what this device does with each tunable (e.g. dpdk:net_null0)")
        ->type_name(kValueDevice);
    params->add_option("--eal", paramsEal, "EAL arguments for a DPDK device");

    auto *profiles = app.add_subcommand("profiles", "List the profiles found and where");
    bool profileNames = false;
    profiles->add_flag("--names", profileNames, "Print only the names, one per line");

    auto *devices = app.add_subcommand(
        "devices", "List the devices: sim, the lab, DPDK ports (driver, link, what each supports)");
    bool devicesJson = false;
    devices->add_flag("--json", devicesJson, "Print as JSON");

    auto *run = app.add_subcommand(
        "run", "Run the engine, print samples, take live changes on standard input");
    RunOptions ro;
    std::string duration, interval = "100ms", warmup = "1s", output = "table";
    run->add_option("--profile,-p", ro.profile, "Profile name or path to a .json file")
        ->type_name(kValueProfile)
        ->capture_default_str();
    run->add_option("--set,-s", ro.sets, "Override a tunable: NAME=VALUE (repeatable)")
        ->type_name(kValueAssignment);
    run->add_option(
           "--duration,-d", duration,
           "Stop after this long (e.g. 10s); default: until 'quit', end of input or Ctrl+C")
        ->check(durationValidator(1'000'000));
    run->add_option("--interval,-i", interval, "Sample interval")
        ->check(durationValidator(10'000'000))
        ->capture_default_str();
    run->add_option("--warmup", warmup, "Left out of the summary")
        ->check(durationValidator(0))
        ->capture_default_str();
    run->add_option("--output,-o", output, "Output format")
        ->check(CLI::IsMember({"table", "jsonl"}))
        ->capture_default_str();
    run->add_option_function<std::string>(
        "--seed", [&ro](const std::string &v) { ro.sets.push_back("load.seed=" + v); },
        "Seed of the simulated traffic: the same as --set load.seed=N (default 1)");
    run->add_option("--device", ro.device,
                    "sim, lab, or dpdk:PORT[+PORT] (default: the profile's device, else sim); "
                    "see 'ringlab-engine devices'")
        ->type_name(kValueDevice);
    run->add_option("--eal", ro.eal, "Extra DPDK EAL arguments, e.g. \"-a 0000:03:00.0\"");
    run->add_option("--traffic", ro.traffic,
                    "With --device lab: a real client across the engine, \"ping -i 0.01\" or "
                    "\"iperf3 -u -b 0 -l 1460 -t 20\"");
    run->add_option("--name", ro.name, "Session name (default: the profile's name)");
    run->add_option("--metrics-listen", ro.metricsListen,
                    "Serve the run to Prometheus at http://HOST:PORT/metrics (a loopback address, "
                    "e.g. 127.0.0.1:9187; port 0 picks a free one)");
    auto *dbOpt = run->add_option("--db", ro.db,
                                  "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
                      ->type_name(kValueFile);
    run->add_flag(
           "--no-record", [&ro](std::int64_t) { ro.record = false; },
           "Do not record the run as a session")
        ->excludes(dbOpt);
    run->add_option("--repeat", ro.repeat,
                    "Run N times, each its own session in one group (needs --duration)")
        ->check(CLI::Range(1, 1000));

    auto *serve = app.add_subcommand(
        "serve", "Serve the engine's API (docs/api.md) to the desktop app and scripts");
    ServeOptions sv;
    serve->add_option("--listen", sv.listen,
                      "unix:PATH (default: " + defaultSocketPath() +
                          ") or tcp:HOST:PORT (needs --token-file)");
    serve
        ->add_option("--token-file", sv.tokenFile,
                     "A file only you can read (mode 0600) holding the bearer token TCP "
                     "clients must send")
        ->type_name(kValueFile);
    serve->add_flag("--metrics-public", sv.metricsPublic,
                    "Serve GET /metrics without the token (for Prometheus)");
    serve->add_option("--tls-cert", sv.tlsCert, "PEM certificate: serve HTTPS")
        ->type_name(kValueFile);
    serve->add_option("--tls-key", sv.tlsKey, "PEM private key of --tls-cert")
        ->type_name(kValueFile);
    auto *socketGroup =
        serve
            ->add_option("--socket-group", sv.socketGroup,
                         "Group of the Unix socket and of its directory (made 0750, that "
                         "group's); given, a group that cannot be set is refused")
            ->capture_default_str();
    serve
        ->add_option("--allow", sv.allow,
                     "Let clients start devices that need privilege, comma-separated: lab "
                     "(network namespaces), dpdk (TAP, af_packet, pcap and PCI ports)")
        ->delimiter(',')
        ->check(CLI::IsMember(deviceGrantNames()))
        ->type_name("GRANT");
    serve->add_option("--eal", sv.eal, "DPDK EAL arguments for the runs' DPDK devices");
    auto *serveDb =
        serve
            ->add_option("--db", sv.db,
                         "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
            ->type_name(kValueFile);
    serve
        ->add_flag(
            "--no-record", [&sv](std::int64_t) { sv.record = false; },
            "Do not record runs as sessions")
        ->excludes(serveDb);

    SessionsOptions so;
    std::string sessionsWarmup = "1s";
    auto *sessions = app.add_subcommand("sessions", "Work on recorded sessions");
    sessions->require_subcommand(1);
    sessions
        ->add_option("--db", so.db,
                     "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
        ->type_name(kValueFile);
    auto *sList = sessions->add_subcommand(
        "list", "id, name, start, duration, status, profile, mean throughput");
    auto *sShow = sessions->add_subcommand("show", "Parameters, segments with summaries, events");
    sShow->add_option("id", so.id, "Session id")->required()->check(sessionIdValidator());
    sShow->add_option("--warmup", sessionsWarmup, "Left out at the start of each segment")
        ->check(durationValidator(0));
    auto *sExport = sessions->add_subcommand(
        "export", "One row per sample (CSV), everything (JSON), or a database to import elsewhere");
    sExport->add_option("id", so.id, "Session id")->required()->check(sessionIdValidator());
    std::string formatHelp;
    std::vector<std::string> formats;
    for (const auto &f : kExportFormats) {
        formatHelp += std::string(formatHelp.empty() ? "" : "; ") + std::string(f.name) + ": " +
                      std::string(f.help);
        formats.emplace_back(f.name);
    }
    sExport->add_option("--format,-f", so.format, formatHelp)
        ->check(CLI::IsMember(formats))
        ->capture_default_str();
    sExport->add_option("-o,--output", so.output, "File to write (default: standard output)")
        ->type_name(kValueFile);
    sExport->add_flag("--force", so.force,
                      "Replace an existing SQLite database given as --output (never the one "
                      "being read)");
    auto *sDelete =
        sessions->add_subcommand("delete", "Delete a session and everything recorded with it");
    sDelete->add_option("id", so.id, "Session id")->required()->check(sessionIdValidator());
    auto *sImport = sessions->add_subcommand(
        "import", "Merge the sessions of another database (e.g. from another host)");
    sImport->add_option("file", so.other, "The other database")->required()->type_name(kValueFile);
    for (auto *sub : {sList, sShow, sExport, sDelete, sImport})
        sub->add_option("--db", so.db,
                        "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
            ->type_name(kValueFile);

    auto *compare =
        app.add_subcommand("compare", "Compare two sessions or segments metric by metric");
    std::string compareWarmup = "1s";
    compare->add_option("a", so.a, "A: session ID or segment ID:SEG")->required();
    compare->add_option("b", so.b, "B: session ID or segment ID:SEG")->required();
    compare
        ->add_option("--metric,-m", so.metrics,
                     "Metric to compare, e.g. rx_pps or cpu_ms_per_s[refill] (repeatable)")
        ->type_name(kValueMetric);
    compare->add_option("--warmup", compareWarmup, "Left out at the start of each run or segment")
        ->check(durationValidator(0));
    compare
        ->add_option("--db", so.db,
                     "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
        ->type_name(kValueFile);

    ReproduceOptions rp;
    std::string rpDuration = "5s", rpWarmup = "1s";
    auto *reproduce = app.add_subcommand(
        "reproduce", "Run a reference case's before and after profiles, interleaved, and set the "
                     "seed's figures beside the measured ones");
    reproduce->add_option("case", rp.which, "Case: " + referenceCaseNames() + ", or all")
        ->required()
        ->type_name(kValueCase);
    reproduce->add_option("--repeat,-r", rp.repeat, "Runs of each profile")
        ->check(CLI::Range(1, 100));
    reproduce->add_option("--duration,-d", rpDuration, "Length of each run")
        ->check(durationValidator(500'000'000));
    reproduce->add_option("--warmup", rpWarmup, "Left out at the start of each run")
        ->check(durationValidator(0));
    reproduce->add_flag("--markdown", rp.markdown, "Print Markdown tables (docs/experiments.md)");
    reproduce->add_option("--device", rp.device, "sim (default) or lab, as for run")
        ->type_name(kValueDevice);
    reproduce->add_option("--traffic", rp.traffic, "With --device lab: a real client, as for run");
    reproduce
        ->add_option("--db", rp.db,
                     "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
        ->type_name(kValueFile);

    SweepOptions sw;
    std::string swDuration = "5s", swWarmup = "1s", swFormat = "table", swShow;
    std::vector<std::string> swVary, swGrid, swTie, swSets;
    bool swList = false;
    auto *sweep = app.add_subcommand(
        "sweep", "Run one point per setting of the swept tunables (lists, ranges, grids, ties), "
                 "each repeated; print every point with 95 % intervals and the Pareto front");
    sweep->add_option("--profile,-p", sw.spec.profile, "Profile every point starts from")
        ->type_name(kValueProfile)
        ->capture_default_str();
    sweep->add_option("--set,-s", swSets, "Override a tunable for every point: NAME=VALUE")
        ->type_name(kValueAssignment);
    sweep->add_option("--vary", swVary, "NAME=V1,V2,...: one axis, these values (repeatable)")
        ->type_name(kValueAxis);
    sweep
        ->add_option("--grid", swGrid,
                     "NAME=LO..HI[:lin|:log][:N] or NAME=V1,V2,...: one axis (repeatable; the "
                     "axes are crossed)")
        ->type_name(kValueAxis);
    sweep
        ->add_option("--tie", swTie,
                     "NAME=EXPRESSION computed at every point, e.g. "
                     "poll.sleep_max_us=2*poll.sleep_min_us (repeatable)")
        ->type_name(kValueTie);
    sweep->add_option("--repeat,-r", sw.spec.repeat, "Runs per point")->check(CLI::Range(1, 100));
    sweep->add_option("--duration,-d", swDuration, "Length of each run")
        ->check(durationValidator(500'000'000));
    sweep->add_option("--warmup", swWarmup, "Left out at the start of each run")
        ->check(durationValidator(0));
    sweep->add_option("--device", sw.spec.device, "sim (default) or lab, as for run")
        ->type_name(kValueDevice);
    sweep->add_option("--traffic", sw.spec.traffic, "With --device lab: a real client");
    sweep
        ->add_option("--metric,-m", sw.metrics,
                     "A metric of the table and the front (repeatable; default "
                     "engine_cpu_ms_per_s, latency_p99_us, rx_pps)")
        ->type_name(kValueMetric);
    sweep->add_option("--format,-f", swFormat, "How the result is printed")
        ->check(CLI::IsMember({"table", "csv", "json"}))
        ->capture_default_str();
    sweep->add_option("--resume", sw.resume, "Continue an interrupted sweep by its id");
    sweep->add_flag("--list", swList, "List the sweeps in the database");
    sweep->add_option("--show", swShow, "Print a recorded sweep's table (no run)");
    sweep
        ->add_option("--db", sw.db,
                     "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
        ->type_name(kValueFile);

    TuneOptions tn;
    std::string tnDuration = "5s", tnWarmup = "1s", tnMin, tnMax;
    std::vector<std::string> tnSets;
    auto *tuneCmd = app.add_subcommand(
        "tune", "Find the setting that minimises or maximises a metric subject to constraints, "
                "within a budget of runs");
    tuneCmd->add_option("--profile,-p", tn.profile, "Profile to start from")
        ->type_name(kValueProfile)
        ->capture_default_str();
    tuneCmd->add_option("--set,-s", tnSets, "Override a tunable: NAME=VALUE")
        ->type_name(kValueAssignment);
    auto *minOpt =
        tuneCmd->add_option("--minimize", tnMin, "The metric to minimise")->type_name(kValueMetric);
    tuneCmd->add_option("--maximize", tnMax, "The metric to maximise")
        ->type_name(kValueMetric)
        ->excludes(minOpt);
    tuneCmd->add_option("--subject-to", tn.constraints,
                        "A constraint, METRIC OP NUMBER with OP <=, <, >=, >, == (repeatable), "
                        "e.g. \"latency_p99_us<=200\"");
    tuneCmd
        ->add_option("--over", tn.over,
                     "Tunables to search, NAME or NAME=LO..HI (comma-separated or repeated)")
        ->delimiter(',')
        ->type_name(kValueTunables)
        ->required();
    tuneCmd->add_option("--tie", tn.ties, "NAME=EXPRESSION, as for sweep")->type_name(kValueTie);
    tuneCmd->add_option("--budget", tn.budget, "Runs in all, repeats included")
        ->check(CLI::Range(4, 1000));
    tuneCmd->add_option("--duration,-d", tnDuration, "Length of each run")
        ->check(durationValidator(500'000'000));
    tuneCmd->add_option("--warmup", tnWarmup, "Left out at the start of each run")
        ->check(durationValidator(0));
    tuneCmd->add_option("--device", tn.device, "sim (default) or lab")->type_name(kValueDevice);
    tuneCmd->add_option("--traffic", tn.traffic, "With --device lab: a real client");
    tuneCmd->add_option("--save-profile", tn.saveProfile, "Write the answer as a profile file")
        ->type_name(kValueFile);
    tuneCmd
        ->add_option("--db", tn.db,
                     "Session database (default: $XDG_DATA_HOME/ringlab/sessions.db)")
        ->type_name(kValueFile);

    auto *completion = app.add_subcommand(
        "completion", "Print a shell completion script (bash: source it, or install it as "
                      "/usr/share/bash-completion/completions/ringlab-engine)");
    std::string shell;
    completion->add_option("shell", shell, "The shell")
        ->required()
        ->check(CLI::IsMember(completionShells()));
    // The manual page, for the build; not a user's command.
    auto *manual = app.add_subcommand("manual", "Print the manual page (roff)")->group("");

    // An unknown command gets its own message, not CLI11's "A subcommand is required".
    if (argc > 1 && argv[1][0] != '-') {
        std::string known;
        bool found = false;
        for (const auto *sub : app.get_subcommands({})) {
            known += (known.empty() ? "" : ", ") + sub->get_name();
            found |= sub->get_name() == argv[1];
        }
        if (!found) {
            std::fprintf(stderr,
                         "ringlab-engine: unknown command \"%s\" (allowed: %s; see --help)\n",
                         utf8OrEscaped(argv[1]).c_str(), known.c_str());
            return 2;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        // --help and --version end here with 0; every mistake in the command line with 2.
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }

    auto dispatch = [&]() -> int {
        if (params->parsed()) {
            const ParamSet defaults;
            std::vector<TunableSupport> support;
            if (!paramsDevice.empty()) {
                DeviceOptions dev;
                dev.spec = paramsDevice;
                dev.eal = splitEalArgs(paramsEal);
                if (auto st = checkDeviceOptions(dev); !st.ok()) {
                    std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
                    return 2;
                }
                try {
                    const LiveParams live(defaults);
                    support = createDevice(dev, defaults, live)->support();
                } catch (const std::exception &e) {
                    std::fprintf(stderr, "ringlab-engine: device %s: %s\n", paramsDevice.c_str(),
                                 e.what());
                    return 1;
                }
            }
            paramsJson ? printParamsJson(std::cout, defaults, support)
                       : printParamsText(std::cout, defaults, support);
            return 0;
        }
        if (devices->parsed()) return devicesCommand(devicesJson);
        if (completion->parsed()) {
            std::fputs(completionScript(describeCli(app), shell).c_str(), stdout);
            return 0;
        }
        if (manual->parsed()) {
            std::fputs(engineManual(describeCli(app)).c_str(), stdout);
            return 0;
        }
        if (serve->parsed()) {
            sv.socketGroupGiven = socketGroup->count() > 0;
            return serveCommand(sv);
        }
        if (profiles->parsed()) {
            std::vector<std::string> problems;
            const auto found = listProfiles(&problems);
            if (profileNames) {
                for (const auto &p : found)
                    std::printf("%s\n", terminalText(p.name).c_str());
                return 0;
            }
            for (const auto &p : found)
                std::printf("%-22s %s\n%-22s %s\n", terminalText(p.name).c_str(),
                            terminalText(p.description).c_str(), "", p.file.c_str());
            for (const auto &e : problems) // a file the user dropped in, and why it is not listed
                std::fprintf(stderr, "ringlab-engine: skipped %s\n", terminalText(e).c_str());
            return 0;
        }
        if (sessions->parsed()) {
            so.warmupS = static_cast<double>(*parseDurationNs(sessionsWarmup)) / 1e9;
            if (sList->parsed()) return sessionsList(so);
            if (sShow->parsed()) return sessionsShow(so);
            if (sExport->parsed()) return sessionsExport(so);
            if (sDelete->parsed()) return sessionsDelete(so);
            if (sImport->parsed()) return sessionsImport(so);
        }
        if (compare->parsed()) {
            so.warmupS = static_cast<double>(*parseDurationNs(compareWarmup)) / 1e9;
            return compareCommand(so);
        }
        if (reproduce->parsed()) {
            rp.durationNs = *parseDurationNs(rpDuration);
            rp.warmupS = static_cast<double>(*parseDurationNs(rpWarmup)) / 1e9;
            if (rp.warmupS * 1e9 >= static_cast<double>(rp.durationNs)) {
                std::fprintf(stderr,
                             "ringlab-engine: reproduce: --warmup %s leaves nothing of --duration "
                             "%s to measure\n",
                             rpWarmup.c_str(), rpDuration.c_str());
                return 2;
            }
            return reproduceCommand(rp);
        }
        // The name=value pairs of --set, for sweep and tune.
        auto assignments = [](const std::vector<std::string> &sets, Assignments &out,
                              const char *cmd) {
            for (const auto &kv : sets) {
                const auto eq = kv.find('=');
                if (eq == std::string::npos || eq == 0) {
                    std::fprintf(stderr, "ringlab-engine: %s: --set \"%s\" is not NAME=VALUE\n",
                                 cmd, kv.c_str());
                    return false;
                }
                out.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
            }
            return true;
        };
        auto warmupFits = [](const std::string &w, const std::string &d, const char *cmd) {
            if (*parseDurationNs(w) < *parseDurationNs(d)) return true;
            std::fprintf(stderr,
                         "ringlab-engine: %s: --warmup %s leaves nothing of --duration %s to "
                         "measure\n",
                         cmd, w.c_str(), d.c_str());
            return false;
        };
        if (sweep->parsed()) {
            const SweepFormat fmt = swFormat == "csv"    ? SweepFormat::Csv
                                    : swFormat == "json" ? SweepFormat::Json
                                                         : SweepFormat::Table;
            if (swList) return sweepListCommand(sw.db);
            if (!swShow.empty()) return sweepShowCommand(sw.db, swShow, sw.metrics, fmt);
            sw.format = fmt;
            if (!assignments(swSets, sw.spec.sets, "sweep") ||
                !warmupFits(swWarmup, swDuration, "sweep"))
                return 2;
            sw.spec.durationNs = *parseDurationNs(swDuration);
            sw.spec.warmupS = static_cast<double>(*parseDurationNs(swWarmup)) / 1e9;
            for (const auto &[texts, grid] : {std::pair{&swVary, false}, std::pair{&swGrid, true}})
                for (const auto &text : *texts) {
                    SweepAxis axis;
                    const Status st = grid ? parseGridAxis(text, axis) : parseVaryAxis(text, axis);
                    if (!st.ok()) {
                        std::fprintf(stderr, "ringlab-engine: sweep: %s\n", st.error.c_str());
                        return 2;
                    }
                    sw.spec.axes.push_back(axis);
                }
            for (const auto &text : swTie) {
                SweepTie tie;
                if (auto st = parseTie(text, tie); !st.ok()) {
                    std::fprintf(stderr, "ringlab-engine: sweep: %s\n", st.error.c_str());
                    return 2;
                }
                sw.spec.ties.push_back(tie);
            }
            if (auto st = orderTies(sw.spec.ties); !st.ok()) {
                std::fprintf(stderr, "ringlab-engine: sweep: %s\n", st.error.c_str());
                return 2;
            }
            if (sw.resume.empty() && sw.spec.axes.empty()) {
                std::fprintf(stderr, "ringlab-engine: sweep: nothing to sweep: give --vary or "
                                     "--grid (or --resume ID, --list, --show ID)\n");
                return 2;
            }
            return sweepCommand(sw);
        }
        if (tuneCmd->parsed()) {
            if (!assignments(tnSets, tn.sets, "tune") || !warmupFits(tnWarmup, tnDuration, "tune"))
                return 2;
            tn.objective = tnMin.empty() ? tnMax : tnMin;
            tn.maximize = !tnMax.empty();
            tn.durationNs = *parseDurationNs(tnDuration);
            tn.warmupS = static_cast<double>(*parseDurationNs(tnWarmup)) / 1e9;
            return tuneCommand(tn);
        }
        if (run->parsed()) {
            if (!duration.empty()) ro.durationNs = *parseDurationNs(duration);
            ro.intervalNs = *parseDurationNs(interval);
            ro.warmupS = static_cast<double>(*parseDurationNs(warmup)) / 1e9;
            ro.output = output == "jsonl" ? OutputFormat::Jsonl : OutputFormat::Table;
            return runCommand(ro);
        }
        return 0;
    };
    // Every subcommand's failure is a message and an exit code, never an abort: a database
    // damaged where SQLite only notices mid-query, for one, throws from deep inside.
    try {
        return dispatch();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ringlab-engine: %s\n", e.what());
        return 1;
    }
}
