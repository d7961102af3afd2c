// SPDX-License-Identifier: GPL-2.0-or-later
// A child program started without a shell (argument vector), its standard output and error
// read line by line without blocking, and ended with a signal, then SIGKILL if it lingers.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "engine/common/status.h"

namespace ringlab::lab {

class ChildProcess {
  public:
    ChildProcess() = default;
    ~ChildProcess();
    ChildProcess(const ChildProcess &) = delete;
    ChildProcess &operator=(const ChildProcess &) = delete;

    // Failed, saying why, when it cannot be started (program not found...).
    Status start(const std::vector<std::string> &argv);
    bool running();
    int exitCode() const { return exitCode_; }
    // Complete lines written since the last call (stdout and stderr together).
    std::vector<std::string> readLines();
    // Waits up to `timeout` for a line containing `needle`; the lines read are kept for
    // readLines(). False on timeout or when the child ended.
    bool waitForLine(const std::string &needle, std::chrono::milliseconds timeout);
    // Sends `sig`, waits up to `grace` for the child to end, then kills it.
    void stop(int sig, std::chrono::milliseconds grace);

    // Waits up to `timeoutMs` for output and takes it in (for readLines()).
    void pump(int timeoutMs);

  private:
    pid_t pid_ = -1;
    int fd_ = -1;
    int exitCode_ = -1;
    std::string partial_;
    std::vector<std::string> lines_;
};

// Runs a command to completion (at most `timeout`); its exit code, or -1 when it could not
// run or was killed at the timeout. `output` receives what it printed.
int runCommand(const std::vector<std::string> &argv, std::string &output,
               std::chrono::milliseconds timeout = std::chrono::seconds(10));

} // namespace ringlab::lab
