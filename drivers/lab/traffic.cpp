// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/lab/traffic.h"

#include "engine/common/words.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <sstream>
#include <stdexcept>

namespace ringlab::lab {

namespace {

struct Option {
    const char *name;
    bool takesValue;
};

// What a user may add to the client: shaping the traffic, never choosing where it goes.
constexpr Option kPingOptions[] = {{"-i", true},  {"-s", true},  {"-c", true},  {"-w", true},
                                   {"-W", true},  {"-l", true},  {"-t", true},  {"-Q", true},
                                   {"-f", false}, {"-A", false}, {"-n", false}, {"-4", false}};
constexpr Option kIperfOptions[] = {
    {"-u", false}, {"--udp", false},      {"-b", true},  {"--bitrate", true},
    {"-l", true},  {"--length", true},    {"-t", true},  {"--time", true},
    {"-n", true},  {"--bytes", true},     {"-k", true},  {"--blockcount", true},
    {"-P", true},  {"--parallel", true},  {"-R", false}, {"--reverse", false},
    {"-w", true},  {"--window", true},    {"-M", true},  {"--set-mss", true},
    {"-N", false}, {"--no-delay", false}, {"-Z", false}, {"--zerocopy", false},
    {"-O", true},  {"--omit", true},      {"-p", true},  {"--port", true}};

std::string allowedList(std::span<const Option> opts)
{
    std::string s;
    for (const auto &o : opts)
        s += (s.empty() ? "" : " ") + std::string(o.name);
    return s;
}

bool isNumber(const std::string &s)
{
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return !s.empty() && end &&
           (*end == 0 || std::string("KMGkmg").find(*end) != std::string::npos) && v >= 0;
}

bool hasOpt(const std::vector<std::string> &args, std::initializer_list<const char *> names)
{
    for (const auto &a : args)
        for (const char *n : names)
            if (a == n) return true;
    return false;
}

} // namespace

Status parseTraffic(const std::string &text, TrafficSpec &out)
{
    std::istringstream in(text);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    if (words.empty())
        return Status{"--traffic: empty (allowed: \"ping [OPTIONS]\" or \"iperf3 [OPTIONS]\")"};
    TrafficSpec spec;
    spec.text = text;
    std::span<const Option> opts;
    if (words[0] == "ping") {
        spec.tool = TrafficSpec::Tool::Ping;
        opts = kPingOptions;
    } else if (words[0] == "iperf3") {
        spec.tool = TrafficSpec::Tool::Iperf3;
        opts = kIperfOptions;
    } else {
        return Status{"--traffic \"" + text + "\": \"" + words[0] +
                      "\" is not a traffic client the lab runs (allowed: ping, iperf3)"};
    }
    for (std::size_t k = 1; k < words.size(); ++k) {
        const auto it = std::find_if(opts.begin(), opts.end(),
                                     [&](const Option &o) { return words[k] == o.name; });
        if (it == opts.end())
            return Status{"--traffic \"" + text + "\": \"" + words[k] +
                          "\" is not allowed: the lab chooses the destination and the server "
                          "(allowed " +
                          words[0] + " options: " + allowedList(opts) + ")"};
        spec.args.push_back(words[k]);
        if (it->takesValue) {
            if (k + 1 >= words.size() || !isNumber(words[k + 1]))
                return Status{"--traffic \"" + text + "\": " + words[k] + " needs a number"};
            spec.args.push_back(words[++k]);
        }
    }
    spec.udp = hasOpt(spec.args, {"-u", "--udp"});
    spec.reverse = hasOpt(spec.args, {"-R", "--reverse"});
    out = spec;
    return Status::success();
}

Traffic::Traffic(TrafficSpec spec, std::string clientNs, std::string serverNs,
                 std::string serverAddr, int boundS)
    : spec_(std::move(spec)), clientNs_(std::move(clientNs)), serverNs_(std::move(serverNs)),
      serverAddr_(std::move(serverAddr))
{
    const std::string bound = std::to_string(std::max(1, boundS));
    clientArgv_ = {"ip", "netns", "exec", clientNs_};
    if (spec_.tool == TrafficSpec::Tool::Ping) {
        // -O: say when a reply is overdue, so losses are seen as they happen.
        clientArgv_.insert(clientArgv_.end(), {"ping", "-O"});
        clientArgv_.insert(clientArgv_.end(), spec_.args.begin(), spec_.args.end());
        if (!hasOpt(spec_.args, {"-c", "-w"})) clientArgv_.insert(clientArgv_.end(), {"-w", bound});
        clientArgv_.push_back(serverAddr_);
    } else {
        clientArgv_.insert(clientArgv_.end(),
                           {"iperf3", "-c", serverAddr_, "--forceflush", "-i", "0.5"});
        clientArgv_.insert(clientArgv_.end(), spec_.args.begin(), spec_.args.end());
        if (!hasOpt(spec_.args, {"-t", "--time", "-n", "--bytes", "-k", "--blockcount"}))
            clientArgv_.insert(clientArgv_.end(), {"-t", bound});
        if (!serverNs_.empty()) serverArgv_ = {"ip", "netns", "exec", serverNs_};
        serverArgv_.insert(serverArgv_.end(),
                           {"iperf3", "-s", "-1", "--forceflush", "-i", "0.5", "-B", serverAddr_});
        for (std::size_t k = 0; k + 1 < spec_.args.size(); ++k)
            if (spec_.args[k] == "-p" || spec_.args[k] == "--port")
                serverArgv_.insert(serverArgv_.end(), {"-p", spec_.args[k + 1]});
    }
}

Traffic::~Traffic()
{
    client_.stop(SIGINT, std::chrono::milliseconds(500));
    server_.stop(SIGINT, std::chrono::milliseconds(500));
}

void Traffic::start()
{
    if (!serverArgv_.empty()) {
        if (const Status st = server_.start(serverArgv_); !st.ok())
            throw std::runtime_error("traffic: cannot start the iperf3 server: " + st.error);
        if (!server_.waitForLine("Server listening", std::chrono::seconds(5))) {
            std::string said;
            for (const auto &l : server_.readLines())
                said += l + " ";
            throw std::runtime_error(
                "traffic: the iperf3 server in " +
                (serverNs_.empty() ? std::string("this namespace") : serverNs_) +
                " did not start listening: " + said +
                "(is iperf3 installed? apt-get install iperf3)");
        }
    }
    if (const Status st = client_.start(clientArgv_); !st.ok())
        throw std::runtime_error("traffic: cannot start '" + joinWords(clientArgv_) +
                                 "': " + st.error);
}

void Traffic::parseIperfInterval(const std::string &line, DeviceReading &r)
{
    // "[  5]   0.00-0.50   sec   612 KBytes  10.0 Mbits/sec  0.008 ms  0/429 (0%)  "
    const bool sum = line.rfind("[SUM]", 0) == 0;
    if (sum) sumLines_ = true;
    if (sumLines_ && !sum) return;
    if (line.find("sender") != std::string::npos || line.find("receiver") != std::string::npos) {
        r.events.push_back("iperf3: " + line);
        return;
    }
    const auto close = line.find(']');
    if (close == std::string::npos) return;
    double from = 0, to = 0, amount = 0, rate = 0;
    char amountUnit[16] = {}, rateUnit[16] = {};
    if (std::sscanf(line.c_str() + close + 1, " %lf-%lf sec %lf %15s %lf %15s", &from, &to, &amount,
                    amountUnit, &rate, rateUnit) != 6)
        return;
    const std::string ru = rateUnit;
    const double scale = ru[0] == 'G' ? 1e3 : ru[0] == 'M' ? 1.0 : ru[0] == 'K' ? 1e-3 : 1e-6;
    r.metrics.push_back({"iperf_goodput_mbps", "Mbit/s", rate * scale});
    double jitter = 0;
    long lost = 0, total = 0;
    const auto ms = line.find(" ms ");
    if (ms != std::string::npos) {
        const auto start = line.rfind(' ', ms - 1);
        jitter = std::strtod(line.c_str() + start + 1, nullptr);
        if (std::sscanf(line.c_str() + ms + 4, " %ld/%ld", &lost, &total) == 2 && total > 0) {
            r.metrics.push_back({"iperf_jitter_ms", "ms", jitter});
            r.metrics.push_back({"iperf_loss_pct", "%",
                                 100.0 * static_cast<double>(lost) / static_cast<double>(total)});
        }
    }
}

void Traffic::parseClient(const std::string &line, DeviceReading &r)
{
    if (spec_.tool == TrafficSpec::Tool::Ping) {
        if (const auto t = line.find("time=");
            t != std::string::npos && line.find("icmp_seq=") != std::string::npos) {
            const double ms = std::strtod(line.c_str() + t + 5, nullptr);
            rtt_.record(static_cast<std::uint64_t>(ms * 1e6));
            ++replies_;
        } else if (line.find("no answer yet") != std::string::npos) {
            ++unanswered_;
        } else if (line.find("packets transmitted") != std::string::npos ||
                   line.rfind("rtt ", 0) == 0) {
            r.events.push_back("ping: " + line);
        }
        return;
    }
    if (spec_.reverse)
        parseIperfInterval(line, r); // the client receives
    else if (line.find("sender") != std::string::npos && line.rfind("[", 0) == 0)
        r.events.push_back("iperf3: " + line);
    else if (line.find("iperf3: error") != std::string::npos)
        r.events.push_back(line);
}

void Traffic::parseServer(const std::string &line, DeviceReading &r)
{
    if (!spec_.reverse && line.rfind("[", 0) == 0) parseIperfInterval(line, r);
}

void Traffic::read(DeviceReading &r)
{
    for (const auto &l : client_.readLines())
        parseClient(l, r);
    for (const auto &l : server_.readLines())
        parseServer(l, r);
    if (spec_.tool == TrafficSpec::Tool::Ping) {
        r.rtt = rtt_.snapshot();
        r.hasRtt = true;
        r.metrics.push_back({"ping_replies", "packets", static_cast<double>(replies_), true});
        r.metrics.push_back({"ping_unanswered", "packets", static_cast<double>(unanswered_), true});
    }
    if (!clientExited_ && !client_.running()) {
        clientExited_ = true;
        r.events.push_back(clientArgv_[4] + " ended with exit code " +
                           std::to_string(client_.exitCode()));
    }
}

void Traffic::stop(DeviceReading &r)
{
    // SIGINT: ping and iperf3 print their summaries on it.
    client_.stop(SIGINT, std::chrono::milliseconds(1500));
    server_.stop(SIGINT, std::chrono::milliseconds(1500));
    read(r);
}

} // namespace ringlab::lab
