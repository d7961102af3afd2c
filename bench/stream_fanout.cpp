// SPDX-License-Identifier: GPL-2.0-or-later
// bench/stream_fanout: the cost of watchers. A `ringlab-engine serve` runs the datapath at
// saturation (the simulated NIC offered more than it can take, busy polling) while 0, 1 or 20
// clients watch its 10 Hz stream over loopback TCP. For each, in windows taken in turn:
//   - the serving CPU: serve's HTTP threads and main thread, and its sampler (which makes each
//     sample's JSON line when someone watches), from /proc/PID/task/*/stat;
//   - the datapath's throughput: ringlab_rx_packets_total from /metrics over the window.
// Goals (issue 8): 20 clients cost <= 2 % of a core; throughput with 20 >= 0.98 x with none.
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "bench_common.h"

extern char **environ;

namespace {

constexpr const char *kToken = "stream-fanout-bench-token-0123456789";
constexpr int kRounds = 5;
constexpr double kWindowS = 3.0;
const int kClientCounts[] = {0, 1, 20};

// CPU seconds of the threads that serve the stream: the process's threads named like it (its
// HTTP threads, main; the engine's threads name themselves: poll, txclean, ...) and the
// sampler, which turns each sample into its JSON line once when someone watches.
double serverCpuS(pid_t pid)
{
    double ticks = 0;
    for (const auto &task :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
        std::ifstream stat(task.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(stat)), {});
        const auto open = text.find('('), close = text.rfind(')');
        if (open == std::string::npos || close == std::string::npos) continue;
        const std::string name = text.substr(open + 1, close - open - 1);
        if (name != "ringlab-engine" && name != "sampler") continue;
        std::istringstream rest(text.substr(close + 2));
        std::string field;
        for (int k = 3; k <= 13; ++k)
            rest >> field; // state .. cmajflt
        double utime = 0, stime = 0;
        rest >> utime >> stime;
        ticks += utime + stime;
    }
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double rxPackets(httplib::Client &c)
{
    const auto r = c.Get("/metrics");
    if (!r || r->status != 200) return -1;
    const std::string name = "\nringlab_rx_packets_total ";
    const auto at = r->body.find(name);
    return at == std::string::npos ? -1 : std::atof(r->body.c_str() + at + name.size());
}

struct Watchers {
    std::atomic<bool> stop{false};
    std::atomic<long> lines{0};
    std::vector<std::thread> threads;
    Watchers(int n, int port)
    {
        for (int k = 0; k < n; ++k)
            threads.emplace_back([this, port] {
                httplib::Client c("127.0.0.1", port);
                c.set_bearer_token_auth(kToken);
                c.set_read_timeout(30, 0);
                c.Get("/v1/run/stream", [this](const char *data, std::size_t len) {
                    lines += static_cast<long>(std::count(data, data + len, '\n'));
                    return !stop.load();
                });
            });
    }
    ~Watchers()
    {
        stop = true;
        for (auto &t : threads)
            t.join();
    }
};

// The bearer token in dir/token, a file only its owner reads; its path.
std::string writeTokenFile(const std::filesystem::path &dir)
{
    const std::string tokenFile = (dir / "token").string();
    std::ofstream(tokenFile) << kToken << "\n";
    std::filesystem::permissions(tokenFile, std::filesystem::perms::owner_read |
                                                std::filesystem::perms::owner_write);
    return tokenFile;
}

// Starts `ringlab-engine serve` on a free loopback port, its standard error in `errFile`.
// False, having said why, when it cannot be started.
bool startServe(const std::string &tokenFile, const std::string &errFile, pid_t &pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, errFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<std::string> args{RINGLAB_ENGINE_BIN, "serve",   "--listen",   "tcp:127.0.0.1:0",
                                  "--token-file",     tokenFile, "--no-record"};
    std::vector<char *> argv;
    for (auto &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) {
        std::perror("stream_fanout: serve");
        return false;
    }
    return true;
}

// The port serve says it listens at, read off its standard error; 0 when it does not
// say within 6 s.
int servedPort(const std::string &errFile)
{
    int port = 0;
    for (int k = 0; k < 300 && !port; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::ifstream err(errFile);
        std::string text((std::istreambuf_iterator<char>(err)), {});
        const std::string at = "at http://127.0.0.1:";
        if (const auto found = text.find(at); found != std::string::npos)
            port = std::atoi(text.c_str() + found + at.size());
    }
    return port;
}

// Starts the run. False, having said why, when the engine does not start it.
bool startSaturatedRun(httplib::Client &c)
{
    // Saturation: more offered than the datapath can take, every stage inline, busy polling.
    const auto started = c.Post("/v1/run/start", R"({"set":{
        "load.rate_pps":50000000,"load.frame_bytes":64,"load.pattern":"constant",
        "link.mbps":400000,"probe.rate_hz":0,"poll.mode":"busy","refill.context":"inline",
        "handoff.mode":"direct","proc.ns_per_packet":0,"rx.ring_size":32768,
        "rx.pool_buffers":131072,"tx.ring_size":4096,"tx.coalesce_frames":512,
        "refill.threshold":64,"refill.batch":64,"poll.budget":256}})",
                                "application/json");
    if (!started || started->status != 201) {
        std::fprintf(stderr, "stream_fanout: start: %s\n", started ? started->body.c_str() : "");
        return false;
    }
    return true;
}

