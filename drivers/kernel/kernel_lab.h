// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel lab (`--device kernel-lab`, issue 44): a veth pair whose one end stays in this
// namespace as the kernel device's netdev (with GRO on, so that it has a NAPI, and so the
// host's sysfs and netdev netlink reach it), and whose other end lives in a network
// namespace of its own, where the request/response client runs. The pair has a /30 of
// 198.19.0.0/16 (inside the benchmarking range 198.18.0.0/15) chosen by the engine's pid,
// so that two engines' labs do not meet. Deleting the namespace deletes both ends; what a
// killed run left is removed by the next one (lab::removeStaleNamespaces).
#pragma once

#include <netinet/in.h>

#include <string>
#include <vector>

namespace ringlab::kernel {

class KernelLab {
  public:
    // The most receive and transmit channels the engine's end can have (ethtool -L).
    static constexpr int kLabQueues = 4;
    // Creates the namespace and the pair; throws std::runtime_error naming the step and
    // iproute2's or ethtool's answer (what was made is removed first).
    KernelLab();
    ~KernelLab();
    KernelLab(const KernelLab &) = delete;
    KernelLab &operator=(const KernelLab &) = delete;

    const std::string &ifname() const { return hostIf_; } // this namespace's end
    const std::string &peerIfname() const { return peerIf_; }
    const std::string &netns() const { return ns_; } // the client's namespace
    in_addr hostAddress() const { return host_; }
    std::string hostAddressText() const; // "198.19.1.1"
    in_addr peerAddress() const { return peer_; }
    std::string describe() const; // "kernel-lab (rk123a 198.19.1.1 <-> ns ... 198.19.1.2)"
    // What was found and removed when the lab was made (a killed run's namespaces).
    std::vector<std::string> takeEvents();

  private:
    void remove();
    std::string ns_, hostIf_, peerIf_;
    in_addr host_{}, peer_{};
    bool made_ = false;
    std::vector<std::string> events_;
};

} // namespace ringlab::kernel
