// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel's receive-path settings as live tunables of a kernel device's run (issue 44,
// part 2): each NAPI's threaded mode, defer-hard-irqs, gro-flush-timeout and
// irq-suspend-timeout (netdev netlink's napi-set on every NAPI of the netdev where this
// kernel's policy takes the attribute, the device-wide sysfs file otherwise), the CPU and
// policy of each NAPI kthread (host/thread_sched.h), the CPU of the netdev's IRQs, the
// driver's GRO, channels, rings and coalescing where it takes them (ethtool netlink,
// host/ethtool_netlink.h), and the host-wide sysctls net.core.busy_poll and busy_read.
//
// host (-1), each knob's default, leaves the setting as the host has it. Any other value is written
// through the run's settings journal (the old value on disk first), so it is put back when the
// run ends, or at the next start after a kill -9 (DESIGN.md, "Decided 2026-12-06"); going
// back to host mid-run puts the host's value back at once.
//
// What the host offers is probed once, when the device is made (the family's policy, the
// sysfs files, the sysctls), never inferred from the kernel's version: a knob it lacks is
// Support::Unavailable, naming what is missing. Control context only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "drivers/host/settings_journal.h"
#include "engine/common/environment_facts.h"
#include "engine/common/status.h"
#include "engine/datapath/device.h"

namespace ringlab::kernel {

class NapiSettings {
  public:
    // Probes IF (its ifindex) on this host. Never fails: what cannot be had is unavailable.
    NapiSettings(std::string ifname, unsigned ifindex,
                 std::string journalDir = host::defaultJournalDir());
    ~NapiSettings(); // puts back what is still changed
    NapiSettings(const NapiSettings &) = delete;
    NapiSettings &operator=(const NapiSettings &) = delete;

    // What each knob is here: Applies, or Unavailable with what is missing.
    void support(std::vector<TunableSupport> &out) const;
    // Refused, naming the knob, the value and what is allowed here, when an unavailable knob
    // is asked for or a value is outside what the kernel takes (the policy's range).
    Status check(const ParamSet &ps) const;
    // Writes what differs from what this object last set; all or nothing: a refusal (its
    // reason names the knob, the value and the kernel's reason) puts back what it wrote.
    Status apply(const ParamSet &ps);
    // Puts every setting back; the reason names any that could not be (its journal is kept,
    // for `ringlab-engine restore`).
    Status restore();
    // The NAPIs of the netdev and their settings now, one line each ("napi 1: irq -,
    // kthread -, threaded 0, defer-hard-irqs 0, gro-flush-timeout 0 ns, irq-suspend-timeout 0
    // ns"; no ids or pids, so that two runs' compare), for the run's environment; empty with
    // `why` set when they cannot be read.
    std::string describe(std::string &why) const;

    // How this host sets a knob.
    enum class Way { None, Ethtool, Netlink, Sysfs, Sysctl, Affinity, Policy, IrqAffinity };
    struct Knob {
        TunableId id = TunableId::NapiThreaded;
        Way way = Way::None;
        // netdev netlink's attribute (Netlink), ethtool's (Ethtool), or the file (Sysfs,
        // Sysctl)
        std::string attr;
        long long min = 0, max = 0; // what the kernel or the driver takes
        std::string why;            // Way::None: what is missing
        long long applied = -1;
    };
    const std::vector<Knob> &knobs() const { return knobs_; }

  private:
    // The value asked for: -1 for host; napi.kthread_policy with its priority as one number.
    static long long wanted(const Knob &k, const ParamSet &ps);
    // Where the knob's value lives now: one address per NAPI (Netlink), or its file.
    Status targets(const Knob &k, std::vector<std::string> &out) const;
    Status write(const std::string &path, const std::string &value);
    // The host's value of a setting this run changed ("" when it never changed it).
    std::string original(const std::string &path) const;

    std::string ifname_;
    unsigned ifindex_ = 0;
    std::string journalDir_;
    std::vector<Knob> knobs_;
    std::unique_ptr<host::SettingsJournal> journal_; // opened at the first change
};

} // namespace ringlab::kernel
