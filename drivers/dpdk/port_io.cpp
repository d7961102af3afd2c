// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/port_io.h"

#include <rte_ether.h>

#include <utility>

namespace ringlab::dpdk {

namespace {
constexpr int kTxRetries = 8; // bounded, as testpmd's --burst-tx-retry-num
} // namespace

void PortIo::transmit(std::uint16_t idx, rte_mbuf **m, std::uint16_t k, Device::TxRefused &refused)
{
    std::uint16_t sent = rte_eth_tx_burst(ids_[idx], 0, m, k);
    for (int retry = 0; sent < k && retry < kTxRetries; ++retry)
        sent += rte_eth_tx_burst(ids_[idx], 0, m + sent, static_cast<std::uint16_t>(k - sent));
    if (sent == k) return;
    for (std::uint16_t i = sent; i < k; ++i)
        refused.bytes += m[i]->pkt_len;
    refused.frames += k - sent;
    rte_pktmbuf_free_bulk(m + sent, k - sent);
}

void PortIo::transmitAll(std::uint16_t idx, rte_mbuf **m, std::uint32_t k,
                         Device::TxRefused &refused)
{
    for (std::uint32_t from = 0; from < k; from += kBurst)
        transmit(idx, m + from,
                 static_cast<std::uint16_t>(std::min<std::uint32_t>(kBurst, k - from)), refused);
}

void PortIo::swapMacs(std::uint8_t *frame, std::uint32_t len)
{
    if (len < 2 * RTE_ETHER_ADDR_LEN) return;
    auto *eth = reinterpret_cast<rte_ether_hdr *>(frame);
    std::swap(eth->dst_addr, eth->src_addr);
}

} // namespace ringlab::dpdk
