// SPDX-License-Identifier: GPL-2.0-or-later
// HTTP to an engine on this machine through its Unix socket (`ringlab-engine serve`'s
// default, mode 0660 for group ringlab). Qt 6.4's network module has no Unix-socket
// transport (Qt 6.8 has one), so cpp-httplib's client is handed an AF_UNIX socket where it
// would open a TCP one. Every call blocks: RemoteLink runs them on worker threads.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ringlab::ui {

class UnixClient;

class UnixHttp {
  public:
    using Headers = std::vector<std::pair<std::string, std::string>>;
    struct Result {
        int status = 0; // 0: no reply; `error` says why
        std::string body, contentType, error;
    };

    // An engine that accepts no connection (its backlog full) is given up after this long.
    static constexpr int kConnectTimeoutMs = 5000;

    explicit UnixHttp(std::string socketPath) : path_(std::move(socketPath)) {}
    ~UnixHttp();

    Result request(const std::string &method, const std::string &path, const Headers &headers,
                   const std::string &body, int timeoutMs) const;
    // Reads a streamed reply, handing each piece to `data` until the engine ends it or
    // stop() is called. A reply other than 200 is returned whole, with no call to `data`.
    Result stream(const std::string &path, const Headers &headers,
                  const std::function<void(const char *, std::size_t)> &data);
    // From another thread: ends a stream() under way; one started after returns at once.
    void stop();

  private:
    std::string path_;
    std::mutex mutex_;
    std::shared_ptr<UnixClient> streaming_; // the stream's client, for stop()
    bool stopped_ = false;
};

} // namespace ringlab::ui