// Per client count: the serving CPU (% of a core) and the throughput (Mpps) of each
// window, and the stream's lines all its clients read.
struct Windows {
    std::map<int, std::vector<double>> cpuPct, mpps;
    std::map<int, long> lines;
};

// kRounds rounds of a window for each client count, taken in turn.
Windows measureWindows(pid_t pid, int port, httplib::Client &c)
{
    Windows windows;
    for (int round = 0; round < kRounds; ++round)
        for (int n : kClientCounts) {
            Watchers w(n, port);
            std::this_thread::sleep_for(std::chrono::milliseconds(500)); // connected, streaming
            const double cpu0 = serverCpuS(pid), rx0 = rxPackets(c);
            const auto t0 = std::chrono::steady_clock::now();
            const long lines0 = w.lines;
            std::this_thread::sleep_for(std::chrono::duration<double>(kWindowS));
            const double cpu1 = serverCpuS(pid), rx1 = rxPackets(c);
            const double s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            windows.cpuPct[n].push_back((cpu1 - cpu0) / s * 100);
            windows.mpps[n].push_back((rx1 - rx0) / s / 1e6);
            windows.lines[n] += w.lines - lines0;
        }
    return windows;
}

// The table of the windows' medians, and the goals met or not.
void printResults(Windows &windows)
{
    using ringlab::bench::median;
    std::printf("saturated datapath on the simulated NIC (busy poll, 64-byte frames); %d rounds "
                "of %.0f s windows per client count, taken in turn; medians\n\n",
                kRounds, kWindowS);
    std::printf("%-9s %24s %22s %14s %14s\n", "watchers", "serving CPU (% core)",
                "rx Mpps (min-max)", "vs none", "lines/s each");
    const double base = median(windows.mpps[0]);
    for (int n : kClientCounts) {
        const auto [lo, hi] = std::minmax_element(windows.mpps[n].begin(), windows.mpps[n].end());
        std::printf("%-9d %24.2f %10.3f (%.3f-%.3f) %12.3f %14.1f\n", n, median(windows.cpuPct[n]),
                    median(windows.mpps[n]), *lo, *hi, median(windows.mpps[n]) / base,
                    n ? static_cast<double>(windows.lines[n]) / n / (kRounds * kWindowS) : 0.0);
    }
    const double cost = median(windows.cpuPct[20]) - median(windows.cpuPct[0]);
    std::printf("\n20 watchers cost %.2f %% of a core (goal <= 2 %%: %s); throughput ratio %.3f "
                "(goal >= 0.98: %s)\n",
                cost, cost <= 2 ? "met" : "NOT met", median(windows.mpps[20]) / base,
                median(windows.mpps[20]) / base >= 0.98 ? "met" : "NOT met");
}

} // namespace

int main()
{
    ringlab::bench::printMachine("stream_fanout");
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("ringlab-stream-fanout-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string tokenFile = writeTokenFile(dir);
    const std::string errFile = (dir / "serve.err").string();
    pid_t pid = 0;
    if (!startServe(tokenFile, errFile, pid)) return 1;
    const int port = servedPort(errFile);
    const auto finish = [&](int rc) {
        kill(pid, SIGTERM);
        waitpid(pid, nullptr, 0);
        std::filesystem::remove_all(dir);
        return rc;
    };
    if (!port) {
        std::fprintf(stderr, "stream_fanout: serve did not start\n");
        return finish(1);
    }
    httplib::Client c("127.0.0.1", port);
    c.set_bearer_token_auth(kToken);
    c.set_read_timeout(30, 0);
    if (!startSaturatedRun(c)) return finish(1);
    std::this_thread::sleep_for(std::chrono::seconds(1));

    Windows windows = measureWindows(pid, port, c);
    c.Post("/v1/run/stop", "{}", "application/json"); // no control key: refused, harmless

    printResults(windows);
    return finish(0);
}
