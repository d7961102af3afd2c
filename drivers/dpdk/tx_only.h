// SPDX-License-Identifier: GPL-2.0-or-later
// fwd.mode=txonly: the engine generates UDP frames of load.frame_bytes at load.rate_pps in
// load.pattern, paced by arrival times computed on demand (as the simulated NIC's are), and
// built in mbufs from the port's pool, as testpmd's txonly engine does.
#pragma once

#include <cstdint>

#include "drivers/dpdk/mbuf_pool.h"
#include "drivers/sim/arrivals.h"
#include "engine/datapath/counters.h"
#include "engine/datapath/live_params.h"

namespace ringlab::dpdk {

class TxOnlySource {
  public:
    // Frames due more than this long ago are given up (counted as missed): a generator that
    // cannot keep up must not release a backlog all at once.
    static constexpr std::int64_t kMaxBacklogNs = 10'000'000;

    void start(std::int64_t nowNs);
    // Up to `max` frames due by `nowNs`, alternating over `ports` port indices.
    std::uint32_t generate(Buffer **out, std::uint32_t max, std::int64_t nowNs, MbufPool &pool,
                           std::uint16_t ports, const LiveParams &live, Counters &c);

  private:
    void follow(const LiveParams &live, std::int64_t nowNs);

    sim::ArrivalGenerator arrivals_{0x5eed};
    std::uint16_t nextPort_ = 0;
    std::uint64_t seq_ = 0;
};

} // namespace ringlab::dpdk
