// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's API (docs/api.md) through a real socket to a real `ringlab-engine serve`:
// every endpoint, its successes and its errors, each reply checked against the schema in
// docs/api.md (by python3-jsonschema); the token, the bounds and the socket's mode; one
// controller and its watchers; kill -9 of the server mid-run; HTTPS.
#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "api_schema.h"
#include "drivers/registry_devices.h"
#include "engine/metrics/sample_json.h"
#include "engine/run/catalog_json.h"
#include "engine/run/run_api.h"
#include "engine/run/stream_hub.h"
#include "engine/store/session_store.h"
#include "serve_process.h"

using nlohmann::json;
using namespace ringlab;
using ringlab::test::checkSchema;

namespace {

// A client that remembers every JSON reply with its schema key, for the schema check.
class Api {
  public:
    Api(int port, std::string token, json *log) : c("127.0.0.1", port), log_(log)
    {
        if (!token.empty()) c.set_bearer_token_auth(token.c_str());
        c.set_read_timeout(60, 0);
    }
    struct Reply {
        int status = 0;
        json body;
        std::string text;
    };
    Reply get(const std::string &path, const std::string &key = {})
    {
        return record(c.Get(path.c_str(), headers()), key.empty() ? "GET " + path : key);
    }
    Reply post(const std::string &path, const std::string &body, const std::string &key = {})
    {
        return record(c.Post(path.c_str(), headers(), body, "application/json"),
                      key.empty() ? "POST " + path : key);
    }
    Reply del(const std::string &path)
    {
        return record(c.Delete(path.c_str(), headers()), "DELETE " + path);
    }
    std::string control;
    httplib::Client c;

  private:
    httplib::Headers headers() const
    {
        if (control.empty()) return {};
        return {{"X-Ringlab-Control", control}};
    }
    Reply record(const httplib::Result &res, const std::string &key)
    {
        Reply r;
        if (!res) qFatal("%s: no reply (%s)", key.c_str(), httplib::to_string(res.error()).c_str());
        r.status = res->status;
        r.text = res->body;
        r.body = json::parse(res->body, nullptr, false);
        const bool jsonReply = res->get_header_value("Content-Type") == "application/json";
        if (jsonReply && r.body.is_discarded())
            qFatal("%s: a reply said to be JSON is not: %s", key.c_str(), res->body.c_str());
        if (log_ && jsonReply)
            log_->push_back({{"key", key}, {"status", r.status}, {"body", r.body}});
        return r;
    }
    json *log_;
};

std::string writeToken(const QTemporaryDir &dir, const char *token, QFile::Permissions perms)
{
    const QString path = dir.filePath("token");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write the token");
    f.write(token);
    f.write("\n");
    f.close();
    f.setPermissions(perms);
    return path.toStdString();
}

constexpr const char *kToken = "0123456789abcdef0123456789abcdef";

// A raw TCP connection to the server (for clients that misbehave).
int connectTo(int port)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
        qFatal("cannot connect to port %d", port);
    return fd;
}

// Sends a request for the stream and reads until the reply's headers are in.
std::string openStream(int fd, const char *token)
{
    const std::string req = std::string("GET /v1/run/stream HTTP/1.1\r\nHost: t\r\n"
                                        "Authorization: Bearer ") +
                            token + "\r\n\r\n";
    if (::write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size()))
        qFatal("write failed");
    std::string head;
    char ch;
    while (head.find("\r\n\r\n") == std::string::npos && ::read(fd, &ch, 1) == 1)
        head += ch;
    return head;
}

// Sends `request` as it is on a new connection and returns the reply's status line.
std::string rawStatus(int port, const std::string &request)
{
    const int fd = connectTo(port);
    if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size()))
        qFatal("write failed");
    std::string reply;
    char ch;
    while (reply.find("\r\n") == std::string::npos && ::read(fd, &ch, 1) == 1)
        reply += ch;
    close(fd);
    return reply.substr(0, reply.find("\r\n"));
}

// Sends `request` as it is, in one write, on a new connection and returns all that comes back
// until the server closes the connection (or 20 s pass).
std::string rawExchange(int port, const std::string &request)
{
    const int fd = connectTo(port);
    const timeval limit{20, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size()))
        qFatal("write failed");
    std::string reply;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        reply.append(buf, static_cast<std::size_t>(n));
    close(fd);
    return reply;
}

// The status lines in a connection's replies, in order.
QStringList statusLines(const std::string &replies)
{
    static const QRegularExpression status("(?:^|\\n)(HTTP/1\\.1 \\d{3} [^\\r\\n]*)");
    QStringList lines;
    for (auto it = status.globalMatch(QString::fromStdString(replies)); it.hasNext();)
        lines << it.next().captured(1);
    return lines;
}

// The first `n` lines of the stream (a new connection).
std::vector<json> streamLines(int port, std::size_t n,
                              const std::function<bool(const json &)> &want)
{
    httplib::Client c("127.0.0.1", port);
    c.set_bearer_token_auth(kToken);
    c.set_read_timeout(30, 0);
    std::vector<json> lines;
    std::string buffer;
    c.Get("/v1/run/stream", [&](const char *data, std::size_t len) {
        buffer.append(data, len);
        for (auto nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
            const json j = json::parse(buffer.substr(0, nl), nullptr, false);
            buffer.erase(0, nl + 1);
            if (j.is_discarded()) qFatal("a stream line is not JSON");
            if (want(j)) lines.push_back(j);
        }
        return lines.size() < n;
    });
    return lines;
}

} // namespace

class TstApi : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void everyEndpointMatchesItsSchema();
    void tokenIsRequiredAndNeverTakenFromTheUrl();
    void abusiveClientsAreBoundedAndTheRunGoesOn();
    void oneControlsOthersWatch();
    void killDashNineLeavesAnInterruptedSession();
    void unixSocketIsTheGroupsAndNeedsNoToken();
    void badSetUpIsRefusedWithAReason();
    void httpsWithACertificate();
    void watcherThatFallsBehindIsCutOffWithAReason();
    void publicMetricsAreOnlyTheMetrics();
    void sampleLinesRoundTripAndBadOnesAreRefused();
    void deviceListsRoundTripAndBadOnesAreRefused();
    void scrapesDoNotWaitForAStart();
    void requestsAreFramedOnceAndAnsweredInOrder();

  private:
    bool startTcp(Serve &s, QTemporaryDir &dir, const QStringList &extra = {});
};

