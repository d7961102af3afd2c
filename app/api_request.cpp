// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/api_request.h"

#include "app/http_connection.h"

namespace ringlab {

void sendReply(const ApiReply &reply, httplib::Response &res)
{
    res.status = reply.status;
    if (!reply.contentType.empty())
        res.set_content(reply.text, reply.contentType.c_str());
    else
        res.set_content(reply.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                            "\n",
                        "application/json");
}

httplib::Server::HandlerResponse
refuseBeforeRouting(const RequestPolicy &p, const httplib::Request &req, httplib::Response &res)
{
    const auto refusal = checkRequest(req, p);
    if (!refusal) return httplib::Server::HandlerResponse::Unhandled;
    if (refusal->status == 401) {
        res.status = 401;
        res.set_header("WWW-Authenticate", "Bearer");
    } else {
        sendReply(ApiReply::error(refusal->status, refusal->message), res);
    }
    return httplib::Server::HandlerResponse::Handled;
}

bool closesConnection(const RequestPolicy &p, httplib::Request &req)
{
    const auto refusal = checkRequest(req, p);
    if (!refusal || !refusal->closeConnection) return false;
    closeAfterReply(req);
    return true;
}

void routeToApi(httplib::Server &s, RunApi &api)
{
    const auto handle = [&api](const httplib::Request &req, std::string body,
                               httplib::Response &res) {
        ApiRequest r;
        r.method = req.method;
        r.path = req.path;
        r.body = std::move(body);
        r.control = req.get_header_value("X-Ringlab-Control");
        for (const auto &[k, v] : req.params)
            r.query.emplace(k, v);
        sendReply(api.handle(r), res);
    };
    s.Get(".*",
          [handle](const httplib::Request &req, httplib::Response &res) { handle(req, {}, res); });
    const auto withBody = [handle](const httplib::Request &req, httplib::Response &res,
                                   const httplib::ContentReader &content) {
        std::string body;
        const std::size_t length = declaredBodyLength(req).value_or(0);
        if (length > 0 && !content([&body](const char *data, std::size_t n) {
                body.append(data, n);
                return true;
            })) {
            sendReply(ApiReply::error(400, "the request body ended after " +
                                               std::to_string(body.size()) + " of its " +
                                               std::to_string(length) + " bytes"),
                      res);
            return;
        }
        handle(req, std::move(body), res);
    };
    s.Post(".*", withBody);
    s.Put(".*", withBody);
    s.Delete(".*", withBody);
    s.Patch(".*", withBody);
}

void setErrorReplies(httplib::Server &s)
{
    s.set_exception_handler(
        [](const httplib::Request &, httplib::Response &res, std::exception_ptr) {
            sendReply(ApiReply::error(500, "the request failed in the engine"), res);
        });
    s.set_error_handler([](const httplib::Request &, httplib::Response &res) {
        if (!res.body.empty() || res.status == 401) return;
        const char *why = res.status == 400   ? "the request line or a header is malformed"
                          : res.status == 414 ? "the request line is longer than 8192 bytes"
                          : res.status == 416 ? "the Range header is malformed (and ranges are "
                                                "not served: ask for the whole reply)"
                          : res.status == 404 ? "no such endpoint or method"
                                              : nullptr;
        if (why) sendReply(ApiReply::error(res.status, why), res);
    });
}

} // namespace ringlab
