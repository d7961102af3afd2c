// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/api_server.h"

#include "app/api_request.h"
#include "app/http_connection.h"
#include "app/http_request_check.h"

#include <arpa/inet.h>
#include <grp.h>
#include <httplib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "app/connection_gate.h"
#include "app/socket_dir.h"

namespace ringlab {

namespace {

// httplib's server on a Unix socket: httplib 0.11 binds only TCP, but accepts on whatever
// listening socket it holds.
class UnixSocketServer : public GatedServer {
  public:
    explicit UnixSocketServer(RequestGate gate) : GatedServer(kServerThreads, std::move(gate)) {}
    Status bindUnix(const std::string &path, const SocketDirOptions &dirOptions, std::string &notes)
    {
        const std::string &groupName = dirOptions.group;
        sockaddr_un addr{};
        if (path.size() >= sizeof addr.sun_path)
            return Status{"unix:" + path + ": the path is longer than " +
                          std::to_string(sizeof addr.sun_path - 1) + " bytes"};
        // Whoever may write in the directory may replace the socket: it must be ours alone.
        const std::filesystem::path parent = std::filesystem::path(path).parent_path();
        if (auto st = prepareSocketDir(parent.string(), dirOptions, notes); !st.ok())
            return Status{"unix:" + path + ": " + st.error};
        struct stat st {};
        if (lstat(path.c_str(), &st) == 0) {
            if (!S_ISSOCK(st.st_mode))
                return Status{"unix:" + path + ": a file that is not a socket is in the way"};
            // A socket nobody answers on is left from an engine that is gone.
            const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            addr.sun_family = AF_UNIX;
            std::memcpy(addr.sun_path, path.c_str(), path.size());
            const bool refused =
                probe >= 0 &&
                connect(probe, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 &&
                errno == ECONNREFUSED;
            if (probe >= 0) close(probe);
            // Only a socket nobody listens on is taken over; one we may not reach is not ours.
            if (!refused) return Status{"unix:" + path + ": another engine is serving there"};
            unlink(path.c_str());
        }
        const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return Status{"unix:" + path + ": " + std::strerror(errno)};
        addr.sun_family = AF_UNIX;
        std::memcpy(addr.sun_path, path.c_str(), path.size());
        // Created 0660 (the group's once its group is set); never chmod'ed by path.
        const mode_t old = umask(0117);
        const int rc = ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
        umask(old);
        if (rc != 0 || ::listen(fd, SOMAXCONN) != 0) {
            const int err = errno;
            close(fd);
            return Status{"unix:" + path + ": cannot listen (" + std::strerror(err) + ")"};
        }
        if (const struct group *g = getgrnam(groupName.c_str())) {
            if (lchown(path.c_str(), static_cast<uid_t>(-1), g->gr_gid) != 0) {
                const std::string why = "the socket's group could not be set to " + groupName +
                                        " (" + std::strerror(errno) + ")";
                if (dirOptions.groupRequired) {
                    close(fd);
                    unlink(path.c_str());
                    return Status{"--socket-group " + groupName + ": " + why};
                }
                notes += why + "; ";
            }
        } else {
            notes += "group " + groupName +
                     " does not exist: the socket is open to your own group only (the .deb "
                     "creates it; see docs/api.md); ";
        }
        svr_sock_ = fd;
        return {};
    }
};

} // namespace

std::string ListenSpec::text() const
{
    if (unixSocket) return "unix:" + path;
    const bool v6 = host.find(':') != std::string::npos;
    return "tcp:" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Status parseHostPort(const std::string &text, std::string &host, int &port)
{
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) return Status{"not HOST:PORT"};
    host = text.substr(0, colon);
    const std::string p = text.substr(colon + 1);
    if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(p) > 65535)
        return Status{"port \"" + p + "\" is not a port"};
    port = std::stoi(p);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host == "localhost") host = "127.0.0.1";
    in_addr a4{};
    in6_addr a6{};
    if (inet_pton(AF_INET, host.c_str(), &a4) != 1 && inet_pton(AF_INET6, host.c_str(), &a6) != 1)
        return Status{"\"" + host + "\" is not an address"};
    return {};
}

