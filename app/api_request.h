// SPDX-License-Identifier: GPL-2.0-or-later
// The steps from an HTTP request to RunApi and back, shared by the API server
// (app/api_server.cpp) and its fuzzer (tests/fuzz/fuzz_http_request.cpp): refusals decided
// from the request's head (app/http_request_check.h) before routing, the connection's end
// after a refusal whose body was not read, bodies read by their Content-Length, and every
// error as {"error": MESSAGE}.
#pragma once

#include <httplib.h>

#include "app/http_request_check.h"
#include "engine/run/run_api.h"

namespace ringlab {

// `reply` as the HTTP response: its JSON body, or its text with its content type.
void sendReply(const ApiReply &reply, httplib::Response &res);

// The pre-routing handler: a refused request is answered here (401 with an empty body and
// WWW-Authenticate: Bearer; anything else with its message).
httplib::Server::HandlerResponse
refuseBeforeRouting(const RequestPolicy &p, const httplib::Request &req, httplib::Response &res);

// A RequestGate (app/http_connection.h): true, and the reply marked Connection: close, when
// the request is refused before its body was read.
bool closesConnection(const RequestPolicy &p, httplib::Request &req);

// GET, POST, PUT, PATCH and DELETE on any path to api.handle(). Bodies are read here, not by
// httplib: it would take a form-encoded body (curl -d's default type) as query parameters,
// bounded at 8 KiB, and read a body without Content-Length until the connection closes.
// Without Content-Length there is no body (RFC 9112 section 6.3).
void routeToApi(httplib::Server &s, RunApi &api);

// A handler's exception is a 500 with a message; refusals httplib makes itself (a malformed
// request line, a URI too long) carry a message too.
void setErrorReplies(httplib::Server &s);

} // namespace ringlab
