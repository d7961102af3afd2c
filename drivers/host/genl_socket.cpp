// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/host/genl_socket.h"

#include <cerrno>
#include <cstring>
#include <ctime>

namespace ringlab::host {

namespace {

// The kernel's error code of an NLMSG_ERROR (0: an ack) and its extended-ack text, if any.
int kernelError(const nlmsghdr *m, std::string &text)
{
    if (mnl_nlmsg_get_payload_len(m) < sizeof(nlmsgerr)) return EBADMSG;
    const auto *err = static_cast<const nlmsgerr *>(mnl_nlmsg_get_payload(m));
    if (m->nlmsg_flags & NLM_F_ACK_TLVS) {
        std::size_t off = sizeof(nlmsgerr);
        if (!(m->nlmsg_flags & NLM_F_CAPPED) && err->msg.nlmsg_len > sizeof(nlmsghdr))
            off += err->msg.nlmsg_len - sizeof(nlmsghdr);
        if (off < mnl_nlmsg_get_payload_len(m))
            forEachAttr(static_cast<const char *>(mnl_nlmsg_get_payload(m)) + off,
                        mnl_nlmsg_get_payload_len(m) - off, [&](const nlattr *a) {
                            if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
                                mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
                                text = mnl_attr_get_str(a);
                        });
    }
    return -err->error;
}

} // namespace

GenlSocket::~GenlSocket()
{
    if (nl) mnl_socket_close(nl);
}

std::string errnoText(int e)
{
    return std::strerror(e);
}

std::optional<std::uint64_t> unsignedOf(const nlattr *a)
{
    switch (mnl_attr_get_payload_len(a)) {
    case 1:
        return mnl_attr_get_u8(a);
    case 2:
        return mnl_attr_get_u16(a);
    case 4:
        return mnl_attr_get_u32(a);
    case 8:
        return mnl_attr_get_u64(a);
    default:
        return std::nullopt;
    }
}

std::optional<std::int64_t> signedOf(const nlattr *a)
{
    switch (mnl_attr_get_payload_len(a)) {
    case 4:
        return static_cast<std::int32_t>(mnl_attr_get_u32(a));
    case 8:
        return static_cast<std::int64_t>(mnl_attr_get_u64(a));
    default:
        return std::nullopt;
    }
}

nlmsghdr *startRequest(GenlSocket &s, std::uint16_t family, std::uint8_t cmd, std::uint16_t flags,
                       std::uint8_t version)
{
    nlmsghdr *nlh = mnl_nlmsg_put_header(s.out.data());
    nlh->nlmsg_type = family;
    nlh->nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
    nlh->nlmsg_seq = ++s.seq;
    auto *g = static_cast<genlmsghdr *>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
    g->cmd = cmd;
    g->version = version;
    return nlh;
}

Status request(GenlSocket &s, nlmsghdr *nlh, const std::function<void(const nlmsghdr *)> &onMessage,
               int *code)
{
    if (code) *code = 0;
    const bool dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
    if (!dump) nlh->nlmsg_flags |= NLM_F_ACK;
    if (mnl_socket_sendto(s.nl, nlh, nlh->nlmsg_len) < 0)
        return Status::failed("netlink: cannot send: " + errnoText(errno));
    const unsigned seq = nlh->nlmsg_seq;
    for (;;) {
        const ssize_t n = mnl_socket_recvfrom(s.nl, s.in.data(), s.in.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Status::failed("netlink: cannot receive: " + errnoText(errno));
        int rem = static_cast<int>(n);
        for (auto *m = reinterpret_cast<const nlmsghdr *>(s.in.data()); mnl_nlmsg_ok(m, rem);
             m = mnl_nlmsg_next(m, &rem)) {
            if (!mnl_nlmsg_seq_ok(m, seq) || !mnl_nlmsg_portid_ok(m, s.portid)) continue;
            if (m->nlmsg_type == NLMSG_ERROR || m->nlmsg_type == NLMSG_DONE) {
                int e = 0;
                std::string text;
                if (m->nlmsg_type == NLMSG_ERROR)
                    e = kernelError(m, text);
                else if (mnl_nlmsg_get_payload_len(m) >= sizeof(int))
                    e = -*static_cast<const int *>(mnl_nlmsg_get_payload(m));
                if (e <= 0) return Status::success(); // an ack, or the end of a dump
                if (code) *code = e;
                return Status::refused(errnoText(e) + (text.empty() ? "" : " (" + text + ")"));
            }
            if (m->nlmsg_type >= NLMSG_MIN_TYPE) onMessage(m);
        }
    }
}

Status openGenl(const char *family, std::unique_ptr<GenlSocket> &out, std::uint16_t &familyId,
                int *code)
{
    if (code) *code = 0;
    auto s = std::make_unique<GenlSocket>();
    s->nl = mnl_socket_open(NETLINK_GENERIC);
    if (!s->nl) return Status::failed("generic netlink socket: " + errnoText(errno));
    int one = 1; // the kernel's reason with its errors, without the request echoed back
    mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof one);
    mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one, sizeof one);
    if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0)
        return Status::failed("generic netlink socket: cannot bind: " + errnoText(errno));
    s->portid = mnl_socket_get_portid(s->nl);
    s->seq = static_cast<unsigned>(std::time(nullptr));

    nlmsghdr *nlh = startRequest(*s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, 1);
    mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
    std::uint16_t id = 0;
    const Status st = request(
        *s, nlh,
        [&](const nlmsghdr *m) {
            forEachMessageAttr(m, [&](const nlattr *a) {
                if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID && mnl_attr_get_payload_len(a) >= 2)
                    id = mnl_attr_get_u16(a);
            });
        },
        code);
    if (!st.ok()) return st.within(std::string(family) + " netlink family: ");
    if (id == 0)
        return Status::failed(std::string(family) + " netlink family: the kernel gave no id");
    out = std::move(s);
    familyId = id;
    return Status::success();
}

} // namespace ringlab::host
