// SPDX-License-Identifier: GPL-2.0-or-later
// dpdk-testpmd (Debian package dpdk-dev) in io mode with one forwarding core, on two vdev
// ports: the reference the engine's DPDK forwarding is measured against. Run as a child
// process with its own EAL (no hugepages, no shared config), driven through its prompt.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace ringlab::bench {

// Frames per second forwarded in all (the sum of both ports' Rx-pps, testpmd's own figure
// over `seconds` after a second of warm-up), or a negative value with `error` set. `packed`:
// its mbufs packed back to back on 4 KB anonymous pages (--mp-alloc=anon --no-iova-contig)
// instead of DPDK's layout on the EAL's 4 KB pages, one mbuf per page.
inline double testpmdMpps(const std::string &a, const std::string &b, int seconds, bool packed,
                          std::string &error)
{
    const std::string cmd =
        "(sleep 1; echo 'show port stats all'; sleep " + std::to_string(seconds) +
        "; echo 'show port stats all'; echo stop; echo quit) | "
        "timeout " +
        std::to_string(seconds + 30) +
        " dpdk-testpmd -l 0,1 --no-huge -m 512 --no-pci --no-shconf "
        "--file-prefix=ringlab-bench-testpmd --log-level=*:error --vdev='" +
        a + "' --vdev='" + b +
        "' -- -i --nb-cores=1 --forward-mode=io --auto-start --total-num-mbufs=16384" +
        (packed ? " --mp-alloc=anon --no-iova-contig" : "") + " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    if (!p) {
        error = "cannot start dpdk-testpmd";
        return -1;
    }
    // The last two Rx-pps figures are the ports' rates over the measured seconds.
    double last[2] = {-1, -1};
    char line[512];
    std::string all;
    while (std::fgets(line, sizeof line, p)) {
        all += line;
        double pps = 0;
        if (std::sscanf(line, " Rx-pps: %lf", &pps) == 1) {
            last[0] = last[1];
            last[1] = pps;
        }
    }
    const int rc = pclose(p);
    if (rc != 0 || last[0] < 0) {
        error = "dpdk-testpmd (exit " + std::to_string(rc) +
                ") gave no port rates: " + all.substr(all.size() > 600 ? all.size() - 600 : 0);
        return -1;
    }
    return (last[0] + last[1]) / 1e6;
}

} // namespace ringlab::bench
