// SPDX-License-Identifier: GPL-2.0-or-later
// A generic netlink socket and its request loop, shared by the families the kernel device
// speaks (netdev for NAPIs, ethtool for a netdev's features, channels, rings and
// coalescing). Messages are built and parsed with libmnl; a family is found by its name.
#pragma once

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/status.h"

namespace ringlab::host {

// The socket, its sequence numbers and its buffers.
struct GenlSocket {
    mnl_socket *nl = nullptr;
    unsigned portid = 0;
    unsigned seq = 0;
    std::array<char, 1024> out{};
    std::vector<char> in = std::vector<char>(64 * 1024); // a dump's batch fits
    ~GenlSocket();
};

// A socket bound for requests to the family with this name, and its id. A family this kernel
// lacks is refused with `code` ENOENT.
Status openGenl(const char *family, std::unique_ptr<GenlSocket> &out, std::uint16_t &familyId,
                int *code = nullptr);

// A request's header: family, command, NLM_F_* flags besides NLM_F_REQUEST, version.
nlmsghdr *startRequest(GenlSocket &s, std::uint16_t family, std::uint8_t cmd, std::uint16_t flags,
                       std::uint8_t version);

// Sends a request and hands each answer to `onMessage` until the kernel's ack (a do) or the
// end of a dump. The kernel's error comes back refused, with its extended-ack text, and its
// errno in `code`.
Status request(GenlSocket &s, nlmsghdr *nlh, const std::function<void(const nlmsghdr *)> &onMessage,
               int *code = nullptr);

// Each attribute in [start, start + len), bounds checked by libmnl (the macros it offers for
// this assign void pointers, which C++ does not allow).
template <class F> void forEachAttr(const void *start, std::size_t len, F &&f)
{
    const auto *a = static_cast<const nlattr *>(start);
    int rem = static_cast<int>(len);
    while (mnl_attr_ok(a, rem)) {
        f(a);
        rem -= static_cast<int>(MNL_ALIGN(a->nla_len));
        a = mnl_attr_next(a);
    }
}

template <class F> void forEachMessageAttr(const nlmsghdr *m, F &&f)
{
    const std::size_t hdr = MNL_ALIGN(sizeof(genlmsghdr));
    if (mnl_nlmsg_get_payload_len(m) < hdr) return;
    forEachAttr(mnl_nlmsg_get_payload_offset(m, sizeof(genlmsghdr)),
                mnl_nlmsg_get_payload_len(m) - hdr, f);
}

template <class F> void forEachNested(const nlattr *a, F &&f)
{
    forEachAttr(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a), f);
}

// An integer attribute of any width the kernel sends.
std::optional<std::uint64_t> unsignedOf(const nlattr *a);
std::optional<std::int64_t> signedOf(const nlattr *a);

std::string errnoText(int e);

} // namespace ringlab::host
