// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/connection_gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

namespace ringlab {

namespace {

constexpr std::size_t kMaxHeadBytes = 64 << 10; // past it, httplib refuses the head itself
constexpr int kLingerMs = 2000;                 // as closeConnectionSocket
constexpr std::size_t kLingerBytes = 4 << 20;

// Whether `b` holds a request's line and headers whole (blank lines before a request, as a
// client may send between pipelined ones, are skipped as httplib skips them). `scanned`: the
// bytes already searched, so that a head that trickles in is searched once, not once per byte.
bool wholeHead(const std::string &b, std::size_t &scanned)
{
    const std::size_t start = b.find_first_not_of("\r\n");
    if (start == std::string::npos) return false;
    const std::size_t from = std::max(start, scanned > 3 ? scanned - 3 : std::size_t{0});
    scanned = b.size();
    return b.find("\r\n\r\n", from) != std::string::npos ||
           b.find("\n\n", from) != std::string::npos;
}

// The bucket a peer's connections are counted in: an IPv4 address, an IPv6 /64 (what one
// host is usually given), an IPv4-mapped IPv6 address as IPv4; empty for a local socket.
std::string sourceOf(int fd)
{
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (getpeername(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0) return {};
    char text[INET6_ADDRSTRLEN] = {};
    if (a.ss_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in &>(a).sin_addr, text, sizeof text);
        return text;
    }
    if (a.ss_family != AF_INET6) return {};
    in6_addr addr = reinterpret_cast<sockaddr_in6 &>(a).sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&addr)) {
        inet_ntop(AF_INET, addr.s6_addr + 12, text, sizeof text);
        return text;
    }
    std::memset(addr.s6_addr + 8, 0, 8);
    inet_ntop(AF_INET6, &addr, text, sizeof text);
    return std::string(text) + "/64";
}

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// httplib's accept loop hands each connection to the gate at once: no thread is needed.
class InlineQueue : public httplib::TaskQueue {
  public:
    void enqueue(std::function<void()> fn) override { fn(); }
    void shutdown() override {}
};

