// SPDX-License-Identifier: GPL-2.0-or-later
// Where the engine's threads run: the threads.* tunables turned into CPU affinities and a
// scheduling policy, checked against the CPUs this process may use, applied to a thread by
// its tid (at its start by the thread itself, live from outside).
#pragma once

#include <sys/types.h>

#include <array>
#include <string>
#include <string_view>

#include "engine/common/status.h"
#include "engine/datapath/tunables.h"

namespace ringlab {

// The threads a threads.*_cpu tunable places, by the names the threads give themselves.
enum class ThreadRole { Poll, Clean, Refill, Work, Sampler, Count };
inline constexpr std::size_t kThreadRoles = static_cast<std::size_t>(ThreadRole::Count);

struct Placement {
    static constexpr int kAnyCpu = -1;
    std::array<int, kThreadRoles> cpu{kAnyCpu, kAnyCpu, kAnyCpu, kAnyCpu, kAnyCpu};
    SchedPolicy pollPolicy = SchedPolicy::Other;
    int pollPriority = 0; // used with fifo only
    friend bool operator==(const Placement &, const Placement &) = default;
};

Placement placementOf(const ParamSet &params);
// The role a thread named `name` has; false for threads no tunable places (stress/N).
bool roleOf(std::string_view name, ThreadRole &role);

// Refuses a CPU that is offline or outside the CPUs this process was started with, and a
// fifo policy the process may not take, naming the tunable, the value and what is allowed.
Status checkPlacement(const Placement &p);
// Applies the placement of the thread `name` to the thread `tid` (0: the calling thread).
Status applyPlacement(pid_t tid, std::string_view name, const Placement &p);

// "0-1,4": the CPUs this process may use (its affinity when the engine library was loaded,
// before the EAL pins anything).
std::string allowedCpusText();

} // namespace ringlab