void TstApi::initTestCase()
{
    QProcess py;
    py.start("python3", {"-c", "import jsonschema"});
    QVERIFY2(py.waitForFinished(30'000) && py.exitCode() == 0,
             "python3-jsonschema is missing (packaging/bootstrap.sh installs it)");
}

bool TstApi::startTcp(Serve &s, QTemporaryDir &dir, const QStringList &extra)
{
    const std::string token = writeToken(dir, kToken, QFile::ReadOwner | QFile::WriteOwner);
    QString why;
    const bool ok =
        s.start(QStringList{"--listen", "tcp:127.0.0.1:0", "--token-file",
                            QString::fromStdString(token), "--db", dir.filePath("s.db")} +
                    extra,
                &why);
    if (!ok) qWarning("%s", qPrintable(why));
    return ok;
}

void TstApi::everyEndpointMatchesItsSchema()
{
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    json log = json::array();
    Api api(s.port, kToken, &log);

    // What the engine offers.
    auto r = api.get("/v1/version");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["endpoint"].get<std::string>(), "http://127.0.0.1:" + std::to_string(s.port));
    QCOMPARE(api.get("/v1/devices").status, 200);
    r = api.get("/v1/profiles");
    QCOMPARE(r.status, 200);
    QVERIFY(r.text.find("\"kni-tick\"") != std::string::npos);
    r = api.get("/v1/tunables");
    QCOMPARE(r.status, 200);
    QVERIFY(r.text.find("poll.sleep_min_us") != std::string::npos);
    r = api.get("/v1/run");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["running"].get<bool>(), false);

    // Starts that are refused, each with what is wrong.
    r = api.post("/v1/run/start", R"({"profile":"../../etc/passwd"})");
    QCOMPARE(r.status, 400);
    QVERIFY(r.body["error"].get<std::string>().find("paths are not taken") != std::string::npos);
    r = api.post("/v1/run/start", R"({"profile":"no-such-profile"})");
    QCOMPARE(r.status, 422);
    QVERIFY(r.body["error"].get<std::string>().find("no-such-profile") != std::string::npos);
    r = api.post("/v1/run/start", R"({"set":{"poll.mode":"warp"}})");
    QCOMPARE(r.status, 422);
    QVERIFY2(r.body["error"].get<std::string>().find("poll.mode") != std::string::npos,
             r.text.c_str());
    r = api.post("/v1/run/start", R"({"profil":"default"})");
    QCOMPARE(r.status, 400);
    QVERIFY(r.body["error"].get<std::string>().find("unknown field \"profil\"") !=
            std::string::npos);
    QCOMPARE(api.post("/v1/run/start", "not json").status, 400);
    QCOMPARE(api.post("/v1/run/start", "[1,2]").status, 400);
    QCOMPARE(api.post("/v1/run/start", R"({"device":"dpdk:net_pcap0,rx_pcap=/etc/shadow"})").status,
             400);
    QCOMPARE(api.post("/v1/run/start", R"({"interval_ms":1})").status, 400);
    QCOMPARE(api.post("/v1/run/start", R"({"record":"no"})").status, 400);
    // What only the engine's own process may give (docs/api.md).
    for (const char *field : {"eal", "traffic"}) {
        r = api.post("/v1/run/start", "{\"" + std::string(field) + "\":\"-a 0000:03:00.0\"}");
        QCOMPARE(r.status, 400);
        QVERIFY2(r.body["error"].get<std::string>().find("unknown field \"" + std::string(field)) !=
                     std::string::npos,
                 r.text.c_str());
    }
    // A run that is not recorded: no session, the last one recorded stays the last.
    r = api.post("/v1/run/start", R"({"record":false})");
    QCOMPARE(r.status, 201);
    QCOMPARE(r.body["session"].get<std::int64_t>(), std::int64_t{0});
    api.control = r.body["control"].get<std::string>();
    r = api.post("/v1/run/stop", "{}");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["session"].get<std::int64_t>(), std::int64_t{0});
    QCOMPARE(api.get("/v1/sessions").body.size(), std::size_t{0});
    api.control.clear();
    QCOMPARE(api.post("/v1/run/set", R"({"set":{"poll.budget":"32"}})").status, 409);
    QCOMPARE(api.post("/v1/run/stop", "{}").status, 409);
    QCOMPARE(api.post("/v1/run/control", "{}").status, 409);

    // A run: start, watch, set, mark, take over, stop.
    r = api.post("/v1/run/start", R"({"profile":"default","client":"test controller"})");
    QCOMPARE(r.status, 201);
    api.control = r.body["control"].get<std::string>();
    const std::int64_t first = r.body["session"].get<std::int64_t>();
    QVERIFY(first > 0);
    QCOMPARE(api.post("/v1/run/start", "{}").status, 409);
    r = api.get("/v1/run");
    QCOMPARE(r.body["running"].get<bool>(), true);
    QCOMPARE(r.body["controller"].get<std::string>(), "test controller");

    r = api.post("/v1/run/set", R"({"set":{"poll.sleep_min_us":50,"poll.sleep_max_us":"100"}})");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["params"]["poll.sleep_min_us"].get<std::string>(), "50");
    r = api.post("/v1/run/set", R"({"set":{"poll.sleep_min_us":500}})");
    QCOMPARE(r.status, 422); // above the maximum in force: the registry's message
    QVERIFY2(r.body["error"].get<std::string>().find("poll.sleep_max_us") != std::string::npos,
             r.text.c_str());
    QCOMPARE(api.post("/v1/run/set", R"({"set":5})").status, 400);
    r = api.post("/v1/run/set", R"({"set":{"poll.budget":32},"source":"Robert'); DROP"})");
    QCOMPARE(r.status, 400);
    QVERIFY2(r.body["error"].get<std::string>().find("1 to 16 of a-z") != std::string::npos,
             r.text.c_str());
    QCOMPARE(api.post("/v1/run/set", R"({"set":{"poll.budget":[1]}})").status, 400);
    QCOMPARE(
        api.post("/v1/run/set", "{\"set\":{\"x\":\"" + std::string(70'000, 'a') + "\"}}").status,
        413);
    QCOMPARE(api.post("/v1/run/mark", R"({"label":"before the stream"})").status, 200);
    QCOMPARE(api.post("/v1/run/mark", R"({"label":""})").status, 400);

    // The stream: a state line first, then samples and events.
    const auto lines = streamLines(s.port, 15, [](const json &) { return true; });
    QCOMPARE(lines.size(), std::size_t(15));
    QCOMPARE(lines.front()["type"].get<std::string>(), "state");
    QCOMPARE(lines.front()["session"].get<std::int64_t>(), first);
    int samples = 0;
    for (const auto &l : lines) {
        log.push_back({{"key", "GET /v1/run/stream"}, {"status", 200}, {"body", l}});
        samples += l["type"] == "sample";
    }
    QVERIFY(samples >= 12);

    // Take over: the old key no longer works.
    Api other(s.port, kToken, &log);
    r = other.post("/v1/run/control", R"({"client":"second desk"})");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["previous"].get<std::string>(), "test controller");
    QCOMPARE(api.post("/v1/run/mark", R"({"label":"old key"})").status, 409);
    api.control = r.body["control"].get<std::string>();
    r = api.post("/v1/run/stop", "{}");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["session"].get<std::int64_t>(), first);
    QCOMPARE(r.body["samples_lost"].get<int>(), 0);

    // A second session, with another setting, to compare.
    r = api.post("/v1/run/start", R"({"set":{"poll.sleep_min_us":20,"poll.sleep_max_us":40}})");
    QCOMPARE(r.status, 201);
    api.control = r.body["control"].get<std::string>();
    const std::int64_t second = r.body["session"].get<std::int64_t>();
    streamLines(s.port, 25, [](const json &l) { return l["type"] == "sample"; });
    QCOMPARE(api.post("/v1/run/stop", "{}").status, 200);

    // The sessions.
    r = api.get("/v1/sessions");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body.size(), std::size_t(2));
    for (const auto &sess : r.body)
        QCOMPARE(sess["status"].get<std::string>(), "completed");
    const std::string one = "/v1/sessions/" + std::to_string(first);
    r = api.get(one, "GET /v1/sessions/ID");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["changes"].size(), std::size_t(2));
    bool marked = false;
    for (const auto &e : r.body["events"])
        marked = marked || e["message"] == "before the stream";
    QVERIFY(marked);
    QVERIFY(r.body["segments"].size() >= 1);
    QCOMPARE(api.get("/v1/sessions/abc", "GET /v1/sessions/ID").status, 400);
    QCOMPARE(api.get("/v1/sessions/99999", "GET /v1/sessions/ID").status, 404);
    r = api.get(one + "/export?format=csv", "GET /v1/sessions/ID/export");
    QCOMPARE(r.status, 200);
    QVERIFY(r.text.rfind("seq,t,interval,segment,", 0) == 0);
    r = api.get(one + "/export?format=json", "GET /v1/sessions/ID/export");
    QCOMPARE(r.status, 200);
    QVERIFY(r.body["samples"].size() > 5);
    // A database holding the one session, that another host imports as it is.
    r = api.get(one + "/export?format=sqlite", "GET /v1/sessions/ID/export");
    QCOMPARE(r.status, 200);
    QVERIFY(r.text.rfind(std::string("SQLite format 3\0", 16), 0) == 0);
    {
        QTemporaryDir there;
        const std::string file = there.filePath("one.db").toStdString();
        std::ofstream(file, std::ios::binary) << r.text;
        SessionStore imported(there.filePath("other.db").toStdString());
        QCOMPARE(imported.importKeepingIds(file).imported, 1);
        SessionInfo copy;
        QVERIFY(imported.get(first, copy)); // under the engine's id
        const json listed = api.get(one, "GET /v1/sessions/ID").body;
        QCOMPARE(copy.uuid, listed["uuid"].get<std::string>());
        QCOMPARE(copy.sampleCount, listed["samples"].get<std::int64_t>());
        QCOMPARE(imported.changes(first).size(), std::size_t(2));
        QCOMPARE(imported.list().size(), std::size_t(1));
    }
    r = api.get(one + "/export?format=xml", "GET /v1/sessions/ID/export");
    QCOMPARE(r.status, 400);
    QVERIFY2(r.body["error"].get<std::string>().find("use csv, json, sqlite or environment") !=
                 std::string::npos,
             r.text.c_str());
    QCOMPARE(api.get("/v1/sessions/99999/export", "GET /v1/sessions/ID/export").status, 404);
    r = api.get("/v1/compare?a=" + std::to_string(first) + "&b=" + std::to_string(second) +
                    "&metric=rx_pps&metric=wakeups_per_s[poll]",
                "GET /v1/compare");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["rows"].size(), std::size_t(2));
    QCOMPARE(r.body["rows"][0]["metric"].get<std::string>(), "rx_pps");
    QCOMPARE(api.get("/v1/compare?a=1", "GET /v1/compare").status, 400);
    QCOMPARE(api.get("/v1/compare?a=1&b=99999", "GET /v1/compare").status, 404);
    QCOMPARE(api.get("/v1/nothing").status, 404);
    QCOMPARE(api.del("/v1/run").status, 405);

    // Prometheus: the last run's exposition, with the token.
    httplib::Client m("127.0.0.1", s.port);
    m.set_bearer_token_auth(kToken);
    const auto metrics = m.Get("/metrics");
    QVERIFY(metrics && metrics->status == 200);
    QVERIFY(metrics->body.find("ringlab_rx_packets_total") != std::string::npos);

    // Watchers are bounded: the 33rd is refused while 32 watch.
    r = api.post("/v1/run/start", "{}");
    QCOMPARE(r.status, 201);
    api.control = r.body["control"].get<std::string>();
    QTRY_COMPARE_WITH_TIMEOUT(api.get("/v1/run").body["watchers"].get<int>(), 0, 30'000);
    std::vector<int> watchers;
    for (int k = 0; k < 32; ++k) {
        watchers.push_back(connectTo(s.port));
        QVERIFY(openStream(watchers.back(), kToken).rfind("HTTP/1.1 200", 0) == 0);
    }
    QCOMPARE(api.get("/v1/run/stream").status, 503);
    QCOMPARE(api.get("/v1/run").body["watchers"].get<int>(), 32);
    for (int fd : watchers)
        close(fd);
    QCOMPARE(api.post("/v1/run/stop", "{}").status, 200);

    const QString problems = checkSchema(log);
    QVERIFY2(problems.isEmpty(), qPrintable(problems));
}