// One request's reading and its reply's writing, over a connection from the gate. Reads
// must end by `readDeadlineMs` (the request whole within the read timeout of its first byte);
// bytes read past the request stay in `buffered` for the next one.
class GateStream : public httplib::Stream {
  public:
    GateStream(GatedServer::Connection &c, int readTimeoutMs, int writeTimeoutMs)
        : c_(c), readDeadlineMs_(nowMs() + readTimeoutMs), writeTimeoutMs_(writeTimeoutMs)
    {
    }
    bool is_readable() const override
    {
        return c_.holdsBytes() || waitFor(POLLIN, readDeadlineMs_ - nowMs());
    }
    bool is_writable() const override
    {
        if (!waitFor(POLLOUT, writeTimeoutMs_)) return false;
        // A client gone is noticed: a readable socket with nothing to read is closed.
        pollfd p{c_.fd, POLLIN, 0};
        if (::poll(&p, 1, 0) <= 0) return true;
        char byte;
        const ssize_t n = ::recv(c_.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    }
    ssize_t read(char *ptr, size_t size) override
    {
        if (c_.ssl) return tlsRead(ptr, size);
        if (c_.buffered.empty()) {
            if (!waitFor(POLLIN, readDeadlineMs_ - nowMs())) return -1;
            char chunk[4096];
            const ssize_t n = ::recv(c_.fd, chunk, sizeof chunk, 0);
            if (n <= 0) return n;
            c_.buffered.assign(chunk, static_cast<std::size_t>(n));
        }
        const std::size_t n = std::min(size, c_.buffered.size());
        std::memcpy(ptr, c_.buffered.data(), n);
        c_.buffered.erase(0, n);
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char *ptr, size_t size) override
    {
        if (c_.ssl) return tlsWrite(ptr, size);
        // What the socket takes now (httplib writes the rest next): a client that stops
        // reading holds this worker for one write timeout, never longer.
        for (;;) {
            if (!waitFor(POLLOUT, writeTimeoutMs_)) return -1;
            const ssize_t n = ::send(c_.fd, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return n;
        }
    }
    void get_remote_ip_and_port(std::string &ip, int &port) const override
    {
        sockaddr_storage a{};
        socklen_t len = sizeof a;
        if (getpeername(c_.fd, reinterpret_cast<sockaddr *>(&a), &len) == 0) address(a, ip, port);
    }
    void get_local_ip_and_port(std::string &ip, int &port) const override
    {
        sockaddr_storage a{};
        socklen_t len = sizeof a;
        if (getsockname(c_.fd, reinterpret_cast<sockaddr *>(&a), &len) == 0) address(a, ip, port);
    }
    socket_t socket() const override { return c_.fd; }

  private:
    // The socket is non-blocking under OpenSSL: each wait is bounded by the request's read
    // deadline, or a write's timeout.
    ssize_t tlsRead(char *ptr, size_t size)
    {
        if (!c_.buffered.empty()) { // read ahead by the gate
            const std::size_t n = std::min(size, c_.buffered.size());
            std::memcpy(ptr, c_.buffered.data(), n);
            c_.buffered.erase(0, n);
            return static_cast<ssize_t>(n);
        }
        const int want = static_cast<int>(std::min<size_t>(size, 1 << 30));
        for (;;) {
            ERR_clear_error();
            const int n = SSL_read(c_.ssl, ptr, want);
            if (n > 0) return n;
            const int e = SSL_get_error(c_.ssl, n);
            if (e == SSL_ERROR_ZERO_RETURN) return 0;
            const short ev = e == SSL_ERROR_WANT_READ    ? POLLIN
                             : e == SSL_ERROR_WANT_WRITE ? POLLOUT
                                                         : 0;
            if (!ev) c_.tlsFailed = true;
            if (!ev || !waitFor(ev, readDeadlineMs_ - nowMs())) return -1;
        }
    }
    ssize_t tlsWrite(const char *ptr, size_t size)
    {
        const int want = static_cast<int>(std::min<size_t>(size, 1 << 30));
        for (;;) {
            ERR_clear_error();
            const int n = SSL_write(c_.ssl, ptr, want);
            if (n > 0) return n;
            const int e = SSL_get_error(c_.ssl, n);
            const short ev = e == SSL_ERROR_WANT_READ    ? POLLIN
                             : e == SSL_ERROR_WANT_WRITE ? POLLOUT
                                                         : 0;
            if (!ev) c_.tlsFailed = true;
            if (!ev || !waitFor(ev, writeTimeoutMs_)) return -1;
        }
    }
    bool waitFor(short events, std::int64_t ms) const
    {
        if (ms <= 0) return false;
        pollfd p{c_.fd, events, 0};
        int rc;
        while ((rc = ::poll(&p, 1, static_cast<int>(ms))) < 0 && errno == EINTR) {
        }
        return rc > 0;
    }
    static void address(const sockaddr_storage &a, std::string &ip, int &port)
    {
        char text[INET6_ADDRSTRLEN] = "";
        if (a.ss_family == AF_INET) {
            const auto &in = reinterpret_cast<const sockaddr_in &>(a);
            inet_ntop(AF_INET, &in.sin_addr, text, sizeof text);
            port = ntohs(in.sin_port);
        } else if (a.ss_family == AF_INET6) {
            const auto &in6 = reinterpret_cast<const sockaddr_in6 &>(a);
            inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text);
            port = ntohs(in6.sin6_port);
        }
        ip = text;
    }
    GatedServer::Connection &c_;
    std::int64_t readDeadlineMs_;
    int writeTimeoutMs_;
};

} // namespace

bool GatedServer::Connection::holdsBytes() const
{
    return !buffered.empty() || (ssl && handshaken && SSL_pending(ssl) > 0);
}

GatedServer::GatedServer(int workers, RequestGate gate, const std::string &certFile,
                         const std::string &keyFile)
    : GatedServer(workers, std::move(gate))
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) return;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    // A write that OpenSSL must finish later may come from another buffer (httplib's).
    SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
    if (SSL_CTX_use_certificate_chain_file(ctx, certFile.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, keyFile.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1) {
        SSL_CTX_free(ctx);
        return;
    }
    tls_ = ctx;
}

GatedServer::GatedServer(int workers, RequestGate gate) : requestGate_(std::move(gate))
{
    // OpenSSL writes with write(), not send(MSG_NOSIGNAL): a client gone mid-reply must not
    // end the engine with SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
    // Each connection is a file: the cap stays below what the process may open.
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY)
        maxConnections_ = static_cast<int>(
            std::clamp<rlim_t>(files.rlim_cur / 2, 16, static_cast<rlim_t>(kMaxConnections)));
    new_task_queue = [] { return new InlineQueue; };
    workers_ = std::make_unique<httplib::ThreadPool>(static_cast<std::size_t>(workers));
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    wake_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = 0; // the wake-up
    epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev);
    gate_ = std::thread([this] { gateLoop(); });
}

