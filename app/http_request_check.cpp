// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/http_request_check.h"

#include <httplib.h>

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <string_view>

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

bool isTokenChar(unsigned char c) // RFC 9110 section 5.6.2: what a field name is made of
{
    return std::isalnum(c) ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

std::optional<RequestRefusal> checkRequest(const httplib::Request &req, const RequestPolicy &p)
{
    // The head's shape first: a field name with white space ("Transfer-Encoding : chunked")
    // is one the server would not recognise, and a proxy might (RFC 9112 section 5.1).
    if (req.headers.size() > kMaxHeaderFields)
        return refuse(431,
                      std::to_string(req.headers.size()) + " header fields: at most " +
                          std::to_string(kMaxHeaderFields),
                      true);
    for (const auto &[name, value] : req.headers)
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
                return isTokenChar(static_cast<unsigned char>(c));
            }))
            return refuse(400,
                          "the header field name " + quoted(name) +
                              " is not one (letters, digits and !#$%&'*+-.^_`|~, no white "
                              "space before the colon)",
                          true);
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
        // Its connection ends after the reply, read body or not: a client gets no second try
        // on a connection that has shown no valid token (issue 45 item 3).
        if (!ok) return refuse(401, {}, true);
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

std::string loggablePath(const std::string &path, const std::string &token)
{
    const std::string bare = path.substr(0, path.find('?'));
    std::string out;
    std::size_t from = 0;
    while (from <= bare.size()) {
        const std::size_t slash = std::min(bare.find('/', from), bare.size());
        const std::string seg = bare.substr(from, slash - from);
        const bool plain = seg.size() <= 24 && std::all_of(seg.begin(), seg.end(), [](char c) {
                               return std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
                                      c == '_' || c == '-';
                           });
        const bool holdsToken = !token.empty() && !seg.empty() &&
                                (seg.find(token) != std::string::npos ||
                                 (token.find(seg) != std::string::npos && seg.size() >= 8));
        out += (plain && !holdsToken) ? seg : "*";
        if (slash == bare.size()) break;
        out += '/';
        from = slash + 1;
    }
    return out;
}

} // namespace ringlab