bool isLoopbackAddress(const std::string &host)
{
    in_addr a4{};
    in6_addr a6{};
    return (inet_pton(AF_INET, host.c_str(), &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127) ||
           (inet_pton(AF_INET6, host.c_str(), &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6));
}

Status parseListen(const std::string &text, ListenSpec &out)
{
    const std::string allowed =
        " (allowed: unix:PATH, or tcp:HOST:PORT with an address as HOST, [::1] for IPv6, and a "
        "port 0..65535; 0 picks a free one)";
    if (text.rfind("unix:", 0) == 0) {
        out.unixSocket = true;
        out.path = text.substr(5);
        if (out.path.empty() || out.path.front() != '/')
            return Status{"--listen \"" + text + "\": a socket's path must be absolute" + allowed};
        return {};
    }
    if (text.rfind("tcp:", 0) != 0)
        return Status{"--listen \"" + text + "\": not unix: or tcp:" + allowed};
    std::string host;
    int port = 0;
    if (auto st = parseHostPort(text.substr(4), host, port); !st.ok())
        return Status{"--listen \"" + text + "\": " + st.error + allowed};
    out.unixSocket = false;
    out.host = host;
    out.port = port;
    return {};
}

ApiServer::ApiServer(RunApi &api) : api_(api) {}

ApiServer::~ApiServer()
{
    stop();
}

void ApiServer::routes()
{
    httplib::Server &s = *server_;
    s.set_payload_max_length(kMaxBodyBytes);
    s.set_read_timeout(kClientTimeoutS, 0);
    s.set_write_timeout(kClientTimeoutS, 0);
    s.set_keep_alive_timeout(2); // an idle connection gives its thread back soon
    // httplib writes a reply's headers and body apart: without this, Nagle's algorithm and the
    // client's delayed ACK add ~40 ms to every small reply.
    s.set_tcp_nodelay(true);
    // httplib sets SO_REUSEPORT by default: a second engine could bind the same port and
    // share its connections. SO_REUSEADDR alone lets a restart bind at once.
    s.set_socket_options([](int sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });

    // Who may ask and how the body is framed, decided from the request's head before any of
    // the body is read (app/http_request_check.h).
    s.set_pre_routing_handler([this](const httplib::Request &req, httplib::Response &res) {
        return refuseBeforeRouting(policy_, req, res);
    });

    s.Get("/metrics", [this](const httplib::Request &, httplib::Response &res) {
        res.set_content(api_.metricsText(), "text/plain; version=0.0.4; charset=utf-8");
    });
    s.Get("/v1/run/stream", [this](const httplib::Request &, httplib::Response &res) {
        // A slot is a connection's until its provider is released, not until its watcher
        // ends: a cut-off watcher still holds a thread while its last write times out.
        if (streams_.fetch_add(1) >= static_cast<int>(kMaxWatchers)) {
            streams_.fetch_sub(1);
            sendReply(ApiReply::error(503, "too many watchers (at most " +
                                               std::to_string(kMaxWatchers) + "); try later"),
                      res);
            return;
        }
        auto watcher = api_.watch();
        if (!watcher) {
            streams_.fetch_sub(1);
            sendReply(ApiReply::error(503, "the engine is shutting down"), res);
            return;
        }
        res.set_header("Cache-Control", "no-store");
        res.set_chunked_content_provider(
            "application/x-ndjson",
            [watcher](std::size_t, httplib::DataSink &sink) {
                std::vector<Watcher::Line> lines;
                if (!watcher->take(lines, 1000)) {
                    sink.done();
                    return true;
                }
                if (lines.empty()) return sink.is_writable(); // a client gone is noticed
                std::string chunk;
                for (const auto &l : lines)
                    chunk += *l + "\n";
                return sink.write(chunk.data(), chunk.size());
            },
            [this](bool) { streams_.fetch_sub(1); });
    });
    routeToApi(s, api_);
    setErrorReplies(s);
    s.set_logger([this](const httplib::Request &req, const httplib::Response &res) {
        if (req.method != "GET" || res.status >= 400)
            std::fprintf(stderr, "ringlab-engine: %s %s %d\n", loggablePath(req.method, {}).c_str(),
                         loggablePath(req.path, options_.token).c_str(), res.status);
    });
}

Status ApiServer::start(const ApiServerOptions &o, std::string &notes)
{
    options_ = o;
    const ListenSpec &l = o.listen;
    if (!l.unixSocket && o.token.empty())
        return Status{"--listen " + l.text() + ": TCP needs --token-file (a Unix socket does not)"};
    if (o.tlsCert.empty() != o.tlsKey.empty())
        return Status{"TLS needs both --tls-cert and --tls-key"};
    if (l.unixSocket && !o.tlsCert.empty())
        return Status{"--tls-cert is for tcp: listening, not for a Unix socket"};
    policy_ = RequestPolicy{!l.unixSocket, o.token, o.metricsPublic, kMaxBodyBytes};
    // A request refused before its body was read ends its connection: the body is not taken
    // for the next request.
    const RequestGate gate = [this](httplib::Request &req) {
        return closesConnection(policy_, req);
    };
    if (!o.tlsCert.empty()) {
        // HTTPS connections wait in the gate too, their handshakes made in steps.
        auto tls = std::make_unique<GatedServer>(kServerThreads, gate, o.tlsCert, o.tlsKey);
        if (!tls->tlsValid())
            return Status{"--tls-cert " + o.tlsCert + " / --tls-key " + o.tlsKey +
                          ": cannot be loaded as a PEM certificate and its key"};
        server_ = std::move(tls);
    } else if (l.unixSocket) {
        auto unixServer = std::make_unique<UnixSocketServer>(gate);
        if (auto st = unixServer->bindUnix(l.path, {o.socketGroup, o.socketGroupRequired}, notes);
            !st.ok())
            return st;
        server_ = std::move(unixServer);
    } else {
        server_ = std::make_unique<GatedServer>(kServerThreads, gate);
    }
    routes();
    if (auto *gated = dynamic_cast<GatedServer *>(server_.get()); gated && policy_.needToken)
        gated->setTokenCheck([this](const httplib::Request &req) {
            return req.get_header_value_count("Authorization") == 1 &&
                   bearerMatches(req.get_header_value("Authorization"), policy_.token);
        });
    if (!l.unixSocket) {
        port_ = l.port == 0 ? server_->bind_to_any_port(l.host)
                            : (server_->bind_to_port(l.host, l.port) ? l.port : -1);
        if (port_ <= 0) {
            const int err = errno;
            server_.reset();
            return Status{"--listen " + l.text() + ": cannot listen (" + std::strerror(err) + ")"};
        }
        if (auto *gated = dynamic_cast<GatedServer *>(server_.get())) gated->widenBacklog();
        if (!isLoopbackAddress(l.host))
            notes +=
                "listening beyond this machine (" + l.host + "): only the token guards it" +
                (o.tlsCert.empty() ? ", and without TLS it crosses the network in clear; " : "; ");
    }
    thread_ = std::thread([s = server_.get()] { s->listen_after_bind(); });
    // stop() only reaches a server that is already listening (httplib 0.11 has no ready
    // signal; this takes microseconds).
    for (int k = 0; k < 5000 && !server_->is_running(); ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return {};
}

std::string ApiServer::url() const
{
    const ListenSpec &l = options_.listen;
    if (l.unixSocket) return "unix:" + l.path;
    const bool v6 = l.host.find(':') != std::string::npos;
    return std::string(options_.tlsCert.empty() ? "http" : "https") + "://" +
           (v6 ? "[" + l.host + "]" : l.host) + ":" + std::to_string(port_);
}

void ApiServer::stop()
{
    if (!server_) return;
    server_->stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
    if (options_.listen.unixSocket) unlink(options_.listen.path.c_str());
}

} // namespace ringlab
