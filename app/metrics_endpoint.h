// SPDX-License-Identifier: GPL-2.0-or-later
// `GET /metrics` over HTTP for Prometheus, on a loopback address: the running engine's
// exposition (engine/metrics/prometheus_exporter.h), served from a thread of its own.
// Anything else gets 404; only GET and HEAD are answered.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "engine/datapath/tunables.h"

namespace httplib {
class Server;
}

namespace ringlab {

// "HOST:PORT" with a loopback host (127.0.0.0/8, localhost, [::1]) and a port in 0..65535
// (0: any free port). The error names the value and what is allowed.
[[nodiscard]] Status parseLoopbackListen(const std::string &text, std::string &host, int &port);

class MetricsEndpoint {
  public:
    using Text = std::function<std::string()>; // called on the server's threads
    MetricsEndpoint();
    ~MetricsEndpoint();
    MetricsEndpoint(const MetricsEndpoint &) = delete;
    MetricsEndpoint &operator=(const MetricsEndpoint &) = delete;

    // Binds and starts serving; the error names the address and the cause.
    [[nodiscard]] Status start(const std::string &host, int port, Text text);
    int port() const { return port_; } // the bound port (useful with 0)
    void stop();

  private:
    std::unique_ptr<httplib::Server> server_;
    std::thread thread_;
    int port_ = 0;
};

} // namespace ringlab
