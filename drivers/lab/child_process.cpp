// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/lab/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char **environ;

namespace ringlab::lab {

namespace {
constexpr std::size_t kMaxLine = 64 * 1024;
constexpr std::size_t kMaxKeptLines = 10000;

std::int64_t msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 t0)
        .count();
}
} // namespace

ChildProcess::~ChildProcess()
{
    stop(SIGTERM, std::chrono::milliseconds(500));
}

Status ChildProcess::start(const std::vector<std::string> &argv)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return Status::failed(std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, p[1], STDERR_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    // The engine blocks SIGINT/SIGTERM in its threads to read them from a signalfd; the
    // child must get them back, with default handlers.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char *> args;
    for (const auto &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, args[0], &fa, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        pid_ = -1;
        return Status::failed(argv[0] + ": " + std::strerror(rc));
    }
    fd_ = p[0];
    fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
    return Status::success();
}

void ChildProcess::pump(int timeoutMs)
{
    if (fd_ < 0) {
        if (timeoutMs > 0) usleep(static_cast<useconds_t>(timeoutMs) * 1000);
        return;
    }
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, timeoutMs) <= 0) return;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n <= 0) {
            if (n == 0) { // end of output
                close(fd_);
                fd_ = -1;
                if (!partial_.empty()) lines_.push_back(std::move(partial_));
                partial_.clear();
            }
            break;
        }
        partial_.append(buf, static_cast<std::size_t>(n));
        for (std::size_t nl; (nl = partial_.find('\n')) != std::string::npos;) {
            if (lines_.size() < kMaxKeptLines) lines_.push_back(partial_.substr(0, nl));
            partial_.erase(0, nl + 1);
        }
        if (partial_.size() > kMaxLine) partial_.clear();
    }
}

std::vector<std::string> ChildProcess::readLines()
{
    pump(0);
    std::vector<std::string> out;
    out.swap(lines_);
    return out;
}

bool ChildProcess::waitForLine(const std::string &needle, std::chrono::milliseconds timeout)
{
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t checked = 0;
    while (msSince(t0) < timeout.count()) {
        pump(20);
        for (; checked < lines_.size(); ++checked)
            if (lines_[checked].find(needle) != std::string::npos) return true;
        if (fd_ < 0 && !running()) return false;
    }
    return false;
}

bool ChildProcess::running()
{
    if (pid_ < 0) return false;
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == 0) return true;
    if (r == pid_) exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    pid_ = -1;
    return false;
}

void ChildProcess::stop(int sig, std::chrono::milliseconds grace)
{
    if (running()) {
        kill(pid_, sig);
        const auto t0 = std::chrono::steady_clock::now();
        while (running() && msSince(t0) < grace.count())
            pump(10);
        if (running()) {
            kill(pid_, SIGKILL);
            int status = 0;
            waitpid(pid_, &status, 0);
            exitCode_ = 128 + SIGKILL;
            pid_ = -1;
        }
    }
    pump(0);
    if (fd_ >= 0) {
        close(fd_);
        fd_ = -1;
    }
}

int runCommand(const std::vector<std::string> &argv, std::string &output,
               std::chrono::milliseconds timeout)
{
    ChildProcess child;
    if (const Status started = child.start(argv); !started.ok()) {
        output = started.error;
        return -1;
    }
    const auto t0 = std::chrono::steady_clock::now();
    output.clear();
    while (child.running() && msSince(t0) < timeout.count()) {
        child.pump(10);
        for (const auto &l : child.readLines())
            output += l + "\n";
    }
    if (child.running()) {
        child.stop(SIGKILL, std::chrono::milliseconds(0));
        return -1;
    }
    for (const auto &l : child.readLines())
        output += l + "\n";
    return child.exitCode();
}

} // namespace ringlab::lab
