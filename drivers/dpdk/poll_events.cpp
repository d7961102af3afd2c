// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/poll_events.h"

#include <rte_errno.h>

namespace ringlab::dpdk {

void PollEvents::drain(std::vector<std::string> &out, const std::vector<std::string> &portNames)
{
    std::lock_guard lock(readers_);
    PollEvent e[16];
    while (const std::uint32_t k = queue_.pop(e, 16))
        for (std::uint32_t i = 0; i < k; ++i)
            out.push_back(wording(e[i], portNames));
    if (const std::uint64_t lost = lost_.exchange(0, std::memory_order_relaxed))
        out.push_back(std::to_string(lost) +
                      " poll-thread events lost: more than 64 between two readings");
}

std::string PollEvents::wording(const PollEvent &e, const std::vector<std::string> &portNames)
{
    switch (e.kind) {
    case PollEvent::Kind::PassOn:
        return "direct pass on: the device forwards each poll round itself, nothing being done "
               "per frame between RX and TX; the stage spans collapse into TX";
    case PollEvent::Kind::PassOff:
        return "direct pass off: a stage has work per frame, the stages take the frames";
    case PollEvent::Kind::PauseOn:
        return "PMD power management (PAUSE) enabled on lcore " + std::to_string(e.lcore);
    case PollEvent::Kind::PauseOff:
        return "PMD power management disabled";
    case PollEvent::Kind::PauseFailed: {
        const std::string port =
            e.port < portNames.size() ? portNames[e.port] : "port " + std::to_string(e.port);
        return "poll.mode pmd_pause: rte_power_ethdev_pmgmt_queue_enable on " + port +
               " failed: " + rte_strerror(-e.error) + "; the thread polls without pausing";
    }
    }
    return "poll thread event " + std::to_string(static_cast<int>(e.kind));
}

} // namespace ringlab::dpdk
