// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/metrics_endpoint.h"

#include <arpa/inet.h>
#include <httplib.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ringlab {

Status parseLoopbackListen(const std::string &text, std::string &host, int &port)
{
    const auto colon = text.rfind(':');
    const std::string allowed = " (allowed: HOST:PORT with a loopback host, 127.0.0.1, "
                                "localhost or [::1], and a port 0..65535; 0 picks a free one)";
    if (colon == std::string::npos || colon == 0)
        return Status{"--metrics-listen \"" + text + "\": not HOST:PORT" + allowed};
    host = text.substr(0, colon);
    const std::string p = text.substr(colon + 1);
    if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(p) > 65535)
        return Status{"--metrics-listen \"" + text + "\": port \"" + p + "\" is not a number" +
                      allowed};
    port = std::stoi(p);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host == "localhost") host = "127.0.0.1";
    in_addr a4{};
    in6_addr a6{};
    const bool loop4 =
        inet_pton(AF_INET, host.c_str(), &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
    const bool loop6 = inet_pton(AF_INET6, host.c_str(), &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
    if (!loop4 && !loop6)
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
    server_ = std::make_unique<httplib::Server>();
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