GatedServer::~GatedServer()
{
    stopping_ = true;
    const std::uint64_t one = 1;
    [[maybe_unused]] auto w = ::write(wake_, &one, sizeof one);
    gate_.join();
    workers_->shutdown();   // requests being served end; a watcher ends with the run's shutdown
    for (auto &c : handed_) // given back by a worker as the gate stopped
        closeConnection(c);
    handed_.clear();
    close(epoll_);
    close(wake_);
    if (tls_) SSL_CTX_free(tls_);
}

void GatedServer::widenBacklog()
{
    if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, SOMAXCONN);
}

bool GatedServer::process_and_close_socket(socket_t sock)
{
    Connection c;
    c.fd = sock;
    if (tls_) {
        // Every read and write of a TLS connection waits in poll(), never in the socket.
        const int flags = ::fcntl(sock, F_GETFL);
        c.ssl = SSL_new(tls_);
        if (flags < 0 || ::fcntl(sock, F_SETFL, flags | O_NONBLOCK) != 0 || !c.ssl ||
            SSL_set_fd(c.ssl, sock) != 1) {
            closeConnection(c);
            return true;
        }
    }
    give(std::move(c));
    return true;
}

void GatedServer::give(Connection c)
{
    {
        std::lock_guard lock(mutex_);
        handed_.push_back(std::move(c));
    }
    const std::uint64_t one = 1;
    [[maybe_unused]] auto w = ::write(wake_, &one, sizeof one);
}

bool GatedServer::countUnproven(Connection &c)
{
    if (c.source.empty() || c.proven || c.countedUnproven) return true;
    std::lock_guard lock(sourceMutex_);
    int &n = unproven_[c.source];
    if (n >= kMaxUnprovenPerSource) return false;
    ++n;
    c.countedUnproven = true;
    return true;
}

void GatedServer::forgetUnproven(Connection &c)
{
    if (!c.countedUnproven) return;
    c.countedUnproven = false;
    std::lock_guard lock(sourceMutex_);
    const auto it = unproven_.find(c.source);
    if (it != unproven_.end() && --it->second <= 0) unproven_.erase(it);
}

bool GatedServer::makeRoomForSourceLocked(const std::string &source)
{
    auto oldest = idle_.end();
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
        if (it->second.countedUnproven && it->second.source == source &&
            (oldest == idle_.end() || it->second.idleSinceMs < oldest->second.idleSinceMs))
            oldest = it;
    if (oldest == idle_.end()) return false;
    closeConnection(oldest->second); // leaves the epoll set as it closes
    idle_.erase(oldest);
    return true;
}

void GatedServer::closeConnection(Connection &c)
{
    forgetUnproven(c);
    if (c.ssl) {
        // close_notify, without waiting for the reply; none to a peer gone or a broken TLS
        if (c.handshaken && !c.tlsFailed) SSL_shutdown(c.ssl);
        SSL_free(c.ssl);
        c.ssl = nullptr;
    }
    if (c.fd < 0) return;
    ::shutdown(c.fd, SHUT_RDWR);
    ::close(c.fd);
    c.fd = -1;
}

// On the gate thread: a connection handed over waits in the epoll set for its next request.
void GatedServer::admitLocked(Connection c, std::size_t inFlight)
{
    if (c.id == 0) {
        c.id = nextId_++;
        // Room among its source's unproven connections: that source's idle the longest goes;
        // with none of them idle, this one does.
        c.source = sourceOf(c.fd);
        while (!countUnproven(c))
            if (!makeRoomForSourceLocked(c.source)) return closeConnection(c);
        // Room for it: the unproven connection idle the longest goes, a proven one only when
        // none is left; with none idle, this one goes.
        while (static_cast<int>(idle_.size() + inFlight) + busy_.load() >= maxConnections_) {
            if (idle_.empty()) return closeConnection(c);
            auto oldest = std::min_element(idle_.begin(), idle_.end(), [](auto &a, auto &b) {
                if (a.second.proven != b.second.proven) return !a.second.proven;
                return a.second.idleSinceMs < b.second.idleSinceMs;
            });
            closeConnection(oldest->second); // leaves the epoll set as it closes
            idle_.erase(oldest);
        }
    }
    c.idleSinceMs = nowMs();
    epoll_event ev{};
    // A handshake that waits to write waits for room only: with EPOLLIN too, bytes the client
    // sent ahead would wake the gate again and again.
    ev.events = c.wantWrite ? EPOLLOUT : EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = c.id;
    if (epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev) != 0) return closeConnection(c);
    idle_.emplace(c.id, std::move(c));
}

