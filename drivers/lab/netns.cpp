// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/lab/netns.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>
#include <stdexcept>

#include "drivers/lab/child_process.h"

namespace ringlab::lab {

std::string runChecked(const std::vector<std::string> &argv)
{
    std::string out;
    if (runCommand(argv, out) == 0) return {};
    std::string cmd;
    for (const auto &a : argv)
        cmd += (cmd.empty() ? "" : " ") + a;
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return "'" + cmd + "' failed" + (out.empty() ? "" : ": " + out);
}

std::string ip(const std::vector<std::string> &args)
{
    std::vector<std::string> argv{"ip"};
    argv.insert(argv.end(), args.begin(), args.end());
    return runChecked(argv);
}

std::vector<std::string> removeStaleNamespaces()
{
    std::vector<std::string> removed;
    std::string out;
    if (runCommand({"ip", "netns", "list"}, out) != 0) return removed;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        const std::string name = line.substr(0, line.find(' '));
        if (name.rfind(kNamespacePrefix, 0) != 0) continue;
        const std::string rest = name.substr(std::string(kNamespacePrefix).size());
        char *end = nullptr;
        const long pid = std::strtol(rest.c_str(), &end, 10);
        if (pid <= 0 || end == rest.c_str() || *end != '-') continue;
        if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue; // still alive
        if (ip({"netns", "delete", name}).empty()) removed.push_back(name);
    }
    return removed;
}

Namespace::Namespace(std::string name) : name_(std::move(name))
{
    if (auto err = ip({"netns", "add", name_}); !err.empty())
        throw std::runtime_error("cannot create network namespace " + name_ + ": " + err +
                                 (geteuid() != 0 ? " (the lab needs root or CAP_SYS_ADMIN)" : ""));
    ip({"-n", name_, "link", "set", "lo", "up"});
}

Namespace::~Namespace()
{
    ip({"netns", "delete", name_});
}

Status Namespace::adopt(const std::string &ifname, const std::string &cidr)
{
    for (const auto &args :
         std::vector<std::vector<std::string>>{{"link", "set", "dev", ifname, "netns", name_},
                                               {"-n", name_, "addr", "add", cidr, "dev", ifname},
                                               {"-n", name_, "link", "set", "dev", ifname, "up"}})
        if (auto err = ip(args); !err.empty()) return Status{err};
    return Status::success();
}

Status Namespace::release(const std::string &ifname)
{
    return Status{
        ip({"-n", name_, "link", "set", "dev", ifname, "netns", std::to_string(getpid())})};
}

} // namespace ringlab::lab
