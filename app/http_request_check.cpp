// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/http_request_check.h"

#include <httplib.h>

#include <strings.h>

namespace ringlab {

namespace {

bool constantTimeEqual(std::string_view a, std::string_view b)
{
    if (a.size() != b.size() || b.empty()) return false;
    unsigned char diff = 0;
    for (std::size_t k = 0; k < a.size(); ++k)
        diff |= static_cast<unsigned char>(a[k] ^ b[k]);
    return diff == 0;
}

bool takesBody(const std::string &method)
{
    return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

std::string quoted(const std::string &v)
{
    std::string out = "\"";
    for (char c : v.substr(0, 40))
        out += (c >= 0x20 && c < 0x7f && c != '"') ? c : '?';
    return out + (v.size() > 40 ? "...\"" : "\"");
}

RequestRefusal refuse(int status, std::string message, bool close)
{
    return RequestRefusal{status, std::move(message), close};
}

} // namespace

bool bearerMatches(const std::string &header, const std::string &token)
{
    constexpr std::string_view scheme = "bearer";
    if (header.size() <= scheme.size() ||
        strncasecmp(header.c_str(), scheme.data(), scheme.size()) != 0 ||
        header[scheme.size()] != ' ')
        return false;
    const std::size_t start = header.find_first_not_of(' ', scheme.size());
    if (start == std::string::npos) return false;
    return constantTimeEqual(std::string_view(header).substr(start), token);
}

std::optional<std::size_t> declaredBodyLength(const httplib::Request &req)
{
    if (!req.has_header("Content-Length")) return std::size_t{0};
    const std::string v = req.get_header_value("Content-Length");
    if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return static_cast<std::size_t>(std::stoull(v));
}

std::optional<RequestRefusal> checkRequest(const httplib::Request &req, const RequestPolicy &p)
{
    // How long the body is, first: a request whose length is unknown cannot be told from the
    // next one on the connection.
    if (const std::size_t n = req.get_header_value_count("Content-Length"); n > 1) {
        std::string values;
        for (std::size_t k = 0; k < n; ++k)
            values += (k ? ", " : "") + quoted(req.get_header_value("Content-Length", k));
        return refuse(
            400, std::to_string(n) + " Content-Length headers (" + values + "): send exactly one",
            true);
    }
    const std::optional<std::size_t> length = declaredBodyLength(req);
    if (!length)
        return refuse(400,
                      "Content-Length " + quoted(req.get_header_value("Content-Length")) +
                          " is not a number of bytes (allowed: decimal digits)",
                      true);
    if (req.has_header("Transfer-Encoding"))
        return refuse(411,
                      "Transfer-Encoding " + quoted(req.get_header_value("Transfer-Encoding")) +
                          " is not accepted: send the body with Content-Length",
                      true);
    const bool bodyUnread = *length > 0;

    const bool read = req.method == "GET" || req.method == "HEAD";
    if (p.needToken && !(p.metricsPublic && read && req.path == "/metrics")) {
        bool ok = req.get_header_value_count("Authorization") == 1 &&
                  bearerMatches(req.get_header_value("Authorization"), p.token);
        // A token in the URL ends up in logs and histories: refused even when right.
        for (const auto &[k, v] : req.params)
            ok = ok && k != "token" && k != "access_token" && v != p.token;
        if (!ok) return refuse(401, {}, bodyUnread);
    }

    if (*length > p.maxBodyBytes)
        return refuse(413,
                      "the request body (" + std::to_string(*length) + " bytes) is larger than " +
                          std::to_string(p.maxBodyBytes) + " bytes",
                      true);
    if (bodyUnread && !takesBody(req.method))
        return refuse(400,
                      "a " + req.method + " request has no body (Content-Length: " +
                          std::to_string(*length) + "); send one with POST, PUT, PATCH or DELETE",
                      true);
    if (req.has_header("Content-Encoding"))
        return refuse(415,
                      "Content-Encoding " + quoted(req.get_header_value("Content-Encoding")) +
                          " is not accepted: send the body uncompressed",
                      bodyUnread);
    if (req.is_multipart_form_data())
        return refuse(415,
                      "the body is a JSON object (Content-Type: application/json), not "
                      "multipart/form-data",
                      bodyUnread);
    if (req.has_header("Range"))
        return refuse(416, "ranges are not served: ask for the whole reply", bodyUnread);
    return std::nullopt;
}

} // namespace ringlab