void GatedServer::dispatch(Connection c)
{
    ++busy_;
    workers_->enqueue([this, c = std::move(c)]() mutable { serve(std::move(c)); });
}

void GatedServer::gateLoop()
{
    epoll_event events[64];
    while (!stopping_) {
        const int n = epoll_wait(epoll_, events, 64, 250);
        std::deque<Connection> handed;
        std::vector<Connection> ready;
        {
            std::lock_guard lock(mutex_);
            handed.swap(handed_);
            for (int k = 0; k < n; ++k) {
                // epoll_event is packed on x86-64: its u64 is misaligned, so it is copied
                // out before a reference binds to it (find takes the key by reference).
                const std::uint64_t id = events[k].data.u64;
                if (id == 0) continue;
                auto it = idle_.find(id);
                if (it == idle_.end()) continue;
                Connection &c = it->second;
                if (c.lingerByMs) {
                    if (drainLinger(c)) continue;
                    epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
                    closeConnection(c);
                    idle_.erase(it);
                    continue;
                }
                // A TLS handshake's step goes to a worker; a head is read here until whole.
                const Head h = c.ssl && !c.handshaken ? Head::Whole : readHead(c);
                if (h == Head::Partial) continue;
                epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
                if (h == Head::Whole)
                    ready.push_back(std::move(c));
                else
                    closeConnection(c);
                idle_.erase(it);
            }
            for (auto &c : handed) {
                if (stopping_)
                    closeConnection(c);
                else
                    takeBackLocked(std::move(c), ready);
            }
            // Silent for the keep-alive time, or a handshake not done by its deadline: closed.
            const std::int64_t now = nowMs(),
                               limit =
                                   now - static_cast<std::int64_t>(keep_alive_timeout_sec_) * 1000;
            for (auto it = idle_.begin(); it != idle_.end();) {
                const Connection &c = it->second;
                const bool alive = c.lingerByMs      ? c.lingerByMs > now
                                   : c.handshakeByMs ? c.handshakeByMs > now
                                   : c.headByMs      ? c.headByMs > now
                                                     : c.idleSinceMs > limit;
                if (alive) {
                    ++it;
                    continue;
                }
                closeConnection(it->second);
                it = idle_.erase(it);
            }
        }
        std::uint64_t count;
        [[maybe_unused]] auto r = ::read(wake_, &count, sizeof count);
        for (auto &c : ready)
            dispatch(std::move(c));
    }
    std::lock_guard lock(mutex_);
    for (auto &[id, c] : idle_)
        closeConnection(c);
    idle_.clear();
}

GatedServer::Head GatedServer::readHead(Connection &c)
{
    bool whole = wholeHead(c.buffered, c.headScanned);
    if (!c.headByMs && !whole)
        c.headByMs = nowMs() + static_cast<std::int64_t>(read_timeout_sec_) * 1000 +
                     read_timeout_usec_ / 1000; // whole within the read timeout of its first byte
    char chunk[4096];
    while (!whole && c.buffered.size() < kMaxHeadBytes) {
        ssize_t n;
        if (c.ssl) {
            ERR_clear_error();
            n = SSL_read(c.ssl, chunk, sizeof chunk);
            if (n <= 0) {
                const int e = SSL_get_error(c.ssl, static_cast<int>(n));
                if (e == SSL_ERROR_WANT_READ) break;
                // WANT_WRITE: TLS wants to send while the client has not read (a flood of
                // key updates): the connection goes rather than the gate waiting on it.
                if (e != SSL_ERROR_ZERO_RETURN) c.tlsFailed = true;
                n = 0;
            }
        } else {
            n = ::recv(c.fd, chunk, sizeof chunk, MSG_DONTWAIT);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
        }
        if (n <= 0) return whole ? Head::Whole : Head::Closed;
        c.buffered.append(chunk, static_cast<std::size_t>(n));
        whole = wholeHead(c.buffered, c.headScanned);
    }
    if (!whole && c.buffered.size() < kMaxHeadBytes) {
        if (c.buffered.find_first_not_of("\r\n") == std::string::npos) c.headByMs = 0;
        return Head::Partial;
    }
    c.headByMs = 0;
    c.headScanned = 0; // the next head's search starts anew, after this one is read
    return Head::Whole;
}

