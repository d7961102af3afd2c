// SPDX-License-Identifier: GPL-2.0-or-later
// Soak: `ringlab-engine run` with no --duration, recording at 10 Hz into a fresh database,
// with a live change every 10 s, for --minutes (default 60; CI does not run it). Reports the
// engine's resident memory after the first minute and at the end, the database's growth,
// sample gaps longer than two intervals, and warning events. Goal: RSS growth < 1 MB after
// the first minute, no gaps on an idle machine.
//   soak [--minutes N] [--profile NAME]
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "bench/bench_common.h"
#include "engine/store/session_store.h"

namespace fs = std::filesystem;
using namespace ringlab;

extern char **environ;

namespace {

long rssKb(pid_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

std::uintmax_t dbBytes(const fs::path &db)
{
    std::uintmax_t sum = 0;
    for (const char *suffix : {"", "-wal"}) {
        std::error_code ec;
        const auto n = fs::file_size(db.string() + suffix, ec);
        if (!ec) sum += n;
    }
    return sum;
}

// The engine's resident memory and the database's size after the first minute and at the
// end, and how long the soak ran.
struct Growth {
    long rssAfterMinute = -1, rssEnd = -1;
    std::uintmax_t dbAfterMinute = 0, dbEnd = 0;
    double elapsedMin = 0;
};

// Starts `ringlab-engine run` recording into `db`, its standard input the pipe `in`, its
// standard error in dir/stderr.txt. False when it cannot be started.
bool startEngine(const fs::path &dir, const fs::path &db, const std::string &profile, int (&in)[2],
                 pid_t &pid)
{
    if (pipe(in) != 0) return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, (dir / "stderr.txt").c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const std::string dbArg = db.string();
    std::vector<std::string> args = {RINGLAB_ENGINE_BIN, "run",   "--profile", profile,
                                     "--interval",       "100ms", "--db",      dbArg};
    std::vector<char *> av;
    for (auto &a : args)
        av.push_back(a.data());
    av.push_back(nullptr);
    if (posix_spawn(&pid, RINGLAB_ENGINE_BIN, &fa, nullptr, av.data(), environ) != 0) {
        std::fprintf(stderr, "soak: cannot start %s\n", RINGLAB_ENGINE_BIN);
        return false;
    }
    return true;
}

// Sends a live change every 10 s for `minutes`, noting the engine's memory and the
// database's size (printed every minute).
Growth changeEvery10s(pid_t pid, int commandFd, const fs::path &db, double minutes)
{
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    Growth growth;
    int step = 0;
    for (;;) {
        std::this_thread::sleep_until(t0 + std::chrono::seconds(10 * ++step));
        const double t = std::chrono::duration<double>(Clock::now() - t0).count() / 60;
        if (t > minutes) break;
        // Two sleep ranges in turn: each change a new segment, as a user tuning does.
        const std::string set = step % 2 ? "set poll.sleep_min_us 50 poll.sleep_max_us 100\n"
                                         : "set poll.sleep_min_us 100 poll.sleep_max_us 200\n";
        if (write(commandFd, set.data(), set.size()) != static_cast<ssize_t>(set.size())) break;
        const long rss = rssKb(pid);
        const auto bytes = dbBytes(db);
        if (step % 6 == 0) std::printf("%8.1f %10ld %12ju\n", t, rss, bytes / 1024);
        std::fflush(stdout);
        if (step == 6) {
            growth.rssAfterMinute = rss;
            growth.dbAfterMinute = bytes;
        }
        growth.rssEnd = rss;
        growth.dbEnd = bytes;
    }
    growth.elapsedMin = std::chrono::duration<double>(Clock::now() - t0).count() / 60;
    return growth;
}

// Reads the session back: its gaps and warnings, then the figures and the verdict. False
// when the database does not hold the one session.
bool reportSoak(const fs::path &db, int status, const Growth &growth)
{
    SessionStore store(db, Db::Mode::ReadOnly);
    const auto sessions = store.list();
    if (sessions.size() != 1) {
        std::fprintf(stderr, "soak: expected one session, found %zu\n", sessions.size());
        return false;
    }
    const auto id = sessions[0].id;
    const SampleTable tab = store.samples(id);
    int gaps = 0;
    double worst = 0;
    for (std::size_t k = 1; k < tab.t.size(); ++k) {
        const double dt = tab.t[k] - tab.t[k - 1];
        worst = std::max(worst, dt);
        if (dt > 0.2 + 1e-6) ++gaps;
    }
    int warnings = 0, changes = static_cast<int>(store.changes(id).size());
    for (const auto &e : store.events(id))
        warnings += e.kind == "warning";

    const double hours = (growth.elapsedMin - 1) / 60;
    std::printf("\nexit status %d, session %s, %zu samples over %.1f min, %d parameter changes\n",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1, sessions[0].status.c_str(),
                tab.t.size(), growth.elapsedMin, changes);
    std::printf("RSS after 1 min %ld KB, at the end %ld KB: growth %ld KB (goal < 1024 KB)\n",
                growth.rssAfterMinute, growth.rssEnd, growth.rssEnd - growth.rssAfterMinute);
    std::printf("database %.1f MB at the end, %.1f MB per hour after the first minute\n",
                static_cast<double>(growth.dbEnd) / 1e6,
                hours > 0 ? static_cast<double>(growth.dbEnd - growth.dbAfterMinute) / 1e6 / hours
                          : 0.0);
    std::printf("sample gaps over 2 intervals: %d (longest interval %.3f s); warning events: %d\n",
                gaps, worst, warnings);
    std::printf("verdict: %s\n", growth.rssEnd - growth.rssAfterMinute < 1024 && gaps == 0
                                     ? "flat memory, no gaps"
                                     : "goal missed (see the figures above)");
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    double minutes = 60;
    std::string profile = "default";
    for (int k = 1; k + 1 < argc; k += 2) {
        if (!std::strcmp(argv[k], "--minutes"))
            minutes = std::atof(argv[k + 1]);
        else if (!std::strcmp(argv[k], "--profile"))
            profile = argv[k + 1];
    }
    if (!(minutes >= 1.5)) {
        std::fprintf(stderr,
                     "soak: --minutes must be at least 1.5 (the first minute is warm-up)\n");
        return 2;
    }
    bench::printMachine("soak");
    const fs::path dir = fs::temp_directory_path() / ("ringlab-soak-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path db = dir / "soak.db";

    int in[2];
    pid_t pid = 0;
    if (!startEngine(dir, db, profile, in, pid)) return 1;
    close(in[0]);
    std::printf("engine pid %d, %s, %.1f min, a live change every 10 s\n\n", pid, profile.c_str(),
                minutes);
    std::printf("%8s %10s %12s\n", "t (min)", "RSS KB", "db KB");

    const Growth growth = changeEvery10s(pid, in[1], db, minutes);
    (void)!write(in[1], "quit\n", 5);
    close(in[1]);
    int status = 0;
    waitpid(pid, &status, 0);

    if (!reportSoak(db, status, growth)) return 1;
    fs::remove_all(dir);
    return 0;
}
