// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/http_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace ringlab {

namespace {

int toMs(time_t s, time_t us)
{
    return static_cast<int>(s * 1000 + us / 1000);
}

// A connection's bytes, plain or TLS, with a read-ahead that outlives each request.
class ConnectionStream final : public httplib::Stream {
  public:
    ConnectionStream(int fd, SSL *ssl, int readMs, int writeMs)
        : fd_(fd), ssl_(ssl), readMs_(readMs), writeMs_(writeMs)
    {
    }

    // Waits up to `ms` for the next request; bytes already read ahead count.
    bool awaitRequest(int ms) const { return ready() || wait(POLLIN, ms); }

    bool is_readable() const override { return ready() || wait(POLLIN, readMs_); }
    bool is_writable() const override { return wait(POLLOUT, writeMs_); }

    ssize_t read(char *ptr, size_t size) override
    {
        if (pos_ == end_) {
            if (!is_readable()) return -1;
            const ssize_t n = ssl_ ? SSL_read(ssl_, buf_.data(), static_cast<int>(buf_.size()))
                                   : ::recv(fd_, buf_.data(), buf_.size(), 0);
            if (n <= 0) return n;
            pos_ = 0;
            end_ = static_cast<std::size_t>(n);
        }
        const std::size_t n = std::min(size, end_ - pos_);
        std::memcpy(ptr, buf_.data() + pos_, n);
        pos_ += n;
        return static_cast<ssize_t>(n);
    }

    ssize_t write(const char *ptr, size_t size) override
    {
        if (!is_writable()) return -1;
        if (ssl_) return SSL_write(ssl_, ptr, static_cast<int>(std::min<size_t>(size, 1 << 30)));
        return ::send(fd_, ptr, size, MSG_NOSIGNAL);
    }

    void get_remote_ip_and_port(std::string &ip, int &port) const override
    {
        address(getpeername, ip, port);
    }
    void get_local_ip_and_port(std::string &ip, int &port) const override
    {
        address(getsockname, ip, port);
    }
    socket_t socket() const override { return fd_; }

  private:
    bool ready() const { return pos_ < end_ || (ssl_ && SSL_pending(ssl_) > 0); }

    bool wait(short events, int ms) const
    {
        pollfd p{fd_, events, 0};
        int rc;
        do
            rc = ::poll(&p, 1, ms);
        while (rc < 0 && errno == EINTR);
        return rc > 0;
    }

    void address(int (*get)(int, sockaddr *, socklen_t *), std::string &ip, int &port) const
    {
        sockaddr_storage a{};
        socklen_t len = sizeof a;
        ip.clear();
        port = -1;
        if (get(fd_, reinterpret_cast<sockaddr *>(&a), &len) != 0) return;
        char text[INET6_ADDRSTRLEN] = {};
        if (a.ss_family == AF_INET) {
            const auto &v4 = reinterpret_cast<const sockaddr_in &>(a);
            inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
            port = ntohs(v4.sin_port);
        } else if (a.ss_family == AF_INET6) {
            const auto &v6 = reinterpret_cast<const sockaddr_in6 &>(a);
            inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
            port = ntohs(v6.sin6_port);
        }
        ip = text;
    }

    int fd_;
    SSL *ssl_;
    int readMs_, writeMs_;
    std::array<char, 4096> buf_{};
    std::size_t pos_ = 0, end_ = 0;
};

// httplib's keep-alive loop (at most `maxCount` requests, each awaited for `keepAliveS`), on
// one stream. `one(last, closed, closeAfter)` serves a request. `refused` tells whether the
// last request was refused with its body unread.
template <class One>
bool serveConnection(ConnectionStream &strm, const std::atomic<socket_t> &listening,
                     std::size_t maxCount, time_t keepAliveS, bool &refused, One one)
{
    bool ret = false;
    refused = false;
    for (std::size_t left = maxCount;
         left > 0 && listening != INVALID_SOCKET && strm.awaitRequest(toMs(keepAliveS, 0));
         --left) {
        bool closed = false;
        ret = one(left == 1, closed, refused);
        if (!ret || closed || refused) break;
    }
    return ret;
}

} // namespace

// After a refusal whose body was not read, the client may still be sending it: closing with
// unread bytes would reset the connection and could destroy the reply before the client reads
// it. So what still comes is read and thrown away, for at most kLingerMs and kLingerBytes.
void closeConnectionSocket(int sock, bool linger)
{
    constexpr int kLingerMs = 2000;
    constexpr std::size_t kLingerBytes = 4 << 20;
    if (linger && ::shutdown(sock, SHUT_WR) == 0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kLingerMs);
        std::array<char, 16384> scratch;
        std::size_t drained = 0;
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  until - std::chrono::steady_clock::now())
                                  .count();
            pollfd p{sock, POLLIN, 0};
            if (left <= 0 || drained > kLingerBytes || ::poll(&p, 1, static_cast<int>(left)) <= 0)
                break;
            const ssize_t n = ::recv(sock, scratch.data(), scratch.size(), 0);
            if (n <= 0) break;
            drained += static_cast<std::size_t>(n);
        }
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
}

void closeAfterReply(httplib::Request &req)
{
    req.headers.erase("Connection");
    req.set_header("Connection", "close");
}

bool PipelinedServer::process_and_close_socket(socket_t sock)
{
    ConnectionStream strm(sock, nullptr, toMs(read_timeout_sec_, read_timeout_usec_),
                          toMs(write_timeout_sec_, write_timeout_usec_));
    bool refused = false;
    const bool ret =
        serveConnection(strm, svr_sock_, keep_alive_max_count_, keep_alive_timeout_sec_, refused,
                        [&](bool last, bool &closed, bool &closeAfter) {
                            return process_request(strm, last, closed, [&](httplib::Request &req) {
                                closeAfter = gate_ && gate_(req);
                            });
                        });
    closeConnectionSocket(sock, refused);
    return ret;
}

} // namespace ringlab
