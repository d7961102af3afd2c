// SPDX-License-Identifier: GPL-2.0-or-later
// Two DPDK ports driven by the simplest forwarding loop there is (rx_burst on one, tx_burst
// on the other, both ways): what the benchmarks measure the engine against.
#pragma once

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "drivers/dpdk/eal.h"
#include "drivers/dpdk/mbuf_pool.h"

namespace ringlab::bench {

class BarePorts {
  public:
    // The mbufs in `memory` (rx.pool_memory), as the engine's.
    BarePorts(const std::string &a, const std::string &b, PoolMemory memory = PoolMemory::Thp)
    {
        if (!dpdk::Eal::attach(a, a_).ok() || !dpdk::Eal::attach(b, b_).ok()) {
            std::fprintf(stderr, "bench: cannot attach %s / %s: %s\n", a.c_str(), b.c_str(),
                         dpdk::Eal::recentLog().c_str());
            std::exit(1);
        }
        static int generation = 0;
        try {
            pool_ = std::make_unique<dpdk::MbufPool>("bare" + std::to_string(generation++), 8191,
                                                     memory);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "bench: %s\n", e.what());
            std::exit(1);
        }
        rte_mempool *mp = pool_->mempool();
        for (std::uint16_t p : {a_, b_}) {
            rte_eth_conf conf{};
            rte_eth_dev_configure(p, 1, 1, &conf);
            rte_eth_rx_queue_setup(p, 0, 1024, 0, nullptr, mp);
            rte_eth_tx_queue_setup(p, 0, 1024, 0, nullptr);
            rte_eth_dev_start(p);
            rte_eth_promiscuous_enable(p);
        }
    }
    ~BarePorts()
    {
        dpdk::Eal::detach(a_);
        dpdk::Eal::detach(b_);
    }
    BarePorts(const BarePorts &) = delete;
    BarePorts &operator=(const BarePorts &) = delete;

    // One pass both ways; the frames sent.
    std::uint64_t forward()
    {
        std::uint64_t sent = 0;
        for (auto [from, to] : {std::pair{a_, b_}, std::pair{b_, a_}}) {
            const std::uint16_t n = rte_eth_rx_burst(from, 0, m_, 64);
            const std::uint16_t k = rte_eth_tx_burst(to, 0, m_, n);
            if (k < n) rte_pktmbuf_free_bulk(m_ + k, n - k);
            sent += k;
        }
        return sent;
    }

  private:
    std::uint16_t a_ = 0, b_ = 0;
    std::unique_ptr<dpdk::MbufPool> pool_; // freed after the ports are detached
    rte_mbuf *m_[64];
};

} // namespace ringlab::bench
