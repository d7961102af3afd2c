// SPDX-License-Identifier: GPL-2.0-or-later
// Whom `ringlab-engine serve` trusts (docs/api.md, Access and Bounds): the socket's directory
// must be this user's alone (made 0700, or 0750 of --socket-group's group), a thousand idle
// connections do not keep an authorised request waiting, a device that needs privilege needs
// a grant (serve --allow), and a control refusal names when the controller took over.
#include <arpa/inet.h>
#include <grp.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "serve_process.h"
#include "tests/require.h"

using nlohmann::json;

namespace {

constexpr const char *kToken = "0123456789abcdef0123456789abcdef";

// A connection to the server from 127.0.0.1, or with `source` 1..250 from 127.0.1.SOURCE (the
// whole of 127/8 is this machine's): as many clients, since the gate bounds each address's
// connections that have shown no token.
int connectTo(int port, int source = 0)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && source > 0) {
        sockaddr_in from{};
        from.sin_family = AF_INET;
        from.sin_addr.s_addr = htonl(0x7f000100u | static_cast<std::uint32_t>(source));
        if (::bind(fd, reinterpret_cast<sockaddr *>(&from), sizeof from) != 0) {
            close(fd);
            return -1;
        }
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

// `n` connections that send nothing, spread over 8 client addresses (at most 256 from one
// address may be open before they show a token); empty when one could not be made.
std::vector<int> openSilentConnections(int port, int n)
{
    std::vector<int> fds;
    for (int k = 0; k < n; ++k) {
        const int fd = connectTo(port, k % 8 + 1);
        if (fd < 0) {
            for (int f : fds)
                close(f);
            return {};
        }
        fds.push_back(fd);
    }
    return fds;
}

// This test's own connections are files too: the open-file limit raised to at least `n`
// where the hard limit allows; false when it cannot be.
bool roomForConnections(rlim_t n)
{
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) != 0) return false;
    if (files.rlim_cur < n + 1000 && files.rlim_max > files.rlim_cur) {
        files.rlim_cur = std::min<rlim_t>(files.rlim_max, n + 3000);
        if (setrlimit(RLIMIT_NOFILE, &files) != 0) return false;
    }
    return files.rlim_cur >= n;
}

struct Reply {
    int status = 0;
    json body;
};

Reply call(int port, const std::string &method, const std::string &path,
           const std::string &body = {}, const std::string &control = {})
{
    httplib::Client c("127.0.0.1", port);
    c.set_bearer_token_auth(kToken);
    c.set_read_timeout(30, 0);
    httplib::Headers h;
    if (!control.empty()) h.emplace("X-Ringlab-Control", control);
    const auto res = method == "GET" ? c.Get(path.c_str(), h)
                                     : c.Post(path.c_str(), h, body, "application/json");
    if (!res) return {};
    return {res->status, json::parse(res->body, nullptr, false)};
}

// Every virtual device the installed DPDK registers, read from its PMD libraries as
// dpdk-pmdinfo does (their PMD_INFO_STRING), with the eth_ alias of each that has one.
QStringList installedVdevNames()
{
    QStringList names;
    const QDir lib("/usr/lib/x86_64-linux-gnu");
    static const QRegularExpression info("PMD_INFO_STRING= (\\{[^\\n\\x00]*\\})");
    for (const QString &f : lib.entryList({"librte_net_*.so.*"}, QDir::Files)) {
        QFile file(lib.filePath(f));
        if (!file.open(QIODevice::ReadOnly)) continue;
        const QByteArray bytes = file.readAll();
        for (auto it = info.globalMatch(QString::fromLatin1(bytes)); it.hasNext();) {
            const json j = json::parse(it.next().captured(1).toStdString(), nullptr, false);
            if (!j.is_object() || !j.contains("name") || !j["pci_ids"].empty()) continue;
            const QString name = QString::fromStdString(j["name"].get<std::string>());
            if (names.contains(name)) continue;
            names << name;
            const QString alias = "eth_" + name.mid(name.indexOf('_') + 1);
            if (bytes.contains(QByteArray(alias.toLatin1()) + '\0')) names << alias;
        }
    }
    return names;
}

