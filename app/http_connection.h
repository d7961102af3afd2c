// SPDX-License-Identifier: GPL-2.0-or-later
// cpp-httplib's server with its connections served here: one stream per connection, so that
// requests a client pipelines (sends before the replies come) are answered in order.
//
// httplib 0.11 reads a connection through a stream made afresh for each request, with a 4 KiB
// read-ahead: the bytes of a second request read with the first were thrown away with that
// stream, and the connection then waited for a request that had already come, until its idle
// time ran out. Here the read-ahead lives as long as the connection, plain or TLS.
//
// A gate sees each request's head before it is routed and may end the connection after the
// reply (a request refused before its body was read); the reply then says Connection: close,
// and what the client still sends is read and dropped for a while before the socket closes, so
// that the client reads the reply instead of a reset (RFC 9112 section 9.6).
#pragma once

#include <httplib.h>

#include <functional>

namespace ringlab {

// Returns true when the connection must close after this request's reply.
using RequestGate = std::function<bool(httplib::Request &)>;

class PipelinedServer : public httplib::Server {
  public:
    explicit PipelinedServer(RequestGate gate) : gate_(std::move(gate)) {}

  private:
    bool process_and_close_socket(socket_t sock) override;
    RequestGate gate_;
};

// Marks `req` so that its reply says Connection: close.
void closeAfterReply(httplib::Request &req);

// Closes a connection. With `linger` (a request refused before its body was read) the sending
// side is shut first and what the client still sends is read and dropped for a while, so that
// it reads the reply instead of a reset (RFC 9112 section 9.6).
void closeConnectionSocket(int sock, bool linger);

} // namespace ringlab