bool GatedServer::drainLinger(Connection &c)
{
    char scratch[16384];
    for (;;) {
        const ssize_t n = ::recv(c.fd, scratch, sizeof scratch, MSG_DONTWAIT);
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        if (n == 0) return false; // the client closed: it has read the reply
        c.lingered += static_cast<std::size_t>(n);
        if (c.lingered > kLingerBytes) return false;
    }
}

void GatedServer::takeBackLocked(Connection c, std::vector<Connection> &ready)
{
    // A TLS connection after its handshake, or one with bytes read ahead (a pipelined next
    // request): OpenSSL or the buffer may hold a head that epoll will not announce.
    if (c.lingerByMs) return admitLocked(std::move(c), ready.size());
    if ((c.ssl && c.handshaken) || !c.buffered.empty()) {
        switch (readHead(c)) {
        case Head::Whole:
            ready.push_back(std::move(c));
            return;
        case Head::Closed:
            closeConnection(c);
            return;
        case Head::Partial:
            break;
        }
    }
    admitLocked(std::move(c), ready.size());
}

// On a worker, as far as the bytes that have arrived allow: a connection that must wait for
// its client goes back to the gate.
bool GatedServer::handshakeStep(Connection &c)
{
    const std::int64_t readTimeoutMs =
        static_cast<std::int64_t>(read_timeout_sec_) * 1000 + read_timeout_usec_ / 1000;
    if (!c.handshakeByMs) c.handshakeByMs = nowMs() + readTimeoutMs; // from its first byte
    ERR_clear_error();
    const int r = SSL_accept(c.ssl);
    if (r == 1) {
        c.handshaken = true;
        c.handshakeByMs = 0;
        c.wantWrite = false;
        return true;
    }
    const int e = SSL_get_error(c.ssl, r);
    --busy_;
    if ((e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) && !stopping_ &&
        nowMs() < c.handshakeByMs) {
        c.wantWrite = e == SSL_ERROR_WANT_WRITE;
        give(std::move(c));
    } else {
        closeConnection(c); // not TLS, a failed handshake, or too slow
    }
    return false;
}

// On a worker: one request, then the connection goes back to the gate (or is closed).
void GatedServer::serve(Connection c)
{
    if (c.ssl && !c.handshaken) {
        if (!handshakeStep(c)) return;
        // Done: the gate reads the request's head as it arrives.
        --busy_;
        give(std::move(c));
        return;
    }
    bool keep = false, refused = false, showedToken = false;
    if (!stopping_) {
        GateStream strm(c, static_cast<int>(read_timeout_sec_ * 1000 + read_timeout_usec_ / 1000),
                        static_cast<int>(write_timeout_sec_ * 1000 + write_timeout_usec_ / 1000));
        ++c.served;
        const bool last = c.served >= static_cast<int>(keep_alive_max_count_);
        bool closed = false;
        keep = process_request(strm, last, closed,
                               [&](httplib::Request &req) {
                                   refused = requestGate_ && requestGate_(req);
                                   showedToken = !refused && (!showsToken_ || showsToken_(req));
                               }) &&
               !closed && !last && !refused;
        // A request that passed the gate with a valid token: the connection is no longer
        // bounded by its source's count of unproven ones (a public /metrics does not count).
        if (showedToken && !c.proven) {
            c.proven = true;
            forgetUnproven(c);
        }
    }
    --busy_;
    if (keep && !stopping_) {
        give(std::move(c));
    } else if (refused && !stopping_) {
        // The reply is sent: the sending side shut, and the gate drops what the client still
        // sends until it closes or the linger's bound, without a thread.
        if (c.ssl && c.handshaken && !c.tlsFailed) SSL_shutdown(c.ssl);
        c.tlsFailed = true; // its close_notify, if any, is sent: none again when it closes
        if (::shutdown(c.fd, SHUT_WR) != 0) return closeConnection(c);
        c.lingerByMs = nowMs() + kLingerMs;
        c.buffered.clear();
        give(std::move(c));
    } else {
        closeConnection(c);
    }
}

} // namespace ringlab
