// SPDX-License-Identifier: GPL-2.0-or-later
// A thread's scheduling as host settings the settings journal keeps (issue 44, part 2: where
// and how each NAPI kthread runs): its CPU affinity and its policy. An address names the
// thread and its start time, "sched:PID:START/affinity" or ".../policy" (START: the 22nd
// field of /proc/PID/stat, in clock ticks since boot), so that a journal put back after a
// kill -9 never touches another thread that took the pid since: a thread that is gone, or
// whose start differs, is "gone with its device".
// Affinity values are CPU lists as the kernel writes them ("0-3,6"); policy values are a
// policy and its priority, as chrt names them: "other 0", "batch 0", "idle 0", "fifo 50",
// "rr 50".
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "engine/common/status.h"

namespace ringlab::host {

// The address of PID's affinity; refused when the thread is not there.
Status threadAffinityAddress(pid_t pid, std::string &out);
bool isThreadAffinityAddress(std::string_view path);
Status readThreadAffinity(const std::string &address, std::string &out);
Status writeThreadAffinity(const std::string &address, const std::string &cpuList);
// The thread at an affinity or policy address is gone, or another took its pid.
bool threadSettingGone(const std::string &address);

Status threadPolicyAddress(pid_t pid, std::string &out);
bool isThreadPolicyAddress(std::string_view path);
Status readThreadPolicy(const std::string &address, std::string &out);
// Refused naming the value and what is allowed ("fifo 1-99", "other 0") or the kernel's
// reason.
Status writeThreadPolicy(const std::string &address, const std::string &policy);

} // namespace ringlab::host
