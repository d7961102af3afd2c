// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/rr_client_command.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/stop_signals.h"
#include "drivers/kernel/rr_client.h"
#include "drivers/kernel/udp_app_device.h"
#include "engine/common/duration.h"

namespace ringlab {

namespace {

Status parseTarget(const std::string &text, sockaddr_in &out)
{
    const auto colon = text.rfind(':');
    const std::string host = text.substr(0, colon);
    std::uint16_t port = kernel::kDefaultUdpPort; // kernel:IFNAME,port=N
    if (colon != std::string::npos) {
        const std::string p = text.substr(colon + 1);
        const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
        if (p.empty() || ec != std::errc{} || end != p.data() + p.size() || port == 0)
            return Status{"rr-client: --to " + text + ": \"" + p +
                          "\" is not a UDP port (allowed: 1 to 65535)"};
    }
    out = {};
    out.sin_family = AF_INET;
    out.sin_port = htons(port);
    if (inet_pton(AF_INET, host.c_str(), &out.sin_addr) != 1)
        return Status{"rr-client: --to " + text + ": \"" + host +
                      "\" is not an IPv4 address (allowed: ADDR or ADDR:PORT, e.g. "
                      "198.18.0.1:9000)"};
    return Status::success();
}

// One interval's or the whole run's figures.
struct Figures {
    double t = 0, seconds = 0;
    std::uint64_t sent = 0, replies = 0, skipped = 0, unsent = 0;
    Histogram::Snapshot rtt;
};

void print(const Figures &f, bool total, bool json)
{
    const double us = 1e-3;
    const std::uint64_t n = f.rtt.total();
    if (json) {
        nlohmann::json j{{"type", total ? "total" : "interval"},
                         {"t", f.t},
                         {"seconds", f.seconds},
                         {"sent", f.sent},
                         {"replies", f.replies},
                         {"skipped", f.skipped},
                         {"unsent", f.unsent}};
        if (n) {
            j["rtt_us"] = {{"p50", f.rtt.quantile(0.5) * us},  {"p90", f.rtt.quantile(0.9) * us},
                           {"p99", f.rtt.quantile(0.99) * us}, {"p999", f.rtt.quantile(0.999) * us},
                           {"max", f.rtt.maxValue() * us},     {"mean", f.rtt.mean() * us}};
        }
        std::printf("%s\n", j.dump().c_str());
    } else if (total) {
        const std::uint64_t lost = f.sent > f.replies ? f.sent - f.replies : 0;
        std::printf(
            "total %.1f s: sent %llu, replies %llu, unanswered %llu (%.3f %%), skipped "
            "%llu, unsent %llu\n",
            f.seconds, static_cast<unsigned long long>(f.sent),
            static_cast<unsigned long long>(f.replies), static_cast<unsigned long long>(lost),
            f.sent ? 100.0 * static_cast<double>(lost) / static_cast<double>(f.sent) : 0.0,
            static_cast<unsigned long long>(f.skipped), static_cast<unsigned long long>(f.unsent));
        if (n)
            std::printf("round trip (us): p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  "
                        "mean %.1f  (%llu replies)\n",
                        f.rtt.quantile(0.5) * us, f.rtt.quantile(0.9) * us,
                        f.rtt.quantile(0.99) * us, f.rtt.quantile(0.999) * us,
                        f.rtt.maxValue() * us, f.rtt.mean() * us,
                        static_cast<unsigned long long>(n));
    } else {
        std::printf("%7.1f s  sent %8llu  replies %8llu", f.t,
                    static_cast<unsigned long long>(f.sent),
                    static_cast<unsigned long long>(f.replies));
        if (n)
            std::printf("  rtt p50 %8.1f  p99 %8.1f  max %8.1f us", f.rtt.quantile(0.5) * us,
                        f.rtt.quantile(0.99) * us, f.rtt.maxValue() * us);
        std::printf("\n");
    }
    std::fflush(stdout);
}

Figures figuresOf(const kernel::RrClient &c)
{
    Figures f;
    f.sent = c.sent();
    f.replies = c.replies();
    f.skipped = c.skipped();
    f.unsent = c.unsent();
    f.rtt = c.rtt();
    return f;
}

} // namespace

int rrClientCommand(const RrClientCommandOptions &o)
{
    kernel::RrOptions opts;
    if (Status st = parseTarget(o.to, opts.server); !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
        return 2;
    }
    const bool json = o.output == "jsonl";
    opts.ratePps = o.rate;
    opts.frameBytes = o.frameBytes;
    opts.count = o.count;
    opts.durationS = durationSeconds(o.duration);
    if (Status st = kernel::RrClient::check(opts); !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
        return 2;
    }
    const auto intervalNs = parseDurationNs(o.interval).value_or(1'000'000'000);
    const int sigFd = takeStopSignals();
    kernel::RrClient client(opts);
    if (Status st = client.start(); !st.ok()) {
        std::fprintf(stderr, "ringlab-engine: rr-client: %s\n", st.error.c_str());
        ::close(sigFd);
        return 1;
    }
    const auto start = std::chrono::steady_clock::now();
    auto secondsNow = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    Figures last;
    double nextReport = static_cast<double>(intervalNs) * 1e-9;
    bool stopped = false;
    while (!client.finished()) {
        pollfd p{sigFd, POLLIN, 0};
        const int ms = static_cast<int>(
            std::clamp((nextReport - secondsNow()) * 1000.0, 1.0, 50.0)); // finished() checks
        if (::poll(&p, 1, ms) > 0) {
            signalfd_siginfo info;
            (void)!::read(sigFd, &info, sizeof info);
            stopped = true;
            break;
        }
        if (secondsNow() >= nextReport) {
            Figures now = figuresOf(client);
            Figures d;
            d.t = secondsNow();
            d.seconds = d.t - last.t;
            d.sent = now.sent - last.sent;
            d.replies = now.replies - last.replies;
            d.skipped = now.skipped - last.skipped;
            d.unsent = now.unsent - last.unsent;
            d.rtt = now.rtt.minus(last.rtt);
            print(d, false, json);
            now.t = d.t;
            last = now;
            nextReport += static_cast<double>(intervalNs) * 1e-9;
        }
    }
    if (stopped)
        client.stop();
    else
        client.finish();
    Figures total = figuresOf(client);
    total.t = total.seconds = secondsNow();
    print(total, true, json);
    ::close(sigFd);
    char addr[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &opts.server.sin_addr, addr, sizeof addr);
    if (stopped) {
        std::fprintf(stderr, "ringlab-engine: rr-client: stopped by a signal\n");
        return 1;
    }
    if (total.replies == 0) {
        std::fprintf(stderr,
                     "ringlab-engine: rr-client: no reply from %s:%u to %llu requests: is "
                     "`ringlab-engine run --device kernel:IFNAME` answering there, and does "
                     "IFNAME have that address?\n",
                     addr, ntohs(opts.server.sin_port),
                     static_cast<unsigned long long>(total.sent));
        return 1;
    }
    return 0;
}

Subcommand addRrClientCommand(CLI::App &app)
{
    auto o = std::make_shared<RrClientCommandOptions>();
    auto *cmd = app.add_subcommand(
        "rr-client",
        "Send UDP requests to a kernel device (run --device kernel:IFNAME) on another host and "
        "measure each round trip; bounded by --count and --duration");
    cmd->add_option("--to", o->to, "The engine's address, ADDR or ADDR:PORT (port 9000)")
        ->required();
    cmd->add_option("--rate", o->rate, "Requests a second, sent open-loop")
        ->capture_default_str()
        ->check(CLI::Range(1e-3, 1e7));
    cmd->add_option("--frame-bytes", o->frameBytes,
                    "Ethernet frame size of a request (UDP payload: 42 bytes less)")
        ->capture_default_str()
        ->check(CLI::Range(64, 1514));
    cmd->add_option("--count", o->count, "Requests to send at most (0: the duration bounds)")
        ->capture_default_str();
    cmd->add_option("--duration", o->duration, "How long to send at most (up to 7 days)")
        ->capture_default_str()
        ->check(durationValidator(1'000'000));
    cmd->add_option("--interval", o->interval, "How often to print the last interval's figures")
        ->capture_default_str()
        ->check(durationValidator(100'000'000));
    cmd->add_option("-o,--output", o->output, "text, or jsonl (one JSON object per line)")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "jsonl"}));
    return {cmd, [o] { return rrClientCommand(*o); }};
}

} // namespace ringlab
