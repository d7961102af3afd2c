// SPDX-License-Identifier: GPL-2.0-or-later
// One thread's CPU and wakeups over a sample's interval: the engine's own threads, and the
// threads outside it that do its device's work (a NAPI kthread).
#pragma once

#include <string>

namespace ringlab {

struct ThreadStat {
    std::string name;
    double cpuMsPerS = 0;   // CPU time per second of wall time (powertop "Usage")
    double cpuPct = 0;      // % of one core
    double wakeupsPerS = 0; // voluntary context switches per second (powertop "Events/s")
    // The longest time the thread left the RX ring unattended between two polls in the
    // interval (its sleeps and any time the host did not run it); -1: not a polling thread.
    double pollGapMaxUs = -1;
};

} // namespace ringlab
