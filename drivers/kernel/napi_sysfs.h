// SPDX-License-Identifier: GPL-2.0-or-later
// A netdev's device-wide NAPI knobs in sysfs (/sys/class/net/IF/threaded, gro_flush_timeout,
// napi_defer_hard_irqs): the first of the kernel device's tunables (issue 44). Each is read,
// checked against its range, and written through the settings journal, so a run leaves the
// host as it found it. The NAPI kthreads threaded mode starts ("napi/IF-ID") are found by
// name in /proc, with their pid, for the samples' CPU and wakeups.
//
// Facts this rests on (Linux 6.18 here): the three files exist for every netdev; `threaded`
// takes 0 or 1 (and on 6.x kernels also reports what the NAPIs run as); gro_flush_timeout
// is in ns, napi_defer_hard_irqs a count (< 2^31). Writing them sets every NAPI of the
// device; netdev netlink's napi-set changes one NAPI without them (DESIGN.md, 2026-12-06).
#pragma once

#include <sys/types.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drivers/host/settings_journal.h"
#include "engine/common/status.h"
#include "engine/datapath/tunables.h"

namespace ringlab::kernel {

// A knob's file, and what the file takes; its name, unit and help are the tunable's
// (engine/datapath/tunables.h).
struct NapiKnob {
    TunableId id;          // TunableId::NapiThreaded
    std::string_view file; // under /sys/class/net/IF/
    long long min, max;
};

std::span<const NapiKnob> napiSysfsKnobs();
// By the tunable's id or name ("napi.threaded"); null when sysfs has no file for it.
const NapiKnob *findNapiKnob(TunableId id);
const NapiKnob *findNapiKnob(std::string_view name);

// /sys/class/net/IF/FILE; refused when IF is not a plain interface name.
Status napiKnobPath(const std::string &ifname, const NapiKnob &k, std::string &out);

// The knob's value now, as the kernel reports it.
Status readNapiKnob(const std::string &ifname, const NapiKnob &k, std::string &out);

// Sets a knob on IF through `journal` (its old value journalled first). Refused, naming the
// knob, the value and what is allowed, when the value is not an integer in range or the
// kernel refuses it (then the setting is as it was).
Status setNapiKnob(host::SettingsJournal &journal, const std::string &ifname, const NapiKnob &k,
                   const std::string &value);

struct NapiThread {
    pid_t pid;
    std::string name; // "napi/veth0-8193"
};
// The NAPI kthreads of IF now (threaded mode), from /proc/PID/comm (15 bytes: for a long
// name, the threads whose names begin with what fits of "napi/IF-").
std::vector<NapiThread> napiThreads(const std::string &ifname);

} // namespace ringlab::kernel
