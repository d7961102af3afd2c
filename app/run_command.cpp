// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/run_command.h"
#include "app/cli_model.h"
#include "engine/common/duration.h"
#include <memory>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "app/console_commands.h"
#include "app/line_splitter.h"
#include "app/metrics_endpoint.h"
#include "app/stop_signals.h"
#include "app/summary_collector.h"
#include "drivers/registry.h"
#include "drivers/registry_devices.h"
#include "engine/datapath/clock.h"
#include "engine/metrics/prometheus_exporter.h"
#include "engine/run/run_service.h"

namespace ringlab {

namespace {

// Reads whole lines from a non-blocking descriptor.
class LineReader {
  public:
    explicit LineReader(int fd) : fd_(fd) {}
    // False at end of input.
    bool read(std::vector<std::string> &lines)
    {
        char buf[4096];
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n == 0) {
            splitter_.finish(lines);
            return false;
        }
        if (n < 0) return errno == EAGAIN || errno == EINTR;
        std::vector<std::string> errors;
        splitter_.feed(std::string_view(buf, static_cast<std::size_t>(n)), lines, errors);
        for (const auto &e : errors)
            std::fprintf(stderr, "error: %s\n", e.c_str());
        return true;
    }

  private:
    int fd_;
    LineSplitter splitter_;
};

enum class Ended { Duration, Quit, Signal, OutputClosed, Failed };

// One run of a started service, until the duration, 'quit', end of input, a signal, the
// end of standard output (outFd: the printer found it closed) or a change whose restart
// failed twice (the service has ended the run, its session `failed`).
Ended runOnce(const RunOptions &o, RunService &service, int sigFd, int outFd,
              SamplePrinter &printer, bool &stdinOpen)
{
    const bool interactive = isatty(STDIN_FILENO);
    ConsoleCommands console(service, printer, interactive ? "user" : "script", stderr);
    LineReader reader(STDIN_FILENO);
    const int flags = fcntl(STDIN_FILENO, F_GETFL);
    if (flags < 0 || fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK) != 0) stdinOpen = false;
    const std::int64_t deadline = o.durationNs >= 0 ? nowNs() + o.durationNs : -1;
    Ended ended = Ended::Duration;
    for (bool done = false; !done;) {
        pollfd fds[3] = {
            {sigFd, POLLIN, 0}, {stdinOpen ? STDIN_FILENO : -1, POLLIN, 0}, {outFd, POLLIN, 0}};
        int timeoutMs = -1;
        if (deadline >= 0) {
            const std::int64_t left = deadline - nowNs();
            if (left <= 0) break;
            timeoutMs = static_cast<int>((left + 999'999) / 1'000'000);
        }
        if (::poll(fds, 3, timeoutMs) < 0 && errno != EINTR) break;
        if (fds[2].revents & POLLIN) {
            // The reader of standard output went away: a stop, recorded as such.
            const std::string why = "output closed: standard output cannot be written (" +
                                    printer.closedReason() + "); the run stopped";
            service.engine().warn("stdout", why);
            std::fprintf(stderr, "ringlab-engine: %s\n", why.c_str());
            ended = Ended::OutputClosed;
            break;
        }
        if (fds[0].revents & POLLIN) {
            signalfd_siginfo si;
            [[maybe_unused]] auto r = ::read(sigFd, &si, sizeof si);
            std::fprintf(stderr, "ringlab-engine: %s, stopping\n",
                         strsignal(static_cast<int>(si.ssi_signo)));
            ended = Ended::Signal;
            break;
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            std::vector<std::string> lines;
            stdinOpen = reader.read(lines);
            for (const auto &line : lines)
                if (!console.execute(line)) {
                    ended = console.runEnded() ? Ended::Failed : Ended::Quit;
                    done = true;
                }
            // Without a duration, end of input ends the run, as with a pipe of commands.
            if (!done && !stdinOpen && deadline < 0) {
                ended = Ended::Quit;
                done = true;
            }
        }
    }
    if (flags >= 0) fcntl(STDIN_FILENO, F_SETFL, flags);
    // Not stop(): that would wait for standard output's reader before the session is
    // finished (RunService::stop finishes it first).
    if (service.running()) service.engine().halt();
    return ended;
}

std::unique_ptr<SessionStore> openStore(const RunOptions &o)
{
    const std::filesystem::path path =
        o.db.empty() ? SessionStore::defaultPath() : std::filesystem::path(o.db);
    try {
        return std::make_unique<SessionStore>(path);
    } catch (const DbError &e) {
        std::fprintf(
            stderr, "ringlab-engine: cannot record: %s (use --db FILE elsewhere, or --no-record)\n",
            e.what());
        return nullptr;
    }
}

// A database file replaced (or moved away) while its session was recorded holds none of it:
// says so and where the run was saved. False when nothing happened.
bool reportReplacedDatabase(SessionStore &store, std::int64_t session)
{
    const std::string what = store.rescueIfReplaced(session);
    if (!what.empty()) std::fprintf(stderr, "ringlab-engine: %s\n", what.c_str());
    return !what.empty();
}

// The profile with --set's assignments over it. False, having said why, when either is wrong.
bool resolveRunProfile(const RunOptions &options, ResolvedProfile &resolved)
{
    Assignments overrides;
    if (auto st = parseAssignments(options.sets, overrides); !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
        return false;
    }
    if (auto st =
            resolveProfile(options.profile, overrides, resolved, options.device, deviceDefaults);
        !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
        return false;
    }
    return true;
}

// What the service is started with: the parameters, the device, the interval, the name.
RunSetup makeRunSetup(const RunOptions &options, const ResolvedProfile &resolved)
{
    const Profile &profile = resolved.profile;
    RunSetup setup;
    setup.params = resolved.params;
    setup.profile = profile.name;
    setup.device.spec = options.device.empty() ? profile.device : options.device;
    setup.device.eal = splitEalArgs(options.eal);
    setup.device.traffic = options.traffic;
    if (options.durationNs >= 0)
        setup.device.trafficBoundS = static_cast<int>(options.durationNs / 1'000'000'000) + 1;
    setup.intervalNs = options.intervalNs;
    setup.sessionName = options.name;
    if (setup.sessionName.empty()) { // the profile, and what --set changed in it
        setup.sessionName = profile.name;
        for (const auto &s : options.sets)
            setup.sessionName += " " + s;
    }
    return setup;
}

// The device's options checked. False, having said why, when they are refused.
bool checkRunDevice(const RunOptions &options, const Profile &profile, const RunSetup &setup)
{
    if (auto st = checkDeviceOptions(setup.device); !st.ok()) {
        if (options.device.empty()) // the device came from the profile: say so
            std::fprintf(stderr, "ringlab-engine: profile %s: %s\n", profile.file.c_str(),
                         st.error.c_str());
        else
            std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
        return false;
    }
    return true;
}

// The options checked and the run's setup made, before anything starts: the profile, --repeat,
// the device and --metrics-listen's address. False, having said why, when one is refused.
bool prepareRun(const RunOptions &options, ResolvedProfile &resolved, RunSetup &setup,
                std::string &metricsHost, int &metricsPort)
{
    if (!resolveRunProfile(options, resolved)) return false;
    if (options.repeat > 1 && options.durationNs < 0) {
        std::fprintf(stderr,
                     "ringlab-engine: --repeat %d needs --duration (each repeat must be as long as "
                     "the others)\n",
                     options.repeat);
        return false;
    }
    setup = makeRunSetup(options, resolved);
    if (!checkRunDevice(options, resolved.profile, setup)) return false;
    if (!options.metricsListen.empty())
        if (auto st = parseLoopbackListen(options.metricsListen, metricsHost, metricsPort);
            !st.ok()) {
            std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
            return false;
        }
    return true;
}

// The database a recorded run writes to (saying what opening it found interrupted), or null.
std::unique_ptr<SessionStore> openRecordingStore(const RunOptions &options)
{
    std::unique_ptr<SessionStore> store = openStore(options);
    if (store && store->interruptedOnOpen())
        std::fprintf(stderr,
                     "ringlab-engine: %d session(s) left running by a process that is gone "
                     "were marked interrupted\n",
                     store->interruptedOnOpen());
    return store;
}

// Serves the run to Prometheus: each scrape reads `exporter` (the current repeat's). False,
// having said why, when the endpoint cannot listen.
bool startMetricsEndpoint(MetricsEndpoint &endpoint, const std::string &metricsHost,
                          int metricsPort, std::mutex &exporterMutex,
                          const std::shared_ptr<PrometheusExporter> &exporter)
{
    const Status st = endpoint.start(metricsHost, metricsPort, [&exporterMutex, &exporter] {
        std::lock_guard lock(exporterMutex);
        // `run` serves its endpoint only while it runs: the run is active from its first
        // exporter on.
        return promEngineInfo(exporter != nullptr) + (exporter ? exporter->text() : std::string());
    });
    if (!st.ok()) {
        std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
        return false;
    }
    std::fprintf(stderr, "ringlab-engine: Prometheus metrics at http://%s%s%s:%d/metrics\n",
                 metricsHost.find(':') != std::string::npos ? "[" : "", metricsHost.c_str(),
                 metricsHost.find(':') != std::string::npos ? "]" : "", endpoint.port());
    return true;
}

// One repeat's subscribers: its printer and, with --metrics-listen, a new exporter, made the
// one the endpoint serves.
std::vector<std::shared_ptr<Subscriber>>
repeatSubscribers(const RunOptions &options, const RunSetup &setup, const Profile &profile,
                  SamplePrinter &printer, std::mutex &exporterMutex,
                  std::shared_ptr<PrometheusExporter> &exporter)
{
    const std::shared_ptr<Subscriber> printing(&printer, [](Subscriber *) {});
    std::vector<std::shared_ptr<Subscriber>> subscribers{printing};
    if (!options.metricsListen.empty()) {
        auto e = std::make_shared<PrometheusExporter>(
            PrometheusExporter::RunLabels{0, setup.device.spec, profile.name}, setup.params);
        subscribers.push_back(e);
        std::lock_guard lock(exporterMutex);
        exporter = e;
    }
    return subscribers;
}

// Says what runs (with the first repeat) and, with --repeat, which repeat and the time left.
void announceRepeat(const RunOptions &options, const Profile &profile, const RunService &service,
                    int index)
{
    if (index == 1)
        std::fprintf(stderr, "ringlab-engine: profile %s (%s) on %s; %s\n", profile.name.c_str(),
                     profile.file.c_str(), service.deviceInfo().name.c_str(),
                     options.durationNs >= 0 ? "running for the given duration"
                                             : "running until 'quit', end of input or Ctrl+C");
    if (index == 1 && isatty(STDIN_FILENO)) std::fprintf(stderr, "type 'help' for commands\n");
    if (options.repeat > 1) {
        // Each repeat runs for --duration (required with --repeat): the time left follows.
        const double left = static_cast<double>(options.repeat - index + 1) *
                            static_cast<double>(options.durationNs) / 1e9;
        std::fprintf(stderr, "ringlab-engine: run %d of %d, about %.*f s left\n", index,
                     options.repeat, left < 10 ? 1 : 0, left);
    }
}

// How a run's session ended. Its own duration, 'quit', and Ctrl+C or end of input on a run
// without a duration (the user's stop) complete it. A signal that cuts a timed run short, or
// the reader of standard output going away, interrupt it: it is not a whole run, and a
// group's statistics leave it out. A restart that failed twice, or an output that cannot be
// written (a full disk, an I/O error), fail it.
const char *endStatus(const RunOptions &o, Ended ended, int outErrno)
{
    switch (ended) {
    case Ended::Duration:
    case Ended::Quit:
        return "completed";
    case Ended::Signal:
        return o.durationNs >= 0 ? "interrupted" : "completed";
    case Ended::OutputClosed:
        return outErrno == EPIPE ? "interrupted" : "failed";
    case Ended::Failed:
        break;
    }
    return "failed";
}

// Stops the repeat's run, prints its summary and says what the run left behind: standard
// output lost, the database replaced, samples lost, the session recorded. False when the
// repeats end here (exitCode is 1 when they end for a failure or an interruption; a closed
// pipe ends them with 0, as `head` expects).
bool finishRepeat(const RunOptions &o, RunService &service, SamplePrinter &printer,
                  const SummaryCollector &summary, SessionStore *store, Ended ended, int &exitCode)
{
    const std::string status = endStatus(o, ended, printer.closedErrno());
    const RunOutcome out = service.stop(status);
    printer.printSummary(summary.summary());
    if (printer.closed() && ended != Ended::OutputClosed)
        std::fprintf(stderr,
                     "ringlab-engine: standard output closed after the run (%s): its last "
                     "lines and the summary were not written\n",
                     printer.closedReason().c_str());
    if (printer.droppedLines() > 0)
        std::fprintf(stderr,
                     "ringlab-engine: standard output fell behind: %llu lines were dropped "
                     "while its reader did not read (samples and events, its stop among "
                     "them); the summary covers all %zu samples%s\n",
                     static_cast<unsigned long long>(printer.droppedLines()), summary.samplesSeen(),
                     store && out.samplesLost == 0 ? " and the session has every one" : "");
    if (store && reportReplacedDatabase(*store, out.session)) {
        exitCode = 1;
        return false;
    }
    if (out.samplesLost > 0) {
        // Say what the database is missing, and fail: a script must not take it as whole.
        std::fprintf(stderr,
                     "ringlab-engine: session %lld in %s is incomplete: %llu of %zu samples "
                     "were written, %llu lost (%s); it is marked failed (or interrupted, when even "
                     "that could not be written)\n",
                     static_cast<long long>(out.session), store->file().c_str(),
                     static_cast<unsigned long long>(out.samplesWritten), printer.sampleCount(),
                     static_cast<unsigned long long>(out.samplesLost), out.recordError.c_str());
        exitCode = 1;
        return false;
    }
    if (store)
        std::fprintf(stderr, "ringlab-engine: recorded as session %lld in %s\n",
                     static_cast<long long>(out.session), store->file().c_str());
    if (status == "failed") {
        if (ended == Ended::OutputClosed)
            std::fprintf(stderr,
                         "ringlab-engine: standard output could not be written (%s): the run "
                         "failed%s\n",
                         printer.closedReason().c_str(),
                         store ? " (its session has every sample up to then)" : "");
        exitCode = 1;
        return false;
    }
    if (status == "interrupted" && ended == Ended::Signal) {
        if (o.repeat > 1)
            std::fprintf(stderr,
                         "ringlab-engine: the repeats were interrupted: this one is recorded as "
                         "interrupted and left out of the group's statistics\n");
        exitCode = 1;
        return false;
    }
    // quit, a signal or a closed output ends the repeats too
    return ended == Ended::Duration;
}

} // namespace

int runCommand(const RunOptions &o)
{
    ResolvedProfile resolved;
    RunSetup setup;
    std::string metricsHost;
    int metricsPort = 0;
    if (!prepareRun(o, resolved, setup, metricsHost, metricsPort)) return 2;
    const Profile &profile = resolved.profile;
    // A run asked to record that cannot open its database fails before it starts.
    std::unique_ptr<SessionStore> store;
    if (o.record) {
        store = openRecordingStore(o);
        if (!store) return 1;
    }

    // Signals are taken through a descriptor; engine threads inherit the blocked mask. A
    // reader of standard output that goes away is an EPIPE from write(), not a signal that
    // kills the process before its session is finished.
    ::signal(SIGPIPE, SIG_IGN);
    const int sigFd = takeStopSignals();
    const int outFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    // After the signals are blocked: the server's threads inherit the mask. Prometheus's
    // scrapes read the current run's exporter (a new one for each repeat).
    std::mutex exporterMutex;
    std::shared_ptr<PrometheusExporter> exporter;
    MetricsEndpoint endpoint;
    if (!o.metricsListen.empty() &&
        !startMetricsEndpoint(endpoint, metricsHost, metricsPort, exporterMutex, exporter)) {
        close(sigFd);
        close(outFd);
        return 2;
    }

    RunService service(registryDevices(), [](const std::string &msg) {
        std::fprintf(stderr, "ringlab-engine: recording: %s\n", msg.c_str());
    });
    const std::string baseName = setup.sessionName;
    int exitCode = 0;
    bool stdinOpen = true;
    for (int k = 1; k <= o.repeat; ++k) {
        if (o.repeat > 1) {
            if (setup.runGroup.empty()) setup.runGroup = "group-" + isoTimeNow();
            setup.repeatIndex = k;
            setup.sessionName = baseName + " #" + std::to_string(k);
        }
        SamplePrinter printer(o.output, stdout, o.warmupS);
        printer.setOnClosed([outFd] {
            const std::uint64_t one = 1;
            [[maybe_unused]] auto r = ::write(outFd, &one, sizeof one);
        });
        auto subscribers = repeatSubscribers(o, setup, profile, printer, exporterMutex, exporter);
        // The closing summary covers every sample, however slow standard output's reader.
        const auto summary = std::make_shared<SummaryCollector>(o.warmupS);
        subscribers.push_back(summary);
        // The parameters first, once the device has taken them, then the start event.
        const auto header = [&] { printer.printParams(profile.name, setup.params); };
        if (const Status st = service.start(setup, store.get(), subscribers, header); !st.ok()) {
            std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
            exitCode = ringlab::exitCode(st);
            break;
        }
        if (exporter)
            exporter->setRun({service.sessionId(), service.deviceInfo().name, profile.name});
        announceRepeat(o, profile, service, k);
        const Ended ended = runOnce(o, service, sigFd, outFd, printer, stdinOpen);
        if (!finishRepeat(o, service, printer, *summary, store.get(), ended, exitCode)) break;
    }
    close(sigFd);
    close(outFd);
    return exitCode;
}

Subcommand addRunCommand(CLI::App &app)
{
    struct Words {
        RunOptions o;
        std::string duration, interval = "100ms", warmup = "1s", output = "table";
    };
    auto w = std::make_shared<Words>();
    RunOptions &ro = w->o;
    auto *run = app.add_subcommand(
        "run", "Run the engine, print samples, take live changes on standard input");
    run->add_option("--profile,-p", ro.profile, "Profile name or path to a .json file")
        ->type_name(kValueProfile)
        ->capture_default_str();
    run->add_option("--set,-s", ro.sets, "Override a tunable: NAME=VALUE (repeatable)")
        ->type_name(kValueAssignment);
    run->add_option(
           "--duration,-d", w->duration,
           "Stop after this long (e.g. 10s); default: until 'quit', end of input or Ctrl+C")
        ->check(durationValidator(1'000'000));
    run->add_option("--interval,-i", w->interval, "Sample interval")
        ->check(durationValidator(10'000'000))
        ->capture_default_str();
    run->add_option("--warmup", w->warmup, "Left out of the summary")
        ->check(durationValidator(0))
        ->capture_default_str();
    run->add_option("--output,-o", w->output, "Output format")
        ->check(CLI::IsMember({"table", "jsonl"}))
        ->capture_default_str();
    run->add_option_function<std::string>(
        "--seed", [&ro](const std::string &v) { ro.sets.push_back("load.seed=" + v); },
        "Seed of the simulated traffic: the same as --set load.seed=N (default 1)");
    run->add_option("--device", ro.device,
                    std::string(kDeviceSpecForms) +
                        " (default: the profile's device, else sim); see 'ringlab-engine devices'")
        ->type_name(kValueDevice);
    run->add_option("--eal", ro.eal, "Extra DPDK EAL arguments, e.g. \"-a 0000:03:00.0\"");
    run->add_option("--traffic", ro.traffic,
                    "With --device lab: a real client across the engine, \"ping -i 0.01\" or "
                    "\"iperf3 -u -b 0 -l 1460 -t 20\"");
    run->add_option("--name", ro.name, "Session name (default: the profile's name)");
    run->add_option("--metrics-listen", ro.metricsListen,
                    "Serve the run to Prometheus at http://HOST:PORT/metrics (a loopback address, "
                    "e.g. 127.0.0.1:9187; port 0 picks a free one)");
    auto *dbOpt = addDbOption(run, ro.db);
    run->add_flag(
           "--no-record", [&ro](std::int64_t) { ro.record = false; },
           "Do not record the run as a session")
        ->excludes(dbOpt);
    run->add_option("--repeat", ro.repeat,
                    "Run N times, each its own session in one group (needs --duration)")
        ->check(CLI::Range(1, 1000));
    return {run, [w] {
                RunOptions o = w->o;
                if (!w->duration.empty()) o.durationNs = *parseDurationNs(w->duration);
                o.intervalNs = *parseDurationNs(w->interval);
                o.warmupS = durationSeconds(w->warmup);
                o.output = w->output == "jsonl" ? OutputFormat::Jsonl : OutputFormat::Table;
                return runCommand(o);
            }};
}

} // namespace ringlab
