// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/tx_only.h"

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <algorithm>
#include <cstring>

namespace ringlab::dpdk {

namespace {
constexpr std::uint32_t kFcs = 4;
constexpr std::uint32_t kHeaders =
    sizeof(rte_ether_hdr) + sizeof(rte_ipv4_hdr) + sizeof(rte_udp_hdr);

// 02:00:00:00:00:01 -> broadcast, 198.18.0.1 -> 198.18.0.2 port 9 (discard): inside the
// benchmarking range, never routed anywhere.
void buildFrame(std::uint8_t *p, std::uint32_t frameBytes, std::uint64_t seq)
{
    const std::uint32_t len = frameBytes - kFcs;
    auto *eth = reinterpret_cast<rte_ether_hdr *>(p);
    std::memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
    const std::uint8_t src[RTE_ETHER_ADDR_LEN] = {0x02, 0, 0, 0, 0, 0x01};
    std::memcpy(&eth->src_addr, src, RTE_ETHER_ADDR_LEN);
    eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
    auto *ip = reinterpret_cast<rte_ipv4_hdr *>(eth + 1);
    std::memset(ip, 0, sizeof *ip);
    ip->version_ihl = RTE_IPV4_VHL_DEF;
    ip->total_length = rte_cpu_to_be_16(static_cast<std::uint16_t>(len - sizeof(rte_ether_hdr)));
    ip->packet_id = rte_cpu_to_be_16(static_cast<std::uint16_t>(seq));
    ip->time_to_live = 64;
    ip->next_proto_id = IPPROTO_UDP;
    ip->src_addr = rte_cpu_to_be_32(0xC6120001); // 198.18.0.1
    ip->dst_addr = rte_cpu_to_be_32(0xC6120002); // 198.18.0.2
    ip->hdr_checksum = rte_ipv4_cksum(ip);
    auto *udp = reinterpret_cast<rte_udp_hdr *>(ip + 1);
    udp->src_port = rte_cpu_to_be_16(9);
    udp->dst_port = rte_cpu_to_be_16(9);
    udp->dgram_len = rte_cpu_to_be_16(
        static_cast<std::uint16_t>(len - sizeof(rte_ether_hdr) - sizeof(rte_ipv4_hdr)));
    udp->dgram_cksum = 0;
}
} // namespace

void TxOnlySource::start(std::int64_t nowNs)
{
    arrivals_.reshape({}, nowNs);
}

void TxOnlySource::follow(const LiveParams &live, std::int64_t nowNs)
{
    sim::ArrivalShape shape;
    shape.pattern = live.choice<LoadPattern>(TunableId::LoadPattern);
    shape.ratePps = static_cast<double>(live.integer(TunableId::LoadRatePps));
    shape.onNs = live.integer(TunableId::LoadBurstOnUs) * 1000;
    shape.offNs = live.integer(TunableId::LoadBurstOffUs) * 1000;
    if (shape == arrivals_.shape()) return;
    const double gap = shape.ratePps > 0 ? 1e9 / shape.ratePps : 0;
    const double from = std::max(arrivals_.last(), static_cast<double>(nowNs) - gap);
    arrivals_.reshape(shape, static_cast<std::int64_t>(std::min(from, static_cast<double>(nowNs))));
}

std::uint32_t TxOnlySource::generate(Buffer **out, std::uint32_t max, std::int64_t nowNs,
                                     MbufPool &pool, std::uint16_t ports, const LiveParams &live,
                                     Counters &c)
{
    follow(live, nowNs);
    if (arrivals_.peek() < nowNs - kMaxBacklogNs) {
        const std::uint64_t lost = arrivals_.skipUntil(nowNs - kMaxBacklogNs);
        c.add(CounterId::Offered, lost);
        c.add(CounterId::RxMissed, lost);
    }
    std::uint32_t due = 0;
    sim::ArrivalGenerator probe = arrivals_;
    while (due < max && probe.peek() <= nowNs) {
        probe.pop();
        ++due;
    }
    if (!due) return 0;
    const std::uint32_t got = pool.alloc(out, due);
    if (got < due) c.add(CounterId::AllocFail); // the rest stay due: tried again next poll
    const auto frame = static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(live.integer(TunableId::LoadFrameBytes), 64, 1518));
    for (std::uint32_t k = 0; k < got; ++k) {
        Buffer *b = out[k];
        rte_mbuf *m = mbufOf(b);
        const std::int64_t t = arrivals_.peek();
        arrivals_.pop();
        buildFrame(b->data, frame, seq_);
        m->data_len = static_cast<std::uint16_t>(frame - kFcs);
        m->pkt_len = frame - kFcs;
        b->len = frame - kFcs;
        b->seq = seq_++;
        b->port = nextPort_;
        nextPort_ = static_cast<std::uint16_t>((nextPort_ + 1) % ports);
        b->at(Stage::Arrival) = t; // every later stage stamps its own
    }
    c.add(CounterId::Offered, got);
    static_assert(kHeaders + kFcs <= 64, "a minimum frame holds the headers");
    return got;
}

} // namespace ringlab::dpdk
