// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/napi_settings.h"

#include <unistd.h>

#include <algorithm>

#include "drivers/host/netdev_napi.h"
#include "drivers/host/thread_affinity.h"
#include "drivers/kernel/napi_sysfs.h"

namespace ringlab::kernel {

namespace {

// Each knob: its netdev netlink attribute (per NAPI) and, failing that, its sysfs file; or a
// host-wide sysctl.
struct KnobWays {
    TunableId id;
    std::string_view napiAttr;
    std::string_view sysctl;
};
constexpr KnobWays kWays[] = {
    {TunableId::NapiThreaded, "threaded", {}},
    {TunableId::NapiDeferHardIrqs, "defer-hard-irqs", {}},
    {TunableId::NapiGroFlushTimeoutNs, "gro-flush-timeout", {}},
    {TunableId::NapiIrqSuspendTimeoutNs, "irq-suspend-timeout", {}},
    {TunableId::NapiKthreadCpu, {}, {}}, // each NAPI kthread's affinity
    {TunableId::NetBusyPollUs, {}, "/proc/sys/net/core/busy_poll"},
    {TunableId::NetBusyReadUs, {}, "/proc/sys/net/core/busy_read"},
};

std::string nameOf(TunableId id)
{
    return std::string(info(id).name);
}

long long registryMax(TunableId id)
{
    return static_cast<long long>(info(id).max);
}

} // namespace

NapiSettings::NapiSettings(std::string ifname, unsigned ifindex, std::string journalDir)
    : ifname_(std::move(ifname)), ifindex_(ifindex), journalDir_(std::move(journalDir))
{
    // What napi-set takes here, from the family's own policy.
    std::vector<host::NapiAttrLimits> limits;
    std::string noNetlink;
    host::NetdevNetlink nl;
    if (Status st = host::NetdevNetlink::open(nl); !st.ok())
        noNetlink = st.error;
    else if (Status st2 = nl.settable(limits); !st2.ok())
        noNetlink = st2.error;
    for (const KnobWays &w : kWays) {
        Knob k;
        k.id = w.id;
        if (w.id == TunableId::NapiKthreadCpu) {
            // The kthreads are found at each change (netdev netlink, else by name); any CPU
            // this machine has.
            k.way = Way::Affinity;
            k.max = std::min<long long>(registryMax(w.id), ::sysconf(_SC_NPROCESSORS_CONF) - 1);
            knobs_.push_back(std::move(k));
            continue;
        }
        if (!w.sysctl.empty()) {
            if (::access(std::string(w.sysctl).c_str(), F_OK) == 0) {
                k.way = Way::Sysctl;
                k.attr = w.sysctl;
                k.max = registryMax(w.id);
            } else {
                k.why = "this kernel has no " + std::string(w.sysctl);
            }
            knobs_.push_back(std::move(k));
            continue;
        }
        const auto l = std::find_if(limits.begin(), limits.end(),
                                    [&](const auto &x) { return x.attr->name == w.napiAttr; });
        std::string path;
        const NapiKnob *file = findNapiKnob(w.id);
        if (l != limits.end()) {
            k.way = Way::Netlink;
            k.attr = w.napiAttr;
            k.max = static_cast<long long>(
                std::min<std::uint64_t>(l->max, static_cast<std::uint64_t>(registryMax(w.id))));
        } else if (file && ifname_.empty()) {
            // A listing before the interface exists (the kernel lab's veth): every netdev has
            // the sysfs files.
            k.way = Way::Sysfs;
            k.max = std::min(file->max, registryMax(w.id));
        } else if (file && napiKnobPath(ifname_, *file, path).ok() &&
                   ::access(path.c_str(), F_OK) == 0) {
            k.way = Way::Sysfs;
            k.attr = path;
            k.max = std::min(file->max, registryMax(w.id));
        } else {
            const std::string nlWhy = noNetlink.empty() ? "napi-set on this kernel does not take " +
                                                              std::string(w.napiAttr)
                                                        : noNetlink;
            k.why = nlWhy + (file ? " and " + ifname_ + " has no /sys/class/net/" + ifname_ + "/" +
                                        std::string(file->file)
                                  : " (and it has no sysfs file)");
        }
        knobs_.push_back(std::move(k));
    }
}

NapiSettings::~NapiSettings()
{
    (void)restore();
}

void NapiSettings::support(std::vector<TunableSupport> &out) const
{
    for (const Knob &k : knobs_)
        if (k.way == Way::None) out.push_back({k.id, Support::Unavailable, k.why});
}

Status NapiSettings::check(const ParamSet &ps) const
{
    for (const Knob &k : knobs_) {
        const std::int64_t v = ps.integer(k.id);
        if (v == -1) continue;
        if (k.way == Way::None)
            return Status{nameOf(k.id) + " = " + ps.text(k.id) + ": not on " + ifname_ +
                          " here: " + k.why + " (allowed: host, as the host has it)"};
        if (v > k.max)
            return Status{nameOf(k.id) + " = " + ps.text(k.id) +
                          (k.way == Way::Affinity ? ": this machine's CPUs are 0 to "
                                                  : ": this kernel takes 0 to ") +
                          std::to_string(k.max) + " for " + ifname_ +
                          " (or -1, as the host has it)"};
    }
    return Status::success();
}

Status NapiSettings::targets(const Knob &k, std::vector<std::string> &out) const
{
    out.clear();
    if (k.way == Way::Affinity) {
        // Every NAPI kthread of the netdev now: none without threaded NAPI.
        std::vector<pid_t> pids;
        host::NetdevNetlink nl;
        std::vector<host::NapiInstance> napis;
        if (host::NetdevNetlink::open(nl).ok() && nl.napis(ifindex_, napis).ok()) {
            for (const auto &n : napis)
                if (n.pid && *n.pid > 0) pids.push_back(*n.pid);
        } else {
            for (const auto &t : napiThreads(ifname_))
                pids.push_back(t.pid);
        }
        for (pid_t pid : pids) {
            std::string address;
            if (host::threadAffinityAddress(pid, address).ok()) out.push_back(address);
        }
        return Status::success();
    }
    if (k.way != Way::Netlink) {
        out.push_back(k.attr);
        return Status::success();
    }
    host::NetdevNetlink nl;
    std::vector<host::NapiInstance> napis;
    if (Status st = host::NetdevNetlink::open(nl); !st.ok()) return st;
    if (Status st = nl.napis(ifindex_, napis); !st.ok()) return st;
    if (napis.empty())
        return Status::refused(ifname_ + " has no NAPI now (a veth has one only with GRO on)");
    for (const auto &n : napis)
        out.push_back(host::napiSettingAddress(n.id, k.attr));
    return Status::success();
}

std::string NapiSettings::original(const std::string &path) const
{
    if (!journal_) return {};
    for (const auto &e : journal_->entries())
        if (e.path == path) return e.value;
    return {};
}

Status NapiSettings::write(const std::string &path, const std::string &value)
{
    if (!journal_)
        if (Status st = host::SettingsJournal::open(journalDir_, journal_); !st.ok())
            return st.within("cannot keep a journal of the host's settings: ");
    return journal_->write(path, value);
}

Status NapiSettings::apply(const ParamSet &ps)
{
    // What this call wrote, with the value before, to undo on a refusal.
    std::vector<std::pair<std::string, std::string>> written;
    std::vector<std::pair<Knob *, long long>> changed;
    // Puts back what this call wrote; what could not be is said.
    auto undo = [&] {
        std::string left;
        for (auto it = written.rbegin(); it != written.rend(); ++it)
            if (Status st = journal_->write(it->first, it->second); !st.ok())
                left += "; " + it->first + " could not be put back to " + it->second + " (" +
                        st.error + "); the journal keeps it for the end of the run";
        for (auto &[k, before] : changed)
            k->applied = before;
        return left;
    };
    for (Knob &k : knobs_) {
        const std::int64_t want = ps.integer(k.id);
        // A NAPI the netdev made since (channels changed, a reset) gets the value at the next
        // change: a per-NAPI knob's NAPIs are listed again at every apply.
        const bool perInstance = k.way == Way::Netlink || k.way == Way::Affinity;
        if (k.way == Way::None || (want == k.applied && (!perInstance || want == -1))) continue;
        std::vector<std::string> paths;
        Status st = targets(k, paths);
        for (std::size_t i = 0; st.ok() && i < paths.size(); ++i) {
            std::string before;
            if (st = host::SettingsJournal::read(paths[i], before); !st.ok()) break;
            // Back to the host's value, or the run's.
            const std::string value = want == -1 ? original(paths[i]) : std::to_string(want);
            if (value.empty() || value == before) continue;
            if (st = write(paths[i], value); !st.ok()) break;
            written.emplace_back(paths[i], before);
        }
        if (!st.ok()) {
            const std::string left = undo();
            const bool perm = st.error.find("ermission") != std::string::npos ||
                              st.error.find("not permitted") != std::string::npos;
            return Status{nameOf(k.id) + " = " + ps.text(k.id) + " on " + ifname_ + ": " +
                          st.error + (perm ? "; the host's settings need root" : "") + left};
        }
        changed.emplace_back(&k, k.applied);
        k.applied = want;
    }
    return Status::success();
}

Status NapiSettings::restore()
{
    for (Knob &k : knobs_)
        k.applied = -1;
    if (!journal_) return Status::success();
    Status st = journal_->restore();
    journal_.reset();
    return st;
}

std::string NapiSettings::describe(std::string &why) const
{
    host::NetdevNetlink nl;
    std::vector<host::NapiInstance> napis;
    if (Status st = host::NetdevNetlink::open(nl); !st.ok()) {
        why = st.error;
        return {};
    }
    if (Status st = nl.napis(ifindex_, napis); !st.ok()) {
        why = st.error;
        return {};
    }
    if (napis.empty()) {
        why = ifname_ + " has no NAPI (a veth has one only with GRO on)";
        return {};
    }
    auto opt = [](const auto &v, const char *unit = "") {
        return v ? std::to_string(*v) + unit : std::string("-");
    };
    std::string out;
    for (const auto &n : napis) {
        out += (out.empty() ? "" : "; ") + ("napi " + std::to_string(n.id)) + ": irq " +
               opt(n.irq) + ", kthread " + opt(n.pid) + ", threaded " + opt(n.threaded) +
               ", defer-hard-irqs " + opt(n.deferHardIrqs) + ", gro-flush-timeout " +
               opt(n.groFlushTimeoutNs, " ns") + ", irq-suspend-timeout " +
               opt(n.irqSuspendTimeoutNs, " ns");
    }
    return out;
}

} // namespace ringlab::kernel
