// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/unix_http.h"

#include <fcntl.h>
#include <grp.h>
#include <httplib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace ringlab::ui {

// cpp-httplib's client with an AF_UNIX socket connected to the engine's socket file.
class UnixClient : public httplib::ClientImpl {
  public:
    explicit UnixClient(std::string path) : httplib::ClientImpl("localhost"), path_(std::move(path))
    {
    }
    int lastErrno() const { return errno_; }
    // Ends the request under way, or refuses the one about to connect: httplib's stop()
    // alone misses a request that has not opened its socket yet. Both take socket_mutex_,
    // under which the socket is made, so one of them sees the other.
    void cancel()
    {
        canceled_ = true;
        stop();
    }

  protected:
    bool create_and_connect_socket(Socket &socket, httplib::Error &error) override
    {
        if (canceled_) {
            error = httplib::Error::Canceled;
            return false;
        }
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        if (path_.size() >= sizeof a.sun_path) {
            errno_ = ENAMETOOLONG;
            error = httplib::Error::Connection;
            return false;
        }
        std::memcpy(a.sun_path, path_.c_str(), path_.size() + 1);
        // A blocking connect to an engine whose listen backlog is full waits for ever (AF_UNIX
        // has no connect timeout). A non-blocking one says EAGAIN at once: it is tried again
        // until the connection timeout, then given up as timed out.
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            errno_ = errno;
            error = httplib::Error::Connection;
            return false;
        }
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::seconds(connection_timeout_sec_) +
                              std::chrono::microseconds(connection_timeout_usec_);
        int rc = 0;
        while ((rc = ::connect(fd, reinterpret_cast<const sockaddr *>(&a), sizeof a)) != 0 &&
               errno == EAGAIN && !canceled_ && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (rc != 0) {
            errno_ = errno == EAGAIN ? ETIMEDOUT : errno;
            ::close(fd);
            error = canceled_ ? httplib::Error::Canceled : httplib::Error::Connection;
            return false;
        }
        // httplib reads and writes with its own timeouts on a blocking socket.
        if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0)
            ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        socket.sock = fd;
        return true;
    }

  private:
    std::string path_;
    int errno_ = 0;
    std::atomic<bool> canceled_{false};
};

namespace {
// The calls run on worker threads: a write to an engine that went away must fail with
// EPIPE there, not raise SIGPIPE, which would end the desktop (httplib's client does not
// send with MSG_NOSIGNAL, and only its server ignores the signal).
void blockSigpipe()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

httplib::Headers headersOf(const UnixHttp::Headers &h)
{
    httplib::Headers out;
    for (const auto &[k, v] : h)
        out.emplace(k, v);
    return out;
}

std::string groupName(gid_t gid)
{
    const struct group *g = getgrgid(gid);
    return g ? g->gr_name : std::to_string(gid);
}

// What stops this user reaching `socket`, from the modes and groups as they are: the
// directory the engine made (0700 unless started with --socket-group) or the socket's group.
std::string accessAdvice(const std::string &socket)
{
    const std::string dir = socket.substr(0, socket.rfind('/'));
    struct stat st {};
    if (!dir.empty() && ::access(dir.c_str(), X_OK) != 0 && ::stat(dir.c_str(), &st) == 0) {
        if (!(st.st_mode & S_IXGRP))
            return dir + " is its owner's only: the engine must be started with --socket-group "
                         "GROUP for the members of GROUP to reach the socket";
        const std::string g = groupName(st.st_gid);
        return dir + " is for the group " + g + ": sudo adduser $USER " + g + ", then log in again";
    }
    if (::stat(socket.c_str(), &st) == 0) {
        const std::string g = groupName(st.st_gid);
        return "the socket is for the group " + g + ": sudo adduser $USER " + g +
               ", then log in again";
    }
    return "this user may not open the socket or its directory";
}

std::string why(const std::string &socket, const UnixClient &c, httplib::Error e)
{
    if (e != httplib::Error::Connection || c.lastErrno() == 0)
        return socket + ": " + httplib::to_string(e);
    std::string text = socket + ": " + std::strerror(c.lastErrno());
    if (c.lastErrno() == EACCES)
        text += " (" + accessAdvice(socket) + ")";
    else if (c.lastErrno() == ENOENT || c.lastErrno() == ECONNREFUSED)
        text += " (is ringlab-engine serve running?)";
    else if (c.lastErrno() == ETIMEDOUT)
        text += " (the engine accepts no connection: its backlog is full, or it hangs)";
    return text;
}
} // namespace

UnixHttp::~UnixHttp()
{
    stop();
}

UnixHttp::Result UnixHttp::request(const std::string &method, const std::string &path,
                                   const Headers &headers, const std::string &body,
                                   int timeoutMs) const
{
    blockSigpipe();
    UnixClient c(path_);
    const int connectMs = std::min(timeoutMs, kConnectTimeoutMs);
    c.set_connection_timeout(connectMs / 1000, (connectMs % 1000) * 1000);
    c.set_read_timeout(timeoutMs / 1000, (timeoutMs % 1000) * 1000);
    c.set_write_timeout(timeoutMs / 1000, (timeoutMs % 1000) * 1000);
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.headers = headersOf(headers);
    if (method != "GET") {
        req.body = body;
        req.set_header("Content-Type", "application/json");
    }
    Result out;
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    if (!c.send(req, res, error)) {
        out.error = why(path_, c, error);
        return out;
    }
    out.status = res.status;
    out.body = std::move(res.body);
    out.contentType = res.get_header_value("Content-Type");
    return out;
}

UnixHttp::Result UnixHttp::stream(const std::string &path, const Headers &headers,
                                  const std::function<void(const char *, std::size_t)> &data)
{
    blockSigpipe();
    auto c = std::make_shared<UnixClient>(path_);
    c->set_connection_timeout(kConnectTimeoutMs / 1000, (kConnectTimeoutMs % 1000) * 1000);
    c->set_read_timeout(24 * 3600, 0); // a run may be idle for long: stop() ends it
    {
        std::lock_guard lock(mutex_);
        if (stopped_) return {0, {}, {}, "stopped"};
        streaming_ = c;
    }
    Result out;
    const auto res = c->Get(
        path.c_str(), headersOf(headers),
        [&](const httplib::Response &r) {
            out.status = r.status;
            out.contentType = r.get_header_value("Content-Type");
            return true;
        },
        [&](const char *bytes, std::size_t n) {
            if (out.status == 200)
                data(bytes, n);
            else if (out.body.size() < 65536)
                out.body.append(bytes, n);
            return true;
        });
    {
        std::lock_guard lock(mutex_);
        streaming_.reset();
    }
    if (!res) out.error = why(path_, *c, res.error());
    return out;
}

void UnixHttp::stop()
{
    std::lock_guard lock(mutex_);
    stopped_ = true;
    if (streaming_) streaming_->cancel();
}

} // namespace ringlab::ui
