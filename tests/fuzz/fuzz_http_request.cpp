// SPDX-License-Identifier: GPL-2.0-or-later
// The bytes a client sends on one connection to `ringlab-engine serve`: cpp-httplib's request
// parsing (Server::process_request on a stream in memory) with the server's own steps on top
// (app/api_request.h): the refusals made from the head (token, framing), the connection's end
// after a refusal whose body was not read, bodies read by their length, and RunApi's routing
// and JSON parsing. Several requests in one input are served in turn, as a pipelining client's
// are. The first byte chooses the access: a Unix socket (no token), TCP with a token, or TCP
// with public metrics.
//
// RunApi is one engine that is shut down: a start is parsed and validated in full, then refused
// (503), so no run is ever started; GET /v1/devices is not asked of it (listing starts DPDK).
// Invariant: without the token in the input, TCP access never gets a 2xx reply.
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "app/api_request.h"
#include "app/api_server.h"
#include "app/http_connection.h"
#include "drivers/registry_devices.h"
#include "tests/fuzz/fuzz_target.h"

namespace fs = std::filesystem;

namespace ringlab::fuzz {
namespace {

constexpr const char *kFuzzToken = "fuzz-token-0123456789";

class MemoryStream final : public httplib::Stream {
  public:
    explicit MemoryStream(std::string_view in) : in_(in) {}
    bool is_readable() const override { return pos_ < in_.size(); }
    bool is_writable() const override { return true; }
    ssize_t read(char *ptr, size_t size) override
    {
        const std::size_t n = std::min(size, in_.size() - pos_);
        std::memcpy(ptr, in_.data() + pos_, n);
        pos_ += n;
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char *ptr, size_t size) override
    {
        out.append(ptr, size);
        return static_cast<ssize_t>(size);
    }
    void get_remote_ip_and_port(std::string &ip, int &port) const override
    {
        ip = "127.0.0.1";
        port = 40000;
    }
    void get_local_ip_and_port(std::string &ip, int &port) const override
    {
        ip = "127.0.0.1";
        port = 7787;
    }
    socket_t socket() const override { return 0; }
    bool empty() const { return pos_ == in_.size(); }
    std::string out;

  private:
    std::string_view in_;
    std::size_t pos_ = 0;
};

// The API server's request handling without its sockets.
class MemoryServer final : public httplib::Server {
  public:
    MemoryServer(RunApi &api, RequestPolicy policy) : policy_(std::move(policy))
    {
        set_payload_max_length(kMaxBodyBytes);
        set_pre_routing_handler([this](const httplib::Request &req, httplib::Response &res) {
            return refuseBeforeRouting(policy_, req, res);
        });
        // Listing devices starts DPDK's EAL (once per process): not in a fuzzer.
        Get("/v1/devices", [](const httplib::Request &, httplib::Response &res) {
            sendReply(ApiReply{200, nlohmann::json::array(), {}, {}}, res);
        });
        routeToApi(*this, api);
        setErrorReplies(*this);
        set_logger([this](const httplib::Request &, const httplib::Response &res) {
            statuses.push_back(res.status);
        });
    }
    std::vector<int> statuses; // of the replies written, in order

    // Serves the requests in `strm` as a connection does; the number served.
    int serve(MemoryStream &strm)
    {
        int served = 0;
        statuses.clear();
        while (!strm.empty() && served < 64) {
            bool closed = false, closeAfter = false;
            const bool ok = process_request(strm, false, closed, [&](httplib::Request &req) {
                closeAfter = closesConnection(policy_, req);
            });
            ++served;
            if (!ok || closed || closeAfter) break;
        }
        return served;
    }

  private:
    RequestPolicy policy_;
};

RunApi &api()
{
    struct Engine {
        fs::path dir;
        std::unique_ptr<RunApi> api;
        Engine()
            : dir(fs::temp_directory_path() / ("ringlab-fuzz-http-" + std::to_string(getpid())))
        {
            fs::create_directories(dir);
            api = std::make_unique<RunApi>(
                RunApiOptions{dir / "s.db", false, "fuzz", {}, false, {}}, registryDevices());
            api->shutdown(); // starts are validated, then refused: no run is ever started
        }
        ~Engine()
        {
            api.reset();
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    };
    static Engine engine;
    return *engine.api;
}

} // namespace

int httpRequest(const std::uint8_t *data, std::size_t size)
{
    if (size == 0) return 0;
    const int access = data[0] % 3; // 0: Unix socket, 1: TCP, 2: TCP with public metrics
    const std::string_view bytes = text(data + 1, size - 1);
    static MemoryServer servers[] = {
        {api(), RequestPolicy{false, {}, false, kMaxBodyBytes}},
        {api(), RequestPolicy{true, kFuzzToken, false, kMaxBodyBytes}},
        {api(), RequestPolicy{true, kFuzzToken, true, kMaxBodyBytes}},
    };
    MemoryStream strm(bytes);
    MemoryServer &server = servers[access];
    server.serve(strm);
    // Without the token, TCP access gets nothing but refusals (RunApi has no /metrics: public
    // metrics are served by the server's own route, not installed here).
    if (access != 0 && bytes.find(kFuzzToken) == std::string_view::npos)
        for (int status : server.statuses)
            if (status >= 200 && status < 300) __builtin_trap();
    // Every request served is answered, in HTTP/1.1.
    if (!server.statuses.empty() && strm.out.rfind("HTTP/1.1 ", 0) != 0) __builtin_trap();
    return 0;
}

} // namespace ringlab::fuzz

RINGLAB_FUZZ_ENTRY(httpRequest)
