// SPDX-License-Identifier: GPL-2.0-or-later
// The lab's network namespaces, through iproute2: created per run with the owner's pid in
// the name ("ringlab-<pid>-a"), so that the next run can remove what a killed one left.
#pragma once

#include <string>
#include <vector>

#include "engine/datapath/tunables.h"

namespace ringlab::lab {

inline constexpr const char *kNamespacePrefix = "ringlab-";

// Namespaces named kNamespacePrefix<pid>-... whose process is gone; removes them and returns
// their names.
std::vector<std::string> removeStaleNamespaces();

class Namespace {
  public:
    // Creates it; throws std::runtime_error naming it and iproute2's answer.
    explicit Namespace(std::string name);
    ~Namespace(); // deletes it, and with it every interface inside
    Namespace(const Namespace &) = delete;
    Namespace &operator=(const Namespace &) = delete;

    const std::string &name() const { return name_; }
    // Moves `ifname` from this process's namespace in, gives it `cidr` and brings it up.
    Status adopt(const std::string &ifname, const std::string &cidr);
    // Moves `ifname` back to this process's namespace (its addresses are lost).
    Status release(const std::string &ifname);

  private:
    std::string name_;
};

// Runs ARGV: empty on success, else the command and what it printed.
std::string runChecked(const std::vector<std::string> &argv);
// `ip ARGS...`: empty on success, else the command and what it printed.
std::string ip(const std::vector<std::string> &args);

} // namespace ringlab::lab
