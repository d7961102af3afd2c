// SPDX-License-Identifier: GPL-2.0-or-later
// What the API server decides about a request from its head alone (method, target, headers),
// before any of its body is read: who may ask (the bearer token) and how the body is framed.
// A pure function of the request, called by the server (app/api_server.cpp, through
// app/http_connection.h) and by the fuzzer (tests/fuzz/fuzz_http_request.cpp).
//
// cpp-httplib 0.11 takes the first of two Content-Length headers, reads a body without a
// length until the connection closes, and leaves the body of a request it refuses unread, to be
// taken for the next request on the connection. Each of these is refused here, and a refusal
// whose body was not read closes the connection (RFC 9112, sections 6.3 and 9.6).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace httplib {
struct Request;
}

namespace ringlab {

struct RequestPolicy {
    bool needToken = false;     // TCP: every request sends Authorization: Bearer TOKEN
    std::string token;          // the token (needToken)
    bool metricsPublic = false; // GET /metrics without the token
    std::size_t maxBodyBytes = 0;
};

struct RequestRefusal {
    int status = 0;
    std::string message;          // empty for 401: a refused client learns nothing more
    bool closeConnection = false; // the body (if any) was not read, or no valid token was
                                  // shown: the connection must end
};

// A refusal, or nothing when the request may go on to its handler.
std::optional<RequestRefusal> checkRequest(const httplib::Request &req, const RequestPolicy &p);

// Whether `header` is "Bearer TOKEN" for this token: the scheme in any case (RFC 7235), one or
// more spaces, the token compared in constant time.
bool bearerMatches(const std::string &header, const std::string &token);

// The declared body length of a request: 0 without Content-Length (RFC 9112 section 6.3),
// nothing when it is not one decimal number.
std::optional<std::size_t> declaredBodyLength(const httplib::Request &req);

// The most header fields a request may have; more is refused (431) before anything else.
inline constexpr std::size_t kMaxHeaderFields = 100;

// A request's path as the server's log may show it: no query, and every segment that is not
// a plain short word (letters, digits, '.', '_', '-'; at most 24 of them), or that holds the
// token, replaced by "*", so that nothing that could be a token is ever written.
std::string loggablePath(const std::string &path, const std::string &token);

} // namespace ringlab
