// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/lab/lab.h"

#include <unistd.h>

#include <stdexcept>

namespace ringlab::lab {

Lab::Lab(LabOptions opts, std::string ifA, std::string ifB)
    : opts_(std::move(opts)), ifA_(std::move(ifA)), ifB_(std::move(ifB))
{
    for (const auto &ns : removeStaleNamespaces())
        pending_.push_back("removed network namespace " + ns + " left by a run that was killed");
    const std::string base = kNamespacePrefix + std::to_string(getpid());
    a_ = std::make_unique<Namespace>(base + "-a");
    b_ = std::make_unique<Namespace>(base + "-b");
    if (opts_.traffic)
        traffic_ = std::make_unique<Traffic>(*opts_.traffic, a_->name(), b_->name(), kAddressB,
                                             opts_.boundS);
}

Lab::~Lab()
{
    traffic_.reset();
    // Deleting a namespace destroys the TAP interfaces inside; the PMD's descriptors close
    // with the port.
    a_.reset();
    b_.reset();
}

std::pair<std::string, std::string> Lab::tapPorts(std::string &ifA, std::string &ifB)
{
    // Interface names are at most 15 characters: "rl" + pid + side.
    const std::string pid = std::to_string(getpid());
    ifA = "rl" + pid + "a";
    ifB = "rl" + pid + "b";
    // The vdev names must be unique in the process too (a GUI may start several labs).
    static int instance = 0;
    const int n = instance;
    instance += 2;
    return {"net_tap" + std::to_string(n) + ",iface=" + ifA,
            "net_tap" + std::to_string(n + 1) + ",iface=" + ifB};
}

std::string Lab::name() const
{
    return "lab (" + a_->name() + " " + kAddressA + " <-> " + b_->name() + " " + kAddressB + ")";
}

void Lab::afterStart()
{
    if (inside_) return;
    for (auto [ns, ifname, addr] :
         {std::tuple{a_.get(), ifA_, kAddressA}, std::tuple{b_.get(), ifB_, kAddressB}})
        if (auto st = ns->adopt(ifname, std::string(addr) + "/24"); !st.ok())
            throw std::runtime_error("lab: " + st.error);
    inside_ = true;
}

void Lab::beforeStop()
{
    // A TAP port cannot restart while its interface is in another namespace: bring both
    // back for the reconfiguration, afterStart() moves them out again.
    if (!inside_) return;
    // A port that cannot come back is said, not dropped: its restart then fails with the
    // device's own reason, and this one tells why.
    for (auto [ns, ifname] : {std::pair{a_.get(), ifA_}, std::pair{b_.get(), ifB_}})
        if (auto st = ns->release(ifname); !st.ok()) pending_.push_back("lab: " + st.error);
    inside_ = false;
}

void Lab::linkUp()
{
    if (!traffic_ || trafficStarted_) return;
    traffic_->start();
    trafficStarted_ = true;
    std::string cmd;
    for (const auto &a : traffic_->clientCommand())
        cmd += (cmd.empty() ? "" : " ") + a;
    pending_.push_back("traffic: " + cmd);
}

void Lab::linkDown()
{
    if (!traffic_ || !trafficStarted_) return;
    DeviceReading last; // the clients' summaries; their round trips stay in the histogram
    traffic_->stop(last);
    for (auto &e : last.events)
        pending_.push_back(std::move(e));
}

void Lab::read(DeviceReading &r)
{
    for (auto &e : pending_)
        r.events.push_back(std::move(e));
    pending_.clear();
    if (traffic_ && trafficStarted_) traffic_->read(r);
}

} // namespace ringlab::lab
