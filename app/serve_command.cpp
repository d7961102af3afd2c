// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/serve_command.h"
#include "app/cli_model.h"
#include "drivers/registry.h"
#include <memory>

#include <poll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>

#include "app/api_server.h"
#include "app/stop_signals.h"
#include "drivers/registry_devices.h"
#include "engine/common/token_file.h"
#include "engine/experiments/job_queue.h"

namespace ringlab {

namespace {

// The server's options: where it listens, its token, TLS, the socket's group. False, having
// said why, when the address or the token file is refused.
bool makeServerOptions(const ServeOptions &options, ApiServerOptions &so)
{
    if (auto st = parseListen(
            options.listen.empty() ? "unix:" + defaultSocketPath() : options.listen, so.listen);
        !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
        return false;
    }
    if (!options.tokenFile.empty())
        if (auto st =
                readTokenFile(options.tokenFile, "--token-file " + options.tokenFile, so.token);
            !st.ok()) {
            std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
            return false;
        }
    so.metricsPublic = options.metricsPublic;
    so.tlsCert = options.tlsCert;
    so.tlsKey = options.tlsKey;
    so.socketGroup = options.socketGroup;
    so.socketGroupRequired = options.socketGroupGiven;
    return true;
}

// The API with its session database and its job queue, or null (having said why) when the
// database cannot be opened.
std::unique_ptr<RunApi> openRunApi(const ServeOptions &options, const ApiServerOptions &so)
{
    RunApiOptions ao;
    // Recording nothing, it needs no database file (its session list is empty).
    ao.db = options.record ? options.db : ":memory:";
    ao.record = options.record;
    ao.eal = splitEalArgs(options.eal);
    ao.endpoint = so.listen.text();
    ao.grants = options.allow;
    std::unique_ptr<RunApi> api;
    try {
        api = std::make_unique<RunApi>(ao, registryDevices());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "ringlab-engine: cannot open the session database: %s\n", e.what());
        return nullptr;
    }
    // Sweeps, tunes and reproductions as the engine's jobs (/v1/jobs): they hold the same
    // measurement as a run started here, record to the same database, report on the stream.
    auto jobs = std::make_shared<JobQueue>(
        JobQueueOptions{api->measurementLock(),
                        api->database(),
                        ao.record,
                        [a = api.get()](const std::string &line) { a->publish(line); },
                        [a = api.get()](const std::string &spec, const std::string &what) {
                            return a->refuseWithoutGrant(spec, what);
                        },
                        kKeptEndedJobs,
                        {}},
        registryDevices());
    if (jobs->diedOnOpen())
        std::fprintf(stderr,
                     "ringlab-engine: %d job(s) left running by an engine that is gone were "
                     "marked interrupted\n",
                     jobs->diedOnOpen());
    api->attachJobs(std::move(jobs));
    if (api->interruptedOnOpen())
        std::fprintf(stderr,
                     "ringlab-engine: %d session(s) left running by a process that is gone were "
                     "marked interrupted\n",
                     api->interruptedOnOpen());
    return api;
}

// Each client's connection is a file: room for the server's cap on them (connection_gate.h).
void raiseOpenFileLimit()
{
    if (rlimit files{}; getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 8192 &&
                        files.rlim_cur < files.rlim_max) {
        files.rlim_cur = std::min<rlim_t>(files.rlim_max, 8192);
        setrlimit(RLIMIT_NOFILE, &files);
    }
}

// Waits for a stop signal on `sigFd`, and says which one came.
void waitForStopSignal(int sigFd)
{
    pollfd fd{sigFd, POLLIN, 0};
    while (::poll(&fd, 1, -1) < 0 && errno == EINTR) {
    }
    signalfd_siginfo si{};
    [[maybe_unused]] auto r = ::read(sigFd, &si, sizeof si);
    std::fprintf(stderr, "ringlab-engine: %s, stopping\n",
                 strsignal(static_cast<int>(si.ssi_signo)));
}

} // namespace

