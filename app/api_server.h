// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's API over HTTP (docs/api.md), for `ringlab-engine serve`: a Unix socket by
// default (mode 0660, group ringlab), or TCP with a bearer token read from an owner-only
// file, with TLS when given a certificate and key. Requests go to RunApi; the live stream is
// newline-delimited JSON; GET /metrics is Prometheus's text format.
//
// Requests are checked from their head before their body is read (app/http_request_check.h),
// and pipelined requests are answered in order (app/http_connection.h).
//
// Bounds: request bodies (kMaxBodyBytes), watchers of the stream (kMaxWatchers), the
// server's threads (kServerThreads), the time a client may take to send a request or read a
// reply (kClientTimeoutS). A client past a bound is refused or cut off; the run goes on.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "app/http_request_check.h"
#include "engine/run/engine_socket.h"
#include "engine/run/run_api.h"

namespace httplib {
class Server;
}

namespace ringlab {

inline constexpr std::size_t kMaxBodyBytes = 64 * 1024;
inline constexpr int kServerThreads = static_cast<int>(kMaxWatchers) + 16;
inline constexpr int kClientTimeoutS = 5;

struct ListenSpec {
    bool unixSocket = true;
    std::string path;         // unix
    std::string host;         // tcp
    int port = 0;             // tcp; 0: any free port
    std::string text() const; // "unix:/run/ringlab/engine.sock", "tcp:127.0.0.1:7787"
};
// "HOST:PORT" with HOST an address ([::1] for IPv6; localhost is 127.0.0.1) and PORT 0..65535.
// The error names what is wrong; the caller says which option and what is allowed.
[[nodiscard]] Status parseHostPort(const std::string &text, std::string &host, int &port);
bool isLoopbackAddress(const std::string &host);

// "unix:PATH" or "tcp:HOST:PORT" (HOST an address; [::1] for IPv6); the error names the value
// and the forms allowed.
[[nodiscard]] Status parseListen(const std::string &text, ListenSpec &out);

struct ApiServerOptions {
    ListenSpec listen;
    std::string token;          // required for TCP
    bool metricsPublic = false; // GET /metrics without the token
    std::string tlsCert, tlsKey;
    std::string socketGroup = "ringlab";
    bool socketGroupRequired = false; // --socket-group given: a group that cannot be set refuses
};

class ApiServer {
  public:
    explicit ApiServer(RunApi &api);
    ~ApiServer();
    ApiServer(const ApiServer &) = delete;
    ApiServer &operator=(const ApiServer &) = delete;

    // Binds and starts serving; the error names the address and the cause. `notes` hears of
    // what a user should know (a socket group that does not exist).
    [[nodiscard]] Status start(const ApiServerOptions &o, std::string &notes);
    // "http://127.0.0.1:7787", "https://...", "unix:/run/ringlab/engine.sock".
    std::string url() const;
    void stop();

  private:
    void routes();
    RunApi &api_;
    ApiServerOptions options_;
    RequestPolicy policy_; // what checkRequest allows, from options_
    std::unique_ptr<httplib::Server> server_;
    std::thread thread_;
    int port_ = 0;
    std::atomic<int> streams_{0}; // open stream connections
};

} // namespace ringlab
