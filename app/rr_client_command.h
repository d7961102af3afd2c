// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine rr-client`: the kernel device's request/response client on its own, for a
// real NIC (issue 44, part 1). `ringlab-engine run --device kernel:IFNAME` answers on one host;
// this sends from another (or from a namespace) at a fixed rate, bounded by a count and a
// duration, and prints each interval's requests, replies and round-trip percentiles, then
// the whole run's, as text or JSON lines.
#pragma once

#include <cstdint>
#include <string>

#include "app/cli_options.h"

namespace ringlab {

struct RrClientCommandOptions {
    std::string to;     // ADDR or ADDR:PORT (IPv4)
    double rate = 1000; // requests/s
    std::uint32_t frameBytes = 64;
    std::uint64_t count = 0; // 0: none but the duration
    std::string duration = "10s";
    std::string interval = "1s";
    std::string output = "text"; // text or jsonl
};

// 0: the bound reached and replies came; 1: no reply at all, a failure or a stop signal
// (the figures so far are printed); 2: the options refused.
int rrClientCommand(const RrClientCommandOptions &o);

Subcommand addRrClientCommand(CLI::App &app);

} // namespace ringlab