// What a connection reads within `ms`: its bytes until the peer closed (closed true) or the
// time passed.
std::string readFor(int fd, int ms, bool &closed)
{
    std::string out;
    closed = false;
    QElapsedTimer t;
    t.start();
    char buf[4096];
    while (t.elapsed() < ms) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) continue;
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) {
            closed = true;
            break;
        }
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

// Whether the gate has closed `fd` (a read sees the end) without waiting.
bool closedByPeer(int fd)
{
    char c;
    const ssize_t n = ::recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

mode_t modeOf(const QString &path, gid_t *gid = nullptr)
{
    struct stat st {};
    if (::stat(path.toLocal8Bit().constData(), &st) != 0) return 0;
    if (gid) *gid = st.st_gid;
    return st.st_mode & 07777;
}

} // namespace

class TstApiSecurity : public QObject {
    Q_OBJECT
  private slots:
    void aDirectoryOthersMayWriteIsRefused();
    void theDirectoryMadeIsTheUsers();
    void socketGroupReachesTheSocket();
    void thousandIdleConnectionsDoNotDelayARequest();
    void thousandIdleTlsConnectionsDoNotDelayARequest();
    void slowClientsDoNotDelayARequest();
    void oneSourceHoldsABoundedShareOfUnprovenConnections();
    void privilegedDevicesNeedAGrant();
    void everyDpdkVdevButNullAndRingNeedsTheGrant();
    void takeoverNamesTheNewControllersTime();

  private:
    bool startTcp(Serve &s, QTemporaryDir &dir, const QStringList &extra = {});
};

bool TstApiSecurity::startTcp(Serve &s, QTemporaryDir &dir, const QStringList &extra)
{
    const QString tokenFile = writeTokenFile(dir.path(), kToken);
    if (tokenFile.isEmpty()) return false;
    QString why;
    const bool ok = s.start(
        QStringList{"--listen", "tcp:127.0.0.1:0", "--token-file", tokenFile, "--no-record"} +
            extra,
        &why);
    if (!ok) qWarning("%s", qPrintable(why));
    return ok;
}

void TstApiSecurity::aDirectoryOthersMayWriteIsRefused()
{
    QTemporaryDir dir;
    const QString run = dir.filePath("run");
    QVERIFY(QDir().mkdir(run));
    QVERIFY(chmod(run.toLocal8Bit().constData(), 0777) == 0); // as another user would leave it
    Serve s;
    QVERIFY(!s.start({"--listen", "unix:" + run + "/engine.sock", "--no-record"}));
    QVERIFY2(s.err.contains("socket directory " + run +
                            " has mode 0777: group or others may "
                            "write in it"),
             qPrintable(s.err));
    QVERIFY(!QFile::exists(run + "/engine.sock"));

    // Another user's directory, however tight, is refused too (as root: give it to nobody).
    RINGLAB_REQUIRE(geteuid() == 0, "root, to give the directory to another user");
    QVERIFY(chmod(run.toLocal8Bit().constData(), 0700) == 0);
    QVERIFY(chown(run.toLocal8Bit().constData(), 65534, 65534) == 0);
    Serve t;
    QVERIFY(!t.start({"--listen", "unix:" + run + "/engine.sock", "--no-record"}));
    QVERIFY2(t.err.contains("socket directory " + run + " is owned by uid 65534"),
             qPrintable(t.err));
}

