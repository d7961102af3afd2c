// SPDX-License-Identifier: GPL-2.0-or-later
// A real traffic client across a lab: ping, or iperf3 with its server. The client runs in
// one namespace, the server (iperf3) in another, or in the engine's own (the kernel lab,
// whose engine end stays here); their output is read live. ping's
// round trips go into the probe latency histogram; iperf3's goodput, loss and jitter become
// metrics. Every client is bounded: a count or a deadline is added when the user gave none.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "drivers/lab/child_process.h"
#include "engine/datapath/device.h"
#include "engine/datapath/histogram.h"

namespace ringlab::lab {

struct TrafficSpec {
    enum class Tool { Ping, Iperf3 };
    Tool tool = Tool::Ping;
    std::vector<std::string> args; // the user's options, checked
    bool reverse = false;          // iperf3 -R: the server sends
    bool udp = false;
    std::string text; // as given
};

// "ping -i 0.01", "iperf3 -u -b 0 -l 1460 -t 20". The destination is the lab's: options that
// would name another host or leave the lab are refused, with the option and what is allowed.
Status parseTraffic(const std::string &text, TrafficSpec &out);

class Traffic {
  public:
    // `boundS`: the deadline added when the user gave no count or duration. `serverNs`
    // empty: the server runs in this process's namespace.
    Traffic(TrafficSpec spec, std::string clientNs, std::string serverNs, std::string serverAddr,
            int boundS);
    ~Traffic();
    // Starts the server (and waits until it listens), then the client; throws
    // std::runtime_error with what failed.
    void start();
    // Reads what the programs printed: metrics into `r`, round trips into the histogram.
    void read(DeviceReading &r);
    // Interrupts both (so they print their summaries), reads the rest into `r`.
    void stop(DeviceReading &r);
    const std::vector<std::string> &clientCommand() const { return clientArgv_; }

  private:
    void parseClient(const std::string &line, DeviceReading &r);
    void parseServer(const std::string &line, DeviceReading &r);
    void parseIperfInterval(const std::string &line, DeviceReading &r);
    void finish(DeviceReading &r);

    TrafficSpec spec_;
    std::string clientNs_, serverNs_, serverAddr_;
    std::vector<std::string> clientArgv_, serverArgv_;
    ChildProcess client_, server_;
    Histogram rtt_; // one writer: whoever holds the device (sampler, or control at stop)
    std::uint64_t replies_ = 0, unanswered_ = 0;
    bool sumLines_ = false; // iperf3 -P > 1 prints [SUM] lines; then only those count
    bool clientExited_ = false;
};

} // namespace ringlab::lab
