// SPDX-License-Identifier: GPL-2.0-or-later
// A veth pair for the kernel device's tests (as root): one end here, its peer in a network
// namespace of its own, both up, no address and no traffic, GRO on so that the veth has a
// NAPI (Linux 6.18, DESIGN.md 2026-12-06). Removed when the object goes; the namespace is
// named ringlab-PID-..., which the lab removes if the test dies.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>
#include <string>
#include <unistd.h>

namespace ringlab::test {

// A command's exit code (-1: it did not finish), its output in `out`.
inline int runCommand(const QString &program, const QStringList &args, QString *out = nullptr)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(20'000)) {
        p.kill();
        p.waitForFinished();
        return -1;
    }
    if (out) *out = QString::fromLocal8Bit(p.readAll());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

class VethPair {
  public:
    // `tag` tells two tests' pairs apart (interface names are 15 bytes at most).
    explicit VethPair(const QString &tag)
    {
        const QString id = QString::number(::getpid() % 100000);
        dev_ = ("rl" + tag + id + "a").toStdString();
        peer_ = ("rl" + tag + id + "b").toStdString();
        ns_ = "ringlab-" + QString::number(::getpid()) + "-" + tag;
    }
    ~VethPair() { remove(); }
    VethPair(const VethPair &) = delete;
    VethPair &operator=(const VethPair &) = delete;

    // Empty when made; else the step that failed with the command's output.
    QString make()
    {
        QString out;
        const QString dev = QString::fromStdString(dev_), peer = QString::fromStdString(peer_);
        if (runCommand("ip", {"link", "add", dev, "type", "veth", "peer", "name", peer}, &out))
            return "ip link add: " + out;
        made_ = true;
        if (runCommand("ip", {"netns", "add", ns_}, &out)) return "ip netns add: " + out;
        if (runCommand("ip", {"link", "set", peer, "netns", ns_}, &out))
            return "ip link set netns: " + out;
        if (runCommand("ip", {"link", "set", dev, "up"}, &out)) return "ip link set up: " + out;
        if (runCommand("ip", {"-n", ns_, "link", "set", peer, "up"}, &out))
            return "ip -n link set up: " + out;
        if (runCommand("ethtool", {"-K", dev, "gro", "on"}, &out))
            return "ethtool -K gro on: " + out;
        return {};
    }
    void remove()
    {
        if (!made_) return;
        runCommand("ip", {"link", "del", QString::fromStdString(dev_)});
        runCommand("ip", {"netns", "del", ns_});
        made_ = false;
    }

    const std::string &dev() const { return dev_; }
    const std::string &peer() const { return peer_; }
    const QString &ns() const { return ns_; }

  private:
    std::string dev_, peer_;
    QString ns_;
    bool made_ = false;
};

} // namespace ringlab::test
