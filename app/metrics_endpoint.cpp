// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/metrics_endpoint.h"

#include "app/api_server.h"
#include "app/http_connection.h"

#include <httplib.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ringlab {

Status parseLoopbackListen(const std::string &text, std::string &host, int &port)
{
    const std::string allowed = " (allowed: HOST:PORT with a loopback host, 127.0.0.1, "
                                "localhost or [::1], and a port 0..65535; 0 picks a free one)";
    if (auto st = parseHostPort(text, host, port); !st.ok())
        return Status{"--metrics-listen \"" + text + "\": " + st.error + allowed};
    if (!isLoopbackAddress(host))
        return Status{"--metrics-listen \"" + text + "\": \"" + host +
                      "\" is not a loopback address; the metrics are served to this machine "
                      "only" +
                      allowed};
    return {};
}

MetricsEndpoint::MetricsEndpoint() = default;

MetricsEndpoint::~MetricsEndpoint()
{
    stop();
}

Status MetricsEndpoint::start(const std::string &host, int port, Text text)
{
    // Pipelined scrapes are answered in order (app/http_connection.h).
    server_ = std::make_unique<PipelinedServer>(nullptr);
    server_->set_payload_max_length(4096); // a scrape has no body
    server_->set_read_timeout(5, 0);
    server_->set_write_timeout(5, 0);
    server_->Get("/metrics",
                 [text = std::move(text)](const httplib::Request &, httplib::Response &r) {
                     r.set_content(text(), "text/plain; version=0.0.4; charset=utf-8");
                 });
    server_->set_error_handler([](const httplib::Request &, httplib::Response &r) {
        if (r.status == 404)
            r.set_content("not found: only GET /metrics is served\n", "text/plain");
    });
    if (port == 0) {
        port_ = server_->bind_to_any_port(host);
        if (port_ <= 0) port_ = 0;
    } else {
        port_ = server_->bind_to_port(host, port) ? port : 0;
    }
    if (!port_) {
        const int err = errno;
        server_.reset();
        return Status{"--metrics-listen " + host + ":" + std::to_string(port) +
                      ": cannot listen (" + std::strerror(err) + ")"};
    }
    thread_ = std::thread([s = server_.get()] { s->listen_after_bind(); });
    // stop() only reaches a server that is already listening: wait for it (httplib has no
    // ready signal in 0.11; this takes microseconds).
    for (int k = 0; k < 5000 && !server_->is_running(); ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return {};
}

void MetricsEndpoint::stop()
{
    if (!server_) return;
    server_->stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
}

} // namespace ringlab
