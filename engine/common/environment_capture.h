// SPDX-License-Identifier: GPL-2.0-or-later
// Reading the environment (environment_facts.h) from this machine: /proc, /sys and the
// scheduler's calls, nothing run as a program (virtualisation is told by /proc/cpuinfo's
// hypervisor flag and the DMI vendor, not by systemd-detect-virt, which may hang).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/common/environment_facts.h"

namespace ringlab {

// Every machine and per-CPU fact (for the CPUs this process may run on), each a value or
// absent with the reason. `root` replaces "/" (tests give a fake tree; "" is the machine).
Environment captureMachine(const std::filesystem::path &root = {});

// The facts of threads of this process, by name and tid: affinity, policy, priority, the
// CPU last run on, and the CPU it ran on most (from cpuNsOn: its CPU time by CPU, as the
// sampler attributed it; empty when none was measured). A thread that has gone is a fact
// absent with that reason.
struct ThreadId {
    std::string name;
    pid_t tid = 0;
    std::vector<std::int64_t> cpuNsOn; // index: CPU number
};
Environment captureThreads(const std::vector<ThreadId> &threads);

} // namespace ringlab