void TstApiSecurity::theDirectoryMadeIsTheUsers()
{
    QTemporaryDir dir;
    const QString run = dir.filePath("run");
    Serve s;
    QString why;
    QVERIFY2(s.start({"--listen", "unix:" + run + "/engine.sock", "--no-record"}, &why),
             qPrintable(why));
    // The default group (ringlab) when it exists and may be set, else this user's alone.
    const struct group *g = getgrnam("ringlab");
    gid_t gid = 0;
    const mode_t mode = modeOf(run, &gid);
    if (g && gid == g->gr_gid)
        QCOMPARE(mode, mode_t(0750));
    else
        QCOMPARE(mode, mode_t(0700));
    QCOMPARE(modeOf(run + "/engine.sock"), mode_t(0660));
}

void TstApiSecurity::socketGroupReachesTheSocket()
{
    QTemporaryDir dir;
    // A group that does not exist is refused when asked for by name.
    Serve none;
    QVERIFY(!none.start({"--listen", "unix:" + dir.filePath("a/engine.sock"), "--socket-group",
                         "no-such-group-rl", "--no-record"}));
    QVERIFY2(none.err.contains("--socket-group no-such-group-rl: no such group"),
             qPrintable(none.err));

    RINGLAB_REQUIRE(geteuid() == 0, "root, to give the directory to another group");
    const struct group *g = getgrnam("nogroup");
    QVERIFY(g);
    const gid_t nogroup = g->gr_gid;
    // The temporary directory above is root's 0700: the group could not pass it.
    QVERIFY(chmod(dir.path().toLocal8Bit().constData(), 0711) == 0);
    const QString run = dir.filePath("run");
    Serve s;
    QString why;
    QVERIFY2(s.start({"--listen", "unix:" + run + "/engine.sock", "--socket-group", "nogroup",
                      "--no-record"},
                     &why),
             qPrintable(why));
    gid_t gid = 0;
    QCOMPARE(modeOf(run, &gid), mode_t(0750));
    QCOMPARE(gid, nogroup);
    QCOMPARE(modeOf(run + "/engine.sock", &gid), mode_t(0660));
    QCOMPARE(gid, nogroup);
    QVERIFY2(!s.err.contains("cannot reach"), qPrintable(s.err));
    s.p.terminate();
    QVERIFY(s.p.waitForFinished(20'000));

    // An existing directory of ours that is 0700 is given to the group, then reachable.
    QVERIFY(chmod(run.toLocal8Bit().constData(), 0700) == 0);
    QVERIFY(chown(run.toLocal8Bit().constData(), 0, 0) == 0);
    Serve again;
    QVERIFY2(again.start({"--listen", "unix:" + run + "/engine.sock", "--socket-group", "nogroup",
                          "--no-record"},
                         &why),
             qPrintable(why));
    QCOMPARE(modeOf(run, &gid), mode_t(0750));
    QCOMPARE(gid, nogroup);
}

void TstApiSecurity::thousandIdleConnectionsDoNotDelayARequest()
{
    RINGLAB_REQUIRE(roomForConnections(1100),
                    "an open-file limit of at least 1100, for 1000 connections");
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    const std::vector<int> idle = openSilentConnections(s.port, 1000);
    QCOMPARE(idle.size(), std::size_t{1000});
    // Each is answered while the thousand stay open; the bound is generous (2 to 6 ms measured
    // by hand), the failure it guards against took 11 to 15 s.
    for (int k = 0; k < 3; ++k) {
        QElapsedTimer t;
        t.start();
        const Reply r = call(s.port, "GET", "/v1/version");
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body["api"].get<int>(), 1);
        QVERIFY2(t.elapsed() < 5'000, qPrintable(QString::number(t.elapsed()) + " ms"));
    }
    // A connection kept alive serves several requests, pipelined ones too.
    const int fd = connectTo(s.port);
    const std::string req = std::string("GET /v1/version HTTP/1.1\r\nHost: t\r\nAuthorization: "
                                        "Bearer ") +
                            kToken + "\r\n\r\n";
    const std::string two = req + req;
    QCOMPARE(::write(fd, two.data(), two.size()), ssize_t(two.size()));
    std::string replies;
    char buf[4096];
    QElapsedTimer t;
    t.start();
    auto count = [&] {
        std::size_t n = 0;
        for (auto at = replies.find("HTTP/1.1 200"); at != std::string::npos;
             at = replies.find("HTTP/1.1 200", at + 1))
            ++n;
        return n;
    };
    while (count() < 2 && t.elapsed() < 10'000) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        replies.append(buf, static_cast<std::size_t>(n));
    }
    QCOMPARE(count(), std::size_t(2));
    close(fd);
    for (int f : idle)
        close(f);
}

// An allow list, checked against what the installed DPDK registers: every vdev and alias but
// net_null and net_ring (which stay inside the process) needs the grant, as do their
// arguments other than net_null's own.
void TstApiSecurity::everyDpdkVdevButNullAndRingNeedsTheGrant()
{
    const QStringList vdevs = installedVdevNames();
    RINGLAB_REQUIRE(vdevs.size() > 10, "DPDK's PMD libraries are not installed here");
    QVERIFY2(vdevs.contains("net_af_packet") && vdevs.contains("eth_af_packet"),
             qPrintable(vdevs.join(' ')));
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    for (const QString &v : vdevs) {
        const bool inside = v == "net_null" || v == "net_ring";
        const Reply r =
            call(s.port, "POST", "/v1/run/start",
                 json{{"device", "dpdk:" + v.toStdString() + "0"}, {"record", false}}.dump());
        if (inside) {
            QVERIFY2(r.status != 403, qPrintable(v));
            if (r.status == 201)
                QCOMPARE(
                    call(s.port, "POST", "/v1/run/stop", "{}", r.body["control"].get<std::string>())
                        .status,
                    200);
            continue;
        }
        // Refused for the grant, or, for a name the spec's grammar does not take
        // (net_ipn3ke_afu0), as no EAL device: never started either way.
        const std::string why = r.body.value("error", std::string());
        QVERIFY2((r.status == 403 && why.find("needs the grant \"dpdk\"") != std::string::npos) ||
                     (r.status == 422 && why.find("is not an EAL device") != std::string::npos),
                 qPrintable(v + ": " + QString::fromStdString(r.body.dump())));
    }
    QCOMPARE(call(s.port, "GET", "/v1/run").body["running"].get<bool>(), false);
}

// Issue 45 item 2: HTTPS connections wait in the same gate as plain ones. A thousand that
// never send their ClientHello hold no thread: an authorised request (its own handshake) is
// answered at once. One that stops mid-handshake is closed within the read timeout (5 s), one
// that sends nothing within the idle time (2 s).
void TstApiSecurity::thousandIdleTlsConnectionsDoNotDelayARequest()
{
    RINGLAB_REQUIRE(roomForConnections(1100),
                    "an open-file limit of at least 1100, for 1000 connections");
    QTemporaryDir dir;
    QProcess openssl;
    openssl.start("openssl",
                  {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                   "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout",
                   dir.filePath("key.pem"), "-out", dir.filePath("cert.pem")});
    QVERIFY2(openssl.waitForFinished(60'000) && openssl.exitCode() == 0,
             "openssl could not make a certificate");
    Serve s;
    QVERIFY(startTcp(
        s, dir, {"--tls-cert", dir.filePath("cert.pem"), "--tls-key", dir.filePath("key.pem")}));
    // Closed by the server: EOF (or a reset) within `ms`.
    auto closedWithin = [](int fd, int ms) {
        QElapsedTimer t;
        t.start();
        char buf[4096];
        while (t.elapsed() < ms) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(ms - t.elapsed())) <= 0) return false;
            const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
            if (n <= 0) return true;
        }
        return false;
    };
    const int silent = connectTo(s.port);
    const int halfway = connectTo(s.port);
    QVERIFY(silent >= 0 && halfway >= 0);
    // The first bytes of a ClientHello's record header, then nothing.
    const char start[] = {0x16, 0x03, 0x01};
    QCOMPARE(::write(halfway, start, sizeof start), ssize_t(sizeof start));
    const std::vector<int> idle = openSilentConnections(s.port, 1000);
    QCOMPARE(idle.size(), std::size_t{1000});
    for (int k = 0; k < 3; ++k) {
        QElapsedTimer t;
        t.start();
        httplib::SSLClient tls("127.0.0.1", s.port);
        tls.enable_server_certificate_verification(false);
        tls.set_bearer_token_auth(kToken);
        const auto r = tls.Get("/v1/version");
        QVERIFY(r);
        QCOMPARE(r->status, 200);
        qInfo("an authorised HTTPS request beside 1000 idle connections: %lld ms",
              static_cast<long long>(t.elapsed()));
        QVERIFY2(t.elapsed() < 5'000, qPrintable(QString::number(t.elapsed()) + " ms"));
    }
    // Both were closed by the server, each by its bound (with the gate's 250 ms tick).
    QVERIFY(closedWithin(silent, 4'000));
    QVERIFY(closedWithin(halfway, 7'000));
    ::close(silent);
    ::close(halfway);
    for (int fd : idle)
        ::close(fd);
}

// Issue 45 item 3: a request's head is read by the gate as it arrives, so clients that
// trickle theirs hold no thread. 120 connections each sending a byte every 0.3 s: three
// authorised requests are answered at once (before, 2 got through in 11 s), and a head not
// whole within the read timeout (5 s) has its connection closed.
void TstApiSecurity::slowClientsDoNotDelayARequest()
{
    RINGLAB_REQUIRE(roomForConnections(300), "an open-file limit of at least 300");
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    const std::string head =
        "GET /v1/version HTTP/1.1\r\nHost: slow\r\nX-Pad: " + std::string(100, 'x') + "\r\n\r\n";
    std::vector<int> slow;
    for (int k = 0; k < 120; ++k) {
        const int fd = connectTo(s.port);
        QVERIFY(fd >= 0);
        slow.push_back(fd);
    }
    for (int round = 0; round < 10; ++round) { // 3 s of trickling
        for (int fd : slow)
            (void)!::send(fd, head.data() + round, 1, MSG_NOSIGNAL);
        QTest::qWait(300); // the slow clients' pace, not a wait for the server
    }
    for (int k = 0; k < 3; ++k) {
        QElapsedTimer t;
        t.start();
        const Reply r = call(s.port, "GET", "/v1/version");
        QCOMPARE(r.status, 200);
        qInfo("an authorised request beside 120 slow clients: %lld ms",
              static_cast<long long>(t.elapsed()));
        QVERIFY2(t.elapsed() < 2'000, qPrintable(QString::number(t.elapsed()) + " ms"));
    }
    // 100 requests refused before their bodies were read (no token) linger for their
    // clients without a thread: the next authorised request is answered at once, and each
    // refused client reads its 401.
    std::vector<int> refused;
    const std::string post = "POST /v1/run/start HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n\r\n";
    for (int k = 0; k < 100; ++k) {
        const int fd = connectTo(s.port);
        QVERIFY(fd >= 0);
        QCOMPARE(::send(fd, post.data(), post.size(), MSG_NOSIGNAL), ssize_t(post.size()));
        refused.push_back(fd);
    }
    QElapsedTimer t;
    t.start();
    QCOMPARE(call(s.port, "GET", "/v1/version").status, 200);
    qInfo("an authorised request beside 100 lingering refusals: %lld ms",
          static_cast<long long>(t.elapsed()));
    QVERIFY2(t.elapsed() < 1'000, qPrintable(QString::number(t.elapsed()) + " ms"));
    for (int fd : refused) {
        char reply[64] = {};
        pollfd p{fd, POLLIN, 0};
        QVERIFY(::poll(&p, 1, 5'000) == 1);
        QVERIFY(::recv(fd, reply, sizeof reply - 1, 0) > 0);
        QVERIFY2(std::string(reply).rfind("HTTP/1.1 401", 0) == 0, reply);
        ::close(fd);
    }
    // Their heads, begun 3 s ago, are not whole within 5 s: each connection is closed.
    QTRY_VERIFY_WITH_TIMEOUT(std::all_of(slow.begin(), slow.end(),
                                         [](int fd) {
                                             char b;
                                             return ::recv(fd, &b, 1, MSG_DONTWAIT) == 0;
                                         }),
                             6'000);
    for (int fd : slow)
        ::close(fd);
}

void TstApiSecurity::privilegedDevicesNeedAGrant()
{
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    Reply r = call(s.port, "POST", "/v1/run/start", R"({"device":"lab"})");
    QCOMPARE(r.status, 403);
    std::string why = r.body["error"].get<std::string>();
    QVERIFY2(why.find("device \"lab\" needs the grant \"lab\"") != std::string::npos, why.c_str());
    QVERIFY2(why.find("serve --allow lab") != std::string::npos, why.c_str());
    r = call(s.port, "POST", "/v1/run/start", R"({"device":"dpdk:net_tap0"})");
    QCOMPARE(r.status, 403);
    why = r.body["error"].get<std::string>();
    QVERIFY2(why.find("needs the grant \"dpdk\"") != std::string::npos, why.c_str());
    // An allow list: DPDK's aliases, other PMDs and arguments that reach outside the process
    // (a raw socket on lo, a TUN interface, a vhost socket file) need the grant too.
    for (const char *spec :
         {"dpdk:eth_af_packet0,iface=lo", "dpdk:net_tun0", "dpdk:eth_pcap0,iface=lo",
          "dpdk:net_vhost0,iface=vh.sock", "dpdk:eth_null0", "dpdk:eth_ring0",
          "dpdk:net_null0+net_af_packet1,iface=lo", "dpdk:0000:00:03.0"}) {
        r = call(s.port, "POST", "/v1/run/start", std::string(R"({"device":")") + spec + R"("})");
        why = r.body.value("error", std::string());
        QVERIFY2(r.status == 403 && why.find("needs the grant \"dpdk\"") != std::string::npos,
                 (spec + std::string(": ") + r.body.dump()).c_str());
    }
    // A job's runs are on the device its body names, else on its profile's, as a run's: the
    // grant is checked against that one before anything runs.
    r = call(
        s.port, "POST", "/v1/jobs",
        R"({"kind":"sweep","device":"dpdk:eth_af_packet0,iface=lo","vary":["poll.sleep_min_us=10,20"]})");
    QCOMPARE(r.status, 403);
    QVERIFY2(r.body["error"].get<std::string>().find("needs the grant \"dpdk\"") !=
                 std::string::npos,
             r.body.dump().c_str());
    for (const char *kind :
         {R"("sweep","vary":["poll.sleep_min_us=10,20"])",
          R"("tune","minimize":"engine_cpu_ms_per_s","over":"poll.sleep_min_us=10..100")"}) {
        r = call(s.port, "POST", "/v1/jobs",
                 std::string(R"({"kind":)") + kind + R"(,"profile":"kni-lab-100-200"})");
        QCOMPARE(r.status, 403);
        QVERIFY2(r.body["error"].get<std::string>().find("needs the grant \"lab\"") !=
                     std::string::npos,
                 r.body.dump().c_str());
    }
    QCOMPARE(call(s.port, "GET", "/v1/run").body["running"].get<bool>(), false);
    QCOMPARE(call(s.port, "GET", "/v1/jobs").body["jobs"].size(), std::size_t{0});
    // A device that needs nothing is not held back.
    r = call(s.port, "POST", "/v1/run/start", R"({"device":"sim"})");
    QCOMPARE(r.status, 201);
    QCOMPARE(
        call(s.port, "POST", "/v1/run/stop", "{}", r.body["control"].get<std::string>()).status,
        200);
    // nor a pair of net_null ports, which stay inside the process.
    r = call(s.port, "POST", "/v1/run/start", R"({"device":"dpdk:net_null0+net_null1"})");
    QVERIFY2(r.status == 201, r.body.dump().c_str());
    QCOMPARE(
        call(s.port, "POST", "/v1/run/stop", "{}", r.body["control"].get<std::string>()).status,
        200);

    // Granted, the lab passes the grant and meets the device's own checks: without iproute2
    // on the PATH it is refused there (422), so no namespace is made by this test.
    QTemporaryDir dir2;
    Serve granted;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", dir2.path());
    granted.p.setProcessEnvironment(env);
    QVERIFY(startTcp(granted, dir2, {"--allow", "lab"}));
    r = call(granted.port, "POST", "/v1/run/start", R"({"device":"lab"})");
    QCOMPARE(r.status, 422);
    why = r.body["error"].get<std::string>();
    QVERIFY2(why.find("grant") == std::string::npos, why.c_str());
    // The grant names lab only: TAP ports are still refused.
    QCOMPARE(call(granted.port, "POST", "/v1/run/start", R"({"device":"dpdk:net_tap0"})").status,
             403);
    // The kernel device needs its own grant: it listens on a host's netdev, and its lab makes
    // a namespace and a veth pair.
    for (const char *spec : {"kernel-lab", "kernel:lo"}) {
        r = call(granted.port, "POST", "/v1/run/start",
                 std::string(R"({"device":")") + spec + R"("})");
        QCOMPARE(r.status, 403);
        why = r.body["error"].get<std::string>();
        QVERIFY2(why.find("needs the grant \"kernel\"") != std::string::npos, why.c_str());
    }
    // So does a job whose runs are on the kernel lab: reproduce napi.
    r = call(granted.port, "POST", "/v1/jobs",
             R"({"kind":"reproduce","case":"napi","repeat":1,"duration":"1s"})");
    QCOMPARE(r.status, 403);
    why = r.body["error"].get<std::string>();
    QVERIFY2(why.find("needs the grant \"kernel\"") != std::string::npos, why.c_str());
    // An unknown grant is refused with those allowed.
    Serve wrong;
    QVERIFY(!wrong.start({"--allow", "lab,root", "--no-record"}));
    QVERIFY2(wrong.err.contains("--allow: root not in {lab,dpdk,kernel}"), qPrintable(wrong.err));
}

// Issue 45 item 3: one address may hold at most kMaxUnprovenPerSource (256) connections that
// have shown no valid token; beyond, its oldest idle one is closed, never another client's
// or a connection that showed the token. A request with a wrong token closes its connection
// after the 401.
void TstApiSecurity::oneSourceHoldsABoundedShareOfUnprovenConnections()
{
    RINGLAB_REQUIRE(roomForConnections(700), "an open-file limit of at least 700");
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    const std::string get = std::string("GET /v1/version HTTP/1.1\r\nHost: t\r\n"
                                        "Authorization: Bearer ") +
                            kToken + "\r\n\r\n";
    // A client that showed its token, its connection kept alive.
    const int proven = connectTo(s.port);
    QVERIFY(proven >= 0);
    QCOMPARE(::write(proven, get.data(), get.size()), ssize_t(get.size()));
    bool closed = false;
    QVERIFY(readFor(proven, 300, closed).starts_with("HTTP/1.1 200"));
    QVERIFY(!closed);
    // Another client's silent connections, from another address.
    std::vector<int> others;
    for (int k = 0; k < 10; ++k)
        others.push_back(connectTo(s.port, 1));
    QVERIFY(std::all_of(others.begin(), others.end(), [](int fd) { return fd >= 0; }));
    // 300 silent connections from the same address: the first 44 make room for the rest.
    std::vector<int> silent;
    for (int k = 0; k < 300; ++k) {
        const int fd = connectTo(s.port);
        QVERIFY(fd >= 0);
        silent.push_back(fd);
    }
    QTRY_VERIFY_WITH_TIMEOUT(closedByPeer(silent[43]), 1'500);
    for (int k = 0; k < 44; ++k)
        QVERIFY2(closedByPeer(silent[k]), qPrintable(QString::number(k)));
    for (int k = 44; k < 300; ++k)
        QVERIFY2(!closedByPeer(silent[k]), qPrintable(QString::number(k)));
    for (int fd : others) // never the other client's
        QVERIFY(!closedByPeer(fd));
    // The proven connection is served still, on the same socket.
    QCOMPARE(::write(proven, get.data(), get.size()), ssize_t(get.size()));
    QVERIFY(readFor(proven, 300, closed).starts_with("HTTP/1.1 200"));
    QVERIFY(!closed);
    // A wrong token: 401, and the connection ends (no second try on it).
    const int wrong = connectTo(s.port);
    const std::string bad = "GET /v1/version HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer "
                            "nope\r\n\r\n";
    QCOMPARE(::write(wrong, bad.data(), bad.size()), ssize_t(bad.size()));
    QVERIFY(readFor(wrong, 3'000, closed).starts_with("HTTP/1.1 401"));
    QVERIFY(closed);
    close(wrong);
    close(proven);
    for (int fd : silent)
        close(fd);
    for (int fd : others)
        close(fd);

    // A public /metrics answers without a token, but shows none: connections that ask only
    // for it stay bounded like silent ones.
    QTemporaryDir dir2;
    Serve pub;
    QVERIFY(startTcp(pub, dir2, {"--metrics-public"}));
    const std::string metrics = "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n";
    std::vector<int> scrapers;
    for (int k = 0; k < 257; ++k) {
        const int fd = connectTo(pub.port);
        QVERIFY(fd >= 0);
        scrapers.push_back(fd);
        if (k == 0) { // the first asks, and is answered
            QCOMPARE(::write(fd, metrics.data(), metrics.size()), ssize_t(metrics.size()));
            QVERIFY(readFor(fd, 500, closed).starts_with("HTTP/1.1 200"));
        }
    }
    QTRY_VERIFY_WITH_TIMEOUT(closedByPeer(scrapers[0]), 1'500);
    for (int fd : scrapers)
        close(fd);
}

void TstApiSecurity::takeoverNamesTheNewControllersTime()
{
    QTemporaryDir dir;
    Serve s;
    QVERIFY(startTcp(s, dir));
    Reply r = call(s.port, "POST", "/v1/run/start", R"({"client":"alice@desk"})");
    QCOMPARE(r.status, 201);
    const std::string started = r.body["started_at"].get<std::string>();
    // Until this clock is past the start (ISO 8601 UTC with milliseconds sorts as text).
    const auto now = [] {
        return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
    };
    QTRY_VERIFY(now() > started);
    const std::string before = now();
    r = call(s.port, "POST", "/v1/run/control", R"({"client":"bob@lab"})");
    QCOMPARE(r.status, 200);
    const std::string key = r.body["control"].get<std::string>();
    r = call(s.port, "POST", "/v1/run/mark", R"({"label":"x"})");
    QCOMPARE(r.status, 409);
    const std::string why = r.body["error"].get<std::string>();
    const std::string since = "controlled by \"bob@lab\" (since ";
    const auto at = why.find(since);
    QVERIFY2(at != std::string::npos, why.c_str());
    const std::string when = why.substr(at + since.size(), started.size());
    QVERIFY2(when != started, why.c_str());
    QVERIFY2(when >= before, (when + " < " + before).c_str());
    QCOMPARE(call(s.port, "POST", "/v1/run/stop", "{}", key).status, 200);
}

QTEST_GUILESS_MAIN(TstApiSecurity)
#include "tst_api_security.moc"
