// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/kernel_lab.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <stdexcept>

#include "drivers/lab/netns.h"

namespace ringlab::kernel {

namespace {
// 198.19.0.0/16 in /30s: 16,384 pairs, one per pid modulo that.
constexpr std::uint32_t kBase = (198u << 24) | (19u << 16);
constexpr std::uint32_t kPairs = 1u << 14;

std::string dotted(in_addr a)
{
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &a, text, sizeof text);
    return text;
}

} // namespace

KernelLab::KernelLab()
{
    for (const auto &ns : lab::removeStaleNamespaces())
        events_.push_back("removed network namespace " + ns + " left by a run that was killed");
    const std::string pid = std::to_string(getpid());
    // The vdev-free names: "rk" + pid + side, at most 15 characters.
    static int instance = 0; // a desktop makes one lab per run, one after another
    ns_ = std::string(lab::kNamespacePrefix) + pid + "-k" + std::to_string(instance++);
    hostIf_ = "rk" + pid + "a";
    peerIf_ = "rk" + pid + "b";
    const std::uint32_t pair = kBase + 4 * (static_cast<std::uint32_t>(getpid()) % kPairs);
    host_.s_addr = htonl(pair + 1);
    peer_.s_addr = htonl(pair + 2);
    const std::string hostCidr = dotted(host_) + "/30", peerCidr = dotted(peer_) + "/30";
    if (auto err = lab::ip({"netns", "add", ns_}); !err.empty())
        throw std::runtime_error("kernel-lab: cannot create network namespace " + ns_ + ": " + err);
    made_ = true;
    // Both ends at once, the peer made inside: deleting the namespace deletes the pair.
    const std::string queues = std::to_string(kLabQueues);
    const std::vector<std::vector<std::string>> steps{
        // The engine's end has room for kLabQueues receive and transmit queues, so that
        // netdev.rx_channels has a range; it starts with one of each. The peer sends on one
        // queue: veth_xmit hands a frame to the receiver's NAPI only when the sender's queue
        // has a receive queue at the engine's end (else it goes through the CPU's backlog),
        // and a veth's default is a queue per CPU, picked by the flow's hash.
        {"ip", "link", "add", hostIf_, "numtxqueues", queues, "numrxqueues", queues, "type", "veth",
         "peer", "name", peerIf_, "numtxqueues", "1", "numrxqueues", "1", "netns", ns_},
        {"ethtool", "-L", hostIf_, "rx", "1", "tx", "1"},
        {"ip", "addr", "add", hostCidr, "dev", hostIf_},
        {"ip", "-n", ns_, "addr", "add", peerCidr, "dev", peerIf_},
        {"ip", "-n", ns_, "link", "set", "lo", "up"},
        {"ip", "-n", ns_, "link", "set", peerIf_, "up"},
        {"ip", "link", "set", hostIf_, "up"},
        // GRO on gives a veth's receive side a NAPI. veth_xmit hands a frame to it only
        // when the sending end has no TSO (veth_skb_is_eligible_for_gro: else a UDP frame
        // goes through the CPU's backlog, never the veth's NAPI): TSO off on both ends.
        {"ethtool", "-K", hostIf_, "gro", "on", "tso", "off"},
        {"ip", "netns", "exec", ns_, "ethtool", "-K", peerIf_, "gro", "on", "tso", "off"},
    };
    for (const auto &argv : steps)
        if (auto err = lab::runChecked(argv); !err.empty()) {
            remove();
            throw std::runtime_error("kernel-lab: " + err);
        }
}

KernelLab::~KernelLab()
{
    remove();
}

void KernelLab::remove()
{
    if (!made_) return;
    made_ = false;
    lab::ip({"netns", "delete", ns_});    // the pair goes with its peer end
    lab::ip({"link", "delete", hostIf_}); // in case the pair was only half made
}

std::string KernelLab::hostAddressText() const
{
    return dotted(host_);
}

std::string KernelLab::describe() const
{
    return "kernel-lab (" + hostIf_ + " " + dotted(host_) + " <-> " + ns_ + " " + peerIf_ + " " +
           dotted(peer_) + ")";
}

std::vector<std::string> KernelLab::takeEvents()
{
    return std::exchange(events_, {});
}

} // namespace ringlab::kernel