void TstApi::tokenIsRequiredAndNeverTakenFromTheUrl()
{
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    httplib::Client c("127.0.0.1", s.port);
    const auto expectBare401 = [&](const httplib::Result &res, const char *what) {
        QVERIFY2(res, what);
        QVERIFY2(res->status == 401, what);
        QVERIFY2(res->body.empty(), what); // no other information
        QCOMPARE(res->get_header_value("WWW-Authenticate"), std::string("Bearer"));
    };
    expectBare401(c.Get("/v1/version"), "no token");
    expectBare401(c.Get("/v1/version", {{"Authorization", "Bearer wrong-token-wrong-token"}}),
                  "a wrong token");
    expectBare401(c.Get("/v1/version", {{"Authorization", std::string("Basic ") + kToken}}),
                  "not a bearer token");
    expectBare401(c.Get((std::string("/v1/version?access_token=") + kToken).c_str()),
                  "the token in the URL");
    expectBare401(c.Get((std::string("/v1/version?token=") + kToken).c_str(),
                        {{"Authorization", std::string("Bearer ") + kToken}}),
                  "the token in the URL beside the header");
    expectBare401(c.Post("/v1/run/start", "{}", "application/json"), "a command without a token");
    // A token sent in the path or the query is never written to the log.
    expectBare401(c.Get((std::string("/v1/") + kToken).c_str()), "the token as the path");
    QVERIFY(c.Get((std::string("/v1/sessions/") + kToken).c_str(),
                  {{"Authorization", std::string("Bearer ") + kToken}}));
    QVERIFY(c.Post((std::string("/v1/run/mark?t=") + kToken).c_str(),
                   {{"Authorization", std::string("Bearer ") + kToken}}, "{}", "application/json"));
    expectBare401(c.Get("/metrics"), "metrics without --metrics-public");
    const auto ok = c.Get("/v1/version", {{"Authorization", std::string("Bearer ") + kToken}});
    QVERIFY(ok && ok->status == 200);
    QTRY_VERIFY(s.drainErrors().contains("GET /v1/version 401")); // the server's log says so
    QTRY_VERIFY2(s.drainErrors().contains("GET /v1/sessions/* 4"), qPrintable(s.err));
    QTRY_VERIFY2(s.drainErrors().contains("POST /v1/run/mark "), qPrintable(s.err));
    QVERIFY2(!s.drainErrors().contains(QString::fromLatin1(kToken)), qPrintable(s.err));
}

