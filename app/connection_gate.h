// SPDX-License-Identifier: GPL-2.0-or-later
// An HTTP server whose connections wait for their next request without holding a thread.
//
// cpp-httplib 0.11 gives each accepted connection a pool thread until it closes: a thousand
// connections that send nothing held the 48 threads in turn for their keep-alive time, and
// an authorised request waited behind them for seconds. Here a connection between requests
// sits in one epoll set (the gate); only one whose request has begun to arrive is handed to
// a worker, which serves that one request (httplib parses and routes it) and gives the
// connection back. The request's head (its line and headers) is read by the gate itself, as
// its bytes arrive, and the connection goes to a worker only once the head is whole: a client
// that trickles its head holds no thread, so slow clients cannot keep authorised requests
// waiting (issue 45 item 3). A connection silent for the keep-alive time is closed; past
// maxConnections(), the connection idle the longest is closed to make room, so a new client
// always gets in. A request must arrive whole within the read timeout of its first byte.
// A connection that has not yet shown a valid token (no request of it passed the request
// gate) is "unproven": each source address (IPv4, or an IPv6 /64) may hold at most
// kMaxUnprovenPerSource of them, the one of that source idle the longest closed to make room,
// so that one client cannot fill the total and push out others' idle connections. A request
// that fails the gate closes its connection after the reply. Past the total, the unproven
// connection idle the longest goes first; a proven one only when none is left.
//
// HTTPS goes through the same gate: a new connection waits in the epoll set until its
// ClientHello arrives (or the idle time passes), and the TLS handshake is made in steps on the
// workers, each step as far as the bytes that have arrived allow (a non-blocking socket): a
// connection that waits for its client's next handshake message goes back to the gate, so no
// thread waits on a slow or silent client, and the whole handshake must end within the read
// timeout of its first byte. Between requests a TLS connection waits in the gate like any
// other (what OpenSSL has already read counts as a request begun).
//
// Threads: httplib's accept loop (hands connections over), the gate's own thread (epoll,
// timeouts, the cap) and the workers. The gate's mutex guards the connections handed over and
// given back; nothing is held while a request is served.
#pragma once

#include <httplib.h>
#include <openssl/ssl.h>

#include "app/http_connection.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ringlab {

inline constexpr int kMaxConnections = 2048;
inline constexpr int kMaxUnprovenPerSource = 256;

class GatedServer : public httplib::Server {
  public:
    // `workers`: the threads that serve requests (a stream's watcher holds one while it watches).
    // `gate` sees each request's head before it is routed; when it says so, the connection is
    // closed after the reply, lingering for the unread body (app/http_connection.h).
    explicit GatedServer(int workers, RequestGate gate = nullptr);
    // HTTPS: the PEM certificate (chain) and its key; tlsValid() says whether they loaded.
    GatedServer(int workers, RequestGate gate, const std::string &certFile,
                const std::string &keyFile);
    ~GatedServer() override;
    bool tlsValid() const { return tls_ != nullptr; }
    GatedServer(const GatedServer &) = delete;
    GatedServer &operator=(const GatedServer &) = delete;

    // httplib 0.11 listens with a backlog of 5: connections beyond it wait for the client's
    // SYN retry (1 s, 3 s...). Called once bound, this makes it the system's largest.
    void widenBacklog();

    // Whether a request that passed the gate showed a valid token, which makes its connection
    // proven (no longer bounded by its source's share); before listening. Unset: any request
    // that passes proves it (a Unix socket, where the socket's mode is the credential).
    void setTokenCheck(std::function<bool(const httplib::Request &)> showsToken)
    {
        showsToken_ = std::move(showsToken);
    }

    // Open connections at most (kMaxConnections, or fewer when the process may open fewer files).
    int maxConnections() const { return maxConnections_; }

    struct Connection {
        int fd = -1;
        std::uint64_t id = 0;
        std::string buffered; // bytes read past the last request (a pipelined next one)
        std::int64_t idleSinceMs = 0;
        int served = 0;
        SSL *ssl = nullptr;             // HTTPS: owned, freed when the connection closes
        bool handshaken = false;        // the TLS handshake is done
        std::int64_t handshakeByMs = 0; // a handshake begun must end by then (0: none begun)
        bool wantWrite = false;         // the handshake waits to write, not to read
        std::int64_t headByMs = 0;      // a head begun must be whole by then (0: none begun)
        std::size_t headScanned = 0;    // bytes of `buffered` already searched for the head's end
        std::string source;             // its address's bucket (sourceOf); empty: a local socket
        bool proven = false;            // a request of it passed the request gate
        bool countedUnproven = false;   // in unproven_ (under sourceMutex_)
        bool tlsFailed = false; // no close_notify: the peer is gone, TLS broke, or one was sent
        // Refused before its body was read: its sending side shut, what the client still
        // sends is read and dropped by the gate until lingerByMs (or 4 MiB), so that it reads
        // the reply rather than a reset (RFC 9112 section 9.6).
        std::int64_t lingerByMs = 0;
        std::size_t lingered = 0;
        // Whether a request has begun to arrive without a read: bytes the gate or OpenSSL
        // already holds.
        bool holdsBytes() const;
    };

  private:
    // Called by httplib's accept loop for each new connection (the task queue runs it inline).
    bool process_and_close_socket(socket_t sock) override;
    void give(Connection c); // to the gate: wait for the next request
    void gateLoop();
    // `inFlight`: connections taken out of the gate this round, not yet with a worker (they
    // count against the cap too).
    void admitLocked(Connection c, std::size_t inFlight);
    // The per-source count of unproven connections: a new one counted (false: its source
    // holds as many already), and one proven or closed forgotten. Any thread.
    bool countUnproven(Connection &c);
    void forgetUnproven(Connection &c);
    // On the gate thread, with the mutex: room for one more unproven connection of `source`,
    // by closing that source's unproven connection idle the longest; false when none is idle.
    bool makeRoomForSourceLocked(const std::string &source);
    void dispatch(Connection c);
    void serve(Connection c);
    void closeConnection(Connection &c);
    // On the gate thread: drops what a lingering connection's client sent; false when it is
    // to be closed (the client closed, or the linger's bound).
    bool drainLinger(Connection &c);
    // One step of a TLS handshake: true when done; false with `c` given back or closed.
    bool handshakeStep(Connection &c);
    // On the gate thread: what has arrived of the next request's head, read without waiting
    // into `buffered`.
    enum class Head { Whole, Partial, Closed };
    Head readHead(Connection &c);
    // On the gate thread, with the mutex: a connection back from a worker or new, to the epoll
    // set or (its head whole) to `ready`.
    void takeBackLocked(Connection c, std::vector<Connection> &ready);

    RequestGate requestGate_;
    std::function<bool(const httplib::Request &)> showsToken_;
    SSL_CTX *tls_ = nullptr;
    int maxConnections_ = kMaxConnections;
    int epoll_ = -1, wake_ = -1;
    std::unique_ptr<httplib::ThreadPool> workers_;
    std::mutex mutex_;
    std::deque<Connection> handed_;            // waiting for the gate thread to take them
    std::map<std::uint64_t, Connection> idle_; // in the epoll set, by id
    std::atomic<int> busy_{0};                 // with a worker, or queued for one
    std::atomic<bool> stopping_{false};
    std::uint64_t nextId_ = 1;
    std::mutex sourceMutex_; // unproven_ (taken after mutex_, or alone on a worker)
    std::map<std::string, int> unproven_;
    std::thread gate_;
};

} // namespace ringlab
