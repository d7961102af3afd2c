// SPDX-License-Identifier: GPL-2.0-or-later
// A thread's CPU affinity as a host setting the settings journal keeps (issue 44, part 2:
// where each NAPI kthread runs). Its address names the thread and its start time,
// "sched:PID:START/affinity" (START: the 22nd field of /proc/PID/stat, in clock ticks since
// boot), so that a journal put back after a kill -9 never pins another thread that took the
// pid since: a thread that is gone, or whose start differs, is "gone with its device".
// Values are CPU lists as the kernel writes them ("0-3,6").
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
bool threadAffinityGone(const std::string &address);

} // namespace ringlab::host