void TstApi::abusiveClientsAreBoundedAndTheRunGoesOn()
{
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    Api api(s.port, kToken, nullptr);
    // Samples every 10 ms: a watcher that never reads falls behind within seconds.
    auto r = api.post("/v1/run/start", R"({"interval_ms":10})");
    QCOMPARE(r.status, 201);
    api.control = r.body["control"].get<std::string>();
    const std::int64_t session = r.body["session"].get<std::int64_t>();

    // A slow client: asks for the stream and never reads it.
    const int slow = connectTo(s.port);
    const int small = 4096;
    setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    QVERIFY(openStream(slow, kToken).rfind("HTTP/1.1 200", 0) == 0);

    // 200 connections at once that send nothing.
    std::vector<int> idle;
    for (int k = 0; k < 200; ++k)
        idle.push_back(connectTo(s.port));
    // Malformed and oversized requests on top.
    QCOMPARE(api.post("/v1/run/mark", "{\"label\": ").status, 400);
    QCOMPARE(api.post("/v1/run/mark", std::string(1 << 20, '{')).status, 413);
    QCOMPARE(api.post("/v1/run/set", std::string(60'000, '[')).status, 400);
    QCOMPARE(api.post("/v1/run/start", R"({"interval_ms":1e999})").status, 400);
    // Bodies httplib would read without a bound are refused before they are read.
    const std::string auth = std::string("Authorization: Bearer ") + kToken + "\r\n";
    QCOMPARE(rawStatus(s.port, "POST /v1/run/mark HTTP/1.1\r\nHost: t\r\n" + auth +
                                   "Transfer-Encoding: chunked\r\n\r\n"),
             std::string("HTTP/1.1 411 Length Required"));
    // A field name with white space before its colon is not one: refused, not ignored (a
    // proxy in front might take it as the body's framing).
    QCOMPARE(rawStatus(s.port, "POST /v1/run/mark HTTP/1.1\r\nHost: t\r\n" + auth +
                                   "Transfer-Encoding : chunked\r\n\r\n"),
             std::string("HTTP/1.1 400 Bad Request"));
    // So are more header fields than any client needs.
    std::string many;
    for (int k = 0; k < 2000; ++k)
        many += "X-Filler-" + std::to_string(k) + ": 1\r\n";
    QCOMPARE(rawStatus(s.port, "GET /v1/version HTTP/1.1\r\nHost: t\r\n" + auth + many + "\r\n"),
             std::string("HTTP/1.1 431 Request Header Fields Too Large"));
    // A key given twice is refused, never the last taken silently.
    const auto twice = api.post("/v1/run/mark", R"({"label":"a","label":"b"})");
    QCOMPARE(twice.status, 400);
    QVERIFY2(twice.body["error"].get<std::string>().find("\"label\" is given twice") !=
                 std::string::npos,
             twice.body.dump().c_str());
    // A POST without Content-Length has no body (RFC 9112): the API answers it as {} (a mark
    // needs a label), not with a demand for Content-Length.
    const std::string noLength = rawExchange(s.port, "POST /v1/run/mark HTTP/1.1\r\nHost: t\r\n" +
                                                         auth + "Connection: close\r\n\r\n");
    QVERIFY2(noLength.rfind("HTTP/1.1 400 Bad Request", 0) == 0 &&
                 noLength.find("mark: field \\\"label\\\" is empty") != std::string::npos,
             noLength.c_str());
    QCOMPARE(rawStatus(s.port, "POST /v1/run/mark HTTP/1.1\r\nHost: t\r\n" + auth +
                                   "Content-Encoding: gzip\r\nContent-Length: 10\r\n\r\n"),
             std::string("HTTP/1.1 415 Unsupported Media Type"));
    QCOMPARE(rawStatus(s.port, "GET /v1/sessions HTTP/1.1\r\nHost: t\r\n" + auth +
                                   "Range: bytes=0-,0-,0-,0-\r\n\r\n"),
             std::string("HTTP/1.1 416 Range Not Satisfiable"));
    // Names a client sends that are not UTF-8 come back replaced, not as a failure.
    QCOMPARE(api.get("/v1/sessions/%FF").status, 400);

    // The engine still answers, and the slow watcher is cut off without stopping the run.
    QTRY_COMPARE_WITH_TIMEOUT(api.get("/v1/run").body["watchers"].get<int>(), 0, 120'000);
    for (int fd : idle)
        close(fd);
    close(slow);
    r = api.get("/v1/run");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["running"].get<bool>(), true);
    r = api.post("/v1/run/stop", "{}");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["samples_lost"].get<int>(), 0);
    const auto written = r.body["samples_written"].get<std::int64_t>();
    QVERIFY2(written > 100, std::to_string(written).c_str());
    r = api.get("/v1/sessions/" + std::to_string(session));
    QCOMPARE(r.body["status"].get<std::string>(), "completed");
    QCOMPARE(r.body["samples"].get<std::int64_t>(), written);
}

void TstApi::oneControlsOthersWatch()
{
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    Api controller(s.port, kToken, nullptr), watcher(s.port, kToken, nullptr);
    auto r = controller.post("/v1/run/start", R"({"client":"alice@desk"})");
    QCOMPARE(r.status, 201);
    controller.control = r.body["control"].get<std::string>();

    // The watcher sees the run, and its changes are refused with the reason.
    r = watcher.get("/v1/run");
    QCOMPARE(r.body["controller"].get<std::string>(), "alice@desk");
    QVERIFY(!r.body.contains("control")); // the key is the controller's alone
    for (const char *path : {"/v1/run/set", "/v1/run/mark", "/v1/run/stop"}) {
        r = watcher.post(path,
                         std::string(path) == "/v1/run/set"
                             ? R"({"set":{"poll.budget":32}})"
                             : (std::string(path) == "/v1/run/mark" ? R"({"label":"x"})" : "{}"));
        QCOMPARE(r.status, 409);
        const std::string why = r.body["error"].get<std::string>();
        QVERIFY2(why.find("controlled by \"alice@desk\"") != std::string::npos, why.c_str());
        QVERIFY2(why.find("can watch") != std::string::npos, why.c_str());
    }
    watcher.control = "00000000000000000000000000000000";
    QCOMPARE(watcher.post("/v1/run/set", R"({"set":{"poll.budget":32}})").status, 409);

    // The controller's change, made once the watcher's stream is open, reaches it.
    std::atomic<bool> sent{false};
    std::vector<json> seen;
    httplib::Client c("127.0.0.1", s.port);
    c.set_bearer_token_auth(kToken);
    c.set_read_timeout(30, 0);
    std::string buffer;
    std::thread setter;
    c.Get("/v1/run/stream", [&](const char *data, std::size_t len) {
        buffer.append(data, len);
        for (auto nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
            const json j = json::parse(buffer.substr(0, nl));
            buffer.erase(0, nl + 1);
            if (!sent.exchange(true))
                setter = std::thread([&] {
                    controller.post("/v1/run/set",
                                    R"({"set":{"poll.budget":16},"source":"script"})");
                });
            if (j["type"] == "event" && j["kind"] == "param") {
                seen.push_back(j);
                return false;
            }
        }
        return true;
    });
    if (setter.joinable()) setter.join();
    QCOMPARE(seen.size(), std::size_t(1));
    QCOMPARE(seen[0]["tunable"].get<std::string>(), "poll.budget");
    QCOMPARE(seen[0]["new"].get<std::string>(), "16");
    QCOMPARE(seen[0]["source"].get<std::string>(), "script"); // who made it, as the client says
    QCOMPARE(controller.post("/v1/run/stop", "{}").status, 200);
}

void TstApi::killDashNineLeavesAnInterruptedSession()
{
    QTemporaryDir dir;
    std::int64_t session = 0;
    {
        Serve s;
        QVERIFY(startTcp(s, dir));
        Api api(s.port, kToken, nullptr);
        auto r = api.post("/v1/run/start", "{}");
        QCOMPARE(r.status, 201);
        session = r.body["session"].get<std::int64_t>();
        // Until the recorder has written some of the run.
        QTRY_VERIFY_WITH_TIMEOUT(api.get("/v1/sessions").body[0]["samples"].get<int>() >= 3,
                                 30'000);
        s.p.kill(); // SIGKILL: nothing is cleaned up
        QVERIFY(s.p.waitForFinished(10'000));
    }
    Serve again;
    QVERIFY(startTcp(again, dir));
    QVERIFY2(again.err.contains("1 session(s) left running by a process that is gone were marked "
                                "interrupted"),
             qPrintable(again.err));
    Api api(again.port, kToken, nullptr);
    const auto r = api.get("/v1/sessions/" + std::to_string(session));
    QCOMPARE(r.status, 200);
    QCOMPARE(r.body["status"].get<std::string>(), "interrupted");
    QVERIFY(r.body["samples"].get<std::int64_t>() >= 3); // what was written before the kill
}

void TstApi::unixSocketIsTheGroupsAndNeedsNoToken()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("run/engine.sock");
    Serve s;
    QString why;
    QVERIFY2(s.start({"--listen", "unix:" + path, "--db", dir.filePath("s.db")}, &why),
             qPrintable(why));
    QCOMPARE(s.url, "unix:" + path);
    struct stat st {};
    QCOMPARE(stat(path.toLocal8Bit().constData(), &st), 0);
    QVERIFY(S_ISSOCK(st.st_mode));
    QCOMPARE(st.st_mode & 0777, mode_t(0660));

    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.toLocal8Bit().constData(), sizeof a.sun_path - 1);
    QCOMPARE(::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
    const std::string req = "GET /v1/version HTTP/1.1\r\nHost: engine\r\nConnection: close\r\n\r\n";
    QCOMPARE(::write(fd, req.data(), req.size()), ssize_t(req.size()));
    std::string reply;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        reply.append(buf, static_cast<std::size_t>(n));
    close(fd);
    QVERIFY2(reply.rfind("HTTP/1.1 200", 0) == 0, reply.c_str());
    const json body = json::parse(reply.substr(reply.find("\r\n\r\n") + 4));
    QCOMPARE(body["api"].get<int>(), 1);
    QCOMPARE(body["endpoint"].get<std::string>(), "unix:" + path.toStdString());

    // A second engine on the same socket is refused; the first keeps it.
    Serve second;
    QVERIFY(!second.start({"--listen", "unix:" + path, "--db", dir.filePath("t.db")}));
    QVERIFY2(second.err.contains("another engine is serving there"), qPrintable(second.err));
    // Stopped cleanly, the socket goes.
    s.p.terminate();
    QVERIFY(s.p.waitForFinished(20'000));
    QCOMPARE(s.p.exitCode(), 0);
    QVERIFY(!QFile::exists(path));
}

void TstApi::badSetUpIsRefusedWithAReason()
{
    QTemporaryDir dir;
    const auto refused = [&](const QStringList &args, const char *expected) {
        Serve s;
        QVERIFY(!s.start(args));
        QCOMPARE(s.p.exitCode(), 2);
        QVERIFY2(s.drainErrors().contains(expected), qPrintable(s.err));
    };
    const std::string open = writeToken(
        dir, kToken, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther | QFile::WriteOwner);
    refused({"--listen", "tcp:127.0.0.1:0", "--token-file", QString::fromStdString(open)},
            "mode 0644 lets others read it; allowed: 0600 or 0400");
    const std::string shortToken = writeToken(dir, "short", QFile::ReadOwner | QFile::WriteOwner);
    refused({"--listen", "tcp:127.0.0.1:0", "--token-file", QString::fromStdString(shortToken)},
            "at least 16 characters");
    refused({"--listen", "tcp:127.0.0.1:0", "--db", dir.filePath("s.db")},
            "TCP needs --token-file");
    refused({"--listen", "udp:1.2.3.4:5"}, "not unix: or tcp:");
    refused({"--listen", "tcp:127.0.0.1:99999"}, "port \"99999\" is not a port");
    refused({"--listen", "unix:relative.sock"}, "must be absolute");
}

void TstApi::httpsWithACertificate()
{
    QTemporaryDir dir;
    QVERIFY2(makeTestCertificate(dir.path()),
             "openssl could not make a certificate (packaging/bootstrap.sh installs openssl)");
    Serve s;
    QVERIFY(startTcp(
        s, dir, {"--tls-cert", dir.filePath("cert.pem"), "--tls-key", dir.filePath("key.pem")}));
    QVERIFY(s.url.startsWith("https://127.0.0.1:"));
    httplib::SSLClient tls("127.0.0.1", s.port);
    tls.enable_server_certificate_verification(false);
    tls.set_bearer_token_auth(kToken);
    const auto r = tls.Get("/v1/version");
    QVERIFY(r);
    QCOMPARE(r->status, 200);
    QVERIFY(r->body.find("\"api\":1") != std::string::npos);
    // Plain HTTP to the TLS port gets no API reply.
    httplib::Client plain("127.0.0.1", s.port);
    plain.set_bearer_token_auth(kToken);
    plain.set_read_timeout(5, 0);
    const auto p = plain.Get("/v1/version");
    QVERIFY(!p || p->status != 200);
    // A key that does not load is refused at start.
    QFile::copy(dir.filePath("cert.pem"), dir.filePath("bad-key.pem"));
    Serve bad;
    QVERIFY(!bad.start({"--listen", "tcp:127.0.0.1:0", "--db", dir.filePath("s.db"), "--token-file",
                        dir.filePath("token"), "--tls-cert", dir.filePath("cert.pem"), "--tls-key",
                        dir.filePath("bad-key.pem")}));
    QVERIFY2(bad.err.contains("cannot be loaded"), qPrintable(bad.err));
}

void TstApi::watcherThatFallsBehindIsCutOffWithAReason()
{
    StreamHub hub;
    auto slow = hub.watch("{\"type\":\"state\"}");
    auto keeping = hub.watch();
    QVERIFY(slow && keeping);
    Event e;
    e.kind = "mark";
    std::vector<Watcher::Line> kept, lines;
    for (std::size_t k = 0; k < kWatcherQueueLines + 10; ++k) {
        e.message = std::to_string(k);
        hub.onEvent(e);
        keeping->take(kept, 0); // a watcher that keeps up sees every line
    }
    QCOMPARE(kept.size(), kWatcherQueueLines + 10);
    QVERIFY(slow->take(lines, 0));
    QCOMPARE(lines.size(), std::size_t(1)); // what it missed is gone; the reason is not
    const json last = json::parse(*lines.back());
    QCOMPARE(last["type"].get<std::string>(), "end");
    QVERIFY(last["reason"].get<std::string>().find("fell 600 lines behind") != std::string::npos);
    QVERIFY(!slow->take(lines, 0));
    QCOMPARE(hub.watchers(), std::size_t(1));
    // Bounded in number, and none once closed.
    std::vector<std::shared_ptr<Watcher>> many;
    while (auto w = hub.watch())
        many.push_back(w);
    QCOMPARE(many.size() + 1, kMaxWatchers);
    hub.close();
    QVERIFY(!hub.watch());
    QVERIFY(keeping->take(lines, 0));
    QCOMPARE(json::parse(*lines.back())["reason"].get<std::string>(),
             "the engine is shutting down");
}

void TstApi::publicMetricsAreOnlyTheMetrics()
{
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir, {"--metrics-public"}));
    httplib::Client c("127.0.0.1", s.port);
    auto r = c.Get("/metrics");
    QVERIFY(r && r->status == 200);
    r = c.Post("/metrics", "x", "text/plain");
    QVERIFY(r && r->status == 401); // only reading the metrics goes without the token
    r = c.Get("/v1/version");
    QVERIFY(r && r->status == 401);
}

// GET /v1/devices read back by a client (the desktop attached to an engine): every row as the
// engine wrote it; a bad reply is refused by its place, and a newer engine's tunable is left
// out rather than refusing the list.
void TstApi::deviceListsRoundTripAndBadOnesAreRefused()
{
    DeviceListing lab;
    lab.spec = "kernel-lab";
    lab.kind = "kernel lab";
    lab.driver = "veth";
    lab.description = "a veth pair";
    lab.link = "up, 10000 Mbit/s";
    lab.rxInterrupts = true;
    lab.available = false;
    lab.unavailableWhy = "needs root";
    lab.support = {{findTunable("napi.threaded")->id, Support::Applies, ""},
                   {findTunable("rx.ring_size")->id, Support::Ignored, "the kernel's ring"}};
    DeviceListing sim;
    sim.spec = "sim";
    const auto back = devicesFromJson(devicesJson({sim, lab}));
    QVERIFY2(back.ok(), back.error().c_str());
    QCOMPARE(devicesJson(back.value()), devicesJson({sim, lab}));

    json newer = devicesJson({lab});
    newer[0]["support"].push_back({{"tunable", "napi.future_knob"}, {"support", "applies"}});
    newer[0]["support"].push_back({{"tunable", "rx.ring_size"}, {"support", "someday"}});
    const auto kept = devicesFromJson(newer);
    QVERIFY(kept.ok());
    QCOMPARE(kept.value()[0].support.size(), std::size_t{2});

    const std::pair<json, const char *> bad[] = {
        {json::object(), "expected an array"},
        {json::array({1}), "devices[0]: expected an object"},
        {json::array({json::object()}), "devices[0].spec: missing"},
        {json::array({{{"spec", "sim"}, {"link", 3}}}), "devices[0].link: expected a string"},
        {json::array({{{"spec", "sim"}, {"available", "yes"}}}), "devices[0].available"},
        {json::array({{{"spec", "sim"}, {"support", {{{"tunable", 1}}}}}}), "devices[0].support"},
    };
    for (const auto &[reply, says] : bad) {
        const auto r = devicesFromJson(reply);
        QVERIFY2(!r.ok() && r.error().find(says) != std::string::npos,
                 qPrintable(QString::fromStdString(reply.dump() + ": " + r.error())));
    }
}

void TstApi::sampleLinesRoundTripAndBadOnesAreRefused()
{
    Sample s;
    s.seq = 7;
    s.t = 1.5;
    s.interval = 0.1;
    for (std::size_t k = 0; k < kCounterCount; ++k) {
        s.rate[k] = 10.0 * static_cast<double>(k + 1);
        s.total[k] = 100 * (k + 1);
    }
    s.rxMbps = 8e-6 * s.rateOf(CounterId::RxBytes);
    s.txMbps = 8e-6 * s.rateOf(CounterId::TxBytes);
    s.latency.p99 = 42.5;
    s.latency.count = 12;
    s.threads.push_back({"poll", 81.5, 8.15, 990, 250});
    s.poolFree = 4000;
    s.engineCpuMsPerS = std::nan(""); // written as null
    s.device.push_back({"port_a_rx_pps", "pps", 812.5, false});
    s.device.push_back({"port_a_ipackets", "packets", 4096, true});
    const json line = toJson(s);
    auto read = sampleFromJson(line);
    QVERIFY2(read.ok(), read.error().c_str());
    Sample back = read.value();
    QCOMPARE(back.seq, s.seq);
    for (std::size_t k = 0; k < kCounterCount; ++k) { // every counter's rate is in the line once
        QVERIFY2(std::abs(back.rate[k] - s.rate[k]) < 1e-6 * s.rate[k],
                 std::string(counterName(static_cast<CounterId>(k))).c_str());
        QCOMPARE(back.total[k], s.total[k]);
    }
    QCOMPARE(back.latency.p99, 42.5);
    QCOMPARE(back.threads.size(), std::size_t(1));
    QCOMPARE(back.threads[0].pollGapMaxUs, 250.0);
    QCOMPARE(back.poolFree, 4000u);
    QVERIFY(std::isnan(back.engineCpuMsPerS));
    QCOMPARE(back.device.size(), std::size_t(2)); // a device's figures keep unit and kind
    for (const DeviceMetric &m : s.device) {
        const auto it = std::find_if(back.device.begin(), back.device.end(),
                                     [&](const DeviceMetric &b) { return b.name == m.name; });
        QVERIFY2(it != back.device.end(), m.name.c_str());
        QCOMPARE(it->value, m.value);
        QCOMPARE(it->unit, m.unit);
        QCOMPARE(it->total, m.total);
    }
    json older = line; // a line from before units were sent: the figures, without them
    older.erase("device_units");
    older.erase("device_totals");
    read = sampleFromJson(older);
    QVERIFY2(read.ok(), read.error().c_str());
    back = read.value();
    QCOMPARE(back.device.size(), std::size_t(2));
    QVERIFY(back.device[0].unit.empty() && !back.device[0].total);
    // A stall the engine saw travels with the sample; none is written as no field.
    QVERIFY(!line.contains("stall"));
    QVERIFY(back.stall == Stall::None);
    Sample late = s;
    late.stall = Stall::Sampler;
    const json stalled = toJson(late);
    QCOMPARE(stalled.at("stall").get<std::string>(), std::string("sampler"));
    read = sampleFromJson(stalled);
    QVERIFY2(read.ok(), read.error().c_str());
    back = read.value();
    QVERIFY(back.stall == Stall::Sampler);

    const auto refused = [&](json bad, const char *what) {
        const auto out = sampleFromJson(bad);
        QVERIFY2(!out.ok(), what);
        QVERIFY2(out.status().outcome() == Outcome::Refused, what);
    };
    json bad = line;
    bad["stall"] = "poll-ish";
    refused(bad, "a stall that is not one");
    bad = line;
    bad["stall"] = 1;
    refused(bad, "a stall that is not text");
    bad = line;
    bad["gauges"]["pool_free"] = -1;
    refused(bad, "a negative count");
    bad = line;
    bad["gauges"]["pool_free"] = 1e12;
    refused(bad, "a count that does not fit");
    bad = line;
    bad["totals"].erase("polls");
    refused(bad, "a counter missing");
    bad = line;
    bad["device_units"]["port_a_rx_pps"] = 5;
    refused(bad, "a unit that is not text");
    bad = line;
    bad["device_totals"] = "port_a_ipackets";
    refused(bad, "device_totals not a list");
    bad = line;
    bad["device_totals"].push_back(7);
    refused(bad, "a total that is not a name");
    bad = line;
    bad["device"]["port_a_ipackets"] = -1;
    refused(bad, "a running total below 0");
    bad = line;
    bad["throughput"]["rx_pps"] = "fast";
    refused(bad, "a word for a number");
    bad = line;
    bad["cpu"]["threads"] = json::array();
    for (int k = 0; k < 300; ++k)
        bad["cpu"]["threads"].push_back(line["cpu"]["threads"][0]);
    refused(bad, "too many threads");
    refused(json::array(), "not an object");
    QVERIFY(!eventFromJson(json{{"t", 1}, {"kind", 5}}).ok());
}

// A run whose set-up takes a while (a 65,536-buffer pool: 256 MiB faulted in, about 0.75 s
// here; a DPDK port or the lab take seconds) holds the run's lock; /metrics does not wait
// for it.
void TstApi::scrapesDoNotWaitForAStart()
{
    QTemporaryDir dir;
    RunApi api(RunApiOptions{dir.filePath("s.db").toStdString(), false, {}, {}, false, {}},
               registryDevices());
    std::atomic<bool> started{false};
    ApiReply reply;
    std::thread starter([&] {
        reply = api.handle({"POST",
                            "/v1/run/start",
                            {},
                            R"({"set":{"rx.pool_buffers":65536,"rx.ring_size":4096}})",
                            {}});
        started = true;
    });
    int scrapes = 0; // answered while the start was still going
    while (!started) {
        (void)api.metricsText();
        if (!started) ++scrapes;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    starter.join();
    QCOMPARE(reply.status, 201);
    qInfo("%d scrapes answered while the run started", scrapes);
    QVERIFY2(scrapes >= 3, qPrintable(QString::number(scrapes)));
    QVERIFY(api.metricsText().find("ringlab_run_info") != std::string::npos);
    const ApiReply stopped =
        api.handle({"POST", "/v1/run/stop", {}, "{}", reply.body["control"].get<std::string>()});
    QCOMPARE(stopped.status, 200);
}

void TstApi::requestsAreFramedOnceAndAnsweredInOrder()
{
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    const std::string auth = std::string("Authorization: Bearer ") + kToken + "\r\n";
    const std::string head = "Host: t\r\n" + auth;

    // Two requests in one write: both answered, in order (httplib 0.11 alone answered the
    // first and dropped the second).
    std::string r = rawExchange(
        s.port, "GET /v1/version HTTP/1.1\r\n" + head + "\r\nGET /v1/run HTTP/1.1\r\n" + head +
                    "\r\nGET /v1/sessions HTTP/1.1\r\n" + head + "Connection: close\r\n\r\n");
    QCOMPARE(statusLines(r),
             QStringList({"HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK"}));
    const auto version = r.find("\"api\":1"), run = r.find("\"running\":false");
    QVERIFY2(version != std::string::npos && run != std::string::npos && version < run, r.c_str());

    // Two Content-Length headers: refused, naming both, and the connection ends, so neither
    // length's bytes are taken for a request.
    r = rawExchange(s.port, "POST /v1/run/mark HTTP/1.1\r\n" + head +
                                "Content-Length: 2\r\nContent-Length: 40\r\n\r\n"
                                "{}GET /v1/version HTTP/1.1\r\nHost: t\r\n\r\n");
    QCOMPARE(statusLines(r), QStringList({"HTTP/1.1 400 Bad Request"}));
    QVERIFY2(r.find("2 Content-Length headers (\\\"2\\\", \\\"40\\\"): send exactly one") !=
                 std::string::npos,
             r.c_str());
    QVERIFY2(r.find("Connection: close") != std::string::npos, r.c_str());
    r = rawExchange(s.port,
                    "POST /v1/run/mark HTTP/1.1\r\n" + head + "Content-Length: 1e3\r\n\r\n{}");
    QVERIFY2(r.find("Content-Length \\\"1e3\\\" is not a number of bytes") != std::string::npos,
             r.c_str());

    // A refusal before the body is read (no token) ends the connection: the body is not
    // answered as a request of its own.
    r = rawExchange(s.port, "POST /v1/run/mark HTTP/1.1\r\nHost: t\r\nContent-Length: 27\r\n\r\n"
                            "GET /v1/version HTTP/1.1\r\n\r\n");
    QCOMPARE(statusLines(r), QStringList({"HTTP/1.1 401 Unauthorized"}));

    // The scheme is case-insensitive (RFC 7235); the token is not.
    httplib::Client c("127.0.0.1", s.port);
    for (const char *scheme : {"bearer ", "BEARER ", "Bearer  "}) {
        const auto ok = c.Get("/v1/version", {{"Authorization", scheme + std::string(kToken)}});
        QVERIFY2(ok && ok->status == 200, scheme);
    }
    std::string upper = kToken;
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    const auto wrong = c.Get("/v1/version", {{"Authorization", "bearer " + upper}});
    QVERIFY(wrong && wrong->status == 401);

    // An empty POST is a request like any other: stop without a run is the API's 409, not a
    // demand for Content-Length.
    r = rawExchange(s.port, "POST /v1/run/stop HTTP/1.1\r\n" + head + "Connection: close\r\n\r\n");
    QCOMPARE(statusLines(r), QStringList({"HTTP/1.1 409 Conflict"}));
    QVERIFY2(r.find("stop: no run is going") != std::string::npos, r.c_str());

    // A body labelled as a form (curl -d's default) is the JSON body, bounded at 64 KiB like
    // any other: httplib's own 8 KiB bound for forms and its form parsing are not used.
    c.set_bearer_token_auth(kToken);
    const std::string form = "a=" + std::string(8191, 'x');
    auto res = c.Post("/v1/run/mark", form, "application/x-www-form-urlencoded");
    QVERIFY(res);
    QCOMPARE(res->status, 400);
    QVERIFY2(res->body.find("the request body is not JSON") != std::string::npos,
             res->body.c_str());
    const std::string padded = R"({"label":"x")" + std::string(9000, ' ') + "}";
    res = c.Post("/v1/run/mark", padded, "application/x-www-form-urlencoded");
    QVERIFY(res);
    QCOMPARE(res->status, 409); // read as JSON; the API then says there is no run
    QVERIFY2(res->body.find("mark: no run is going") != std::string::npos, res->body.c_str());
    res = c.Post("/v1/run/mark", std::string(65537, ' '), "application/x-www-form-urlencoded");
    QVERIFY(res);
    QCOMPARE(res->status, 413);
    QVERIFY2(res->body.find("the request body (65537 bytes) is larger than 65536 bytes") !=
                 std::string::npos,
             res->body.c_str());
    // Multipart bodies are refused by name before they are read.
    res = c.Post("/v1/run/mark", "--b\r\n\r\n--b--\r\n", "multipart/form-data; boundary=b");
    QVERIFY(res);
    QCOMPARE(res->status, 415);
}

QTEST_GUILESS_MAIN(TstApi)
#include "tst_api.moc"