int serveCommand(const ServeOptions &o)
{
    ApiServerOptions so;
    if (!makeServerOptions(o, so)) return 2;
    std::unique_ptr<RunApi> api = openRunApi(o, so);
    if (!api) return 1;
    raiseOpenFileLimit();
    // Server and engine threads inherit the blocked stop signals.
    const int sigFd = takeStopSignals();
    if (sigFd < 0) {
        std::fprintf(stderr, "ringlab-engine: cannot take the stop signals: %s\n",
                     std::strerror(errno));
        return 1;
    }
    ApiServer server(*api);
    std::string notes;
    if (auto st = server.start(so, notes); !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
        close(sigFd);
        return 2;
    }
    api->setEndpoint(server.url());
    if (!notes.empty()) std::fprintf(stderr, "ringlab-engine: note: %s\n", notes.c_str());
    std::fprintf(stderr, "ringlab-engine: serving API v%d at %s (sessions in %s)%s\n", kApiVersion,
                 server.url().c_str(), api->database().c_str(),
                 so.listen.unixSocket ? "" : "; requests need the bearer token");
    std::fflush(stderr);

    waitForStopSignal(sigFd);
    api->shutdown("completed"); // the session is complete; the streams are told to end
    // A client that neither reads nor goes holds its thread until its write times out: the
    // server gets a few seconds, then the process ends anyway (nothing is left to lose).
    auto stopped = std::async(std::launch::async, [&server] { server.stop(); });
    if (stopped.wait_for(std::chrono::seconds(kClientTimeoutS + 3)) != std::future_status::ready) {
        std::fprintf(stderr, "ringlab-engine: clients still connected; leaving them\n");
        std::fflush(stderr);
        _exit(0);
    }
    close(sigFd);
    return 0;
}

Subcommand addServeCommand(CLI::App &app)
{
    auto sv = std::make_shared<ServeOptions>();
    auto *serve = app.add_subcommand(
        "serve", "Serve the engine's API (docs/api.md) to the desktop app and scripts");
    serve->add_option("--listen", sv->listen,
                      "unix:PATH or tcp:HOST:PORT (needs --token-file). Default here: unix:" +
                          defaultSocketPath() + " (as root " + kServiceSocketPath +
                          ", otherwise $XDG_RUNTIME_DIR/ringlab/engine.sock, or "
                          "/tmp/ringlab-UID/engine.sock without XDG_RUNTIME_DIR)");
    serve
        ->add_option("--token-file", sv->tokenFile,
                     "A file only you can read (mode 0600) holding the bearer token TCP "
                     "clients must send")
        ->type_name(kValueFile);
    serve->add_flag("--metrics-public", sv->metricsPublic,
                    "Serve GET /metrics without the token (for Prometheus)");
    serve->add_option("--tls-cert", sv->tlsCert, "PEM certificate: serve HTTPS")
        ->type_name(kValueFile);
    serve->add_option("--tls-key", sv->tlsKey, "PEM private key of --tls-cert")
        ->type_name(kValueFile);
    auto *socketGroup =
        serve
            ->add_option("--socket-group", sv->socketGroup,
                         "Group of the Unix socket and of its directory (made 0750, that "
                         "group's); given, a group that cannot be set is refused")
            ->capture_default_str();
    serve
        ->add_option("--allow", sv->allow,
                     "Let clients start devices that need privilege, comma-separated: lab "
                     "(network namespaces), dpdk (TAP, af_packet, pcap and PCI ports), kernel "
                     "(kernel:IFNAME and kernel-lab)")
        ->delimiter(',')
        ->check(CLI::IsMember(deviceGrantNames()))
        ->type_name("GRANT");
    serve->add_option("--eal", sv->eal, "DPDK EAL arguments for the runs' DPDK devices");
    auto *serveDb = addDbOption(serve, sv->db);
    serve
        ->add_flag(
            "--no-record", [sv = sv.get()](std::int64_t) { sv->record = false; },
            "Do not record runs as sessions")
        ->excludes(serveDb);
    return {serve, [sv, socketGroup] {
                sv->socketGroupGiven = socketGroup->count() > 0;
                return serveCommand(*sv);
            }};
}

} // namespace ringlab
