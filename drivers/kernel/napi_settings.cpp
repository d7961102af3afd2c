// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/kernel/napi_settings.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "drivers/host/ethtool_netlink.h"
#include "drivers/host/netdev_napi.h"
#include "drivers/host/thread_sched.h"
#include "drivers/kernel/napi_sysfs.h"

namespace ringlab::kernel {

namespace {

// Each knob: the netdev's driver setting (ethtool netlink); its netdev netlink attribute (per
// NAPI) and, failing that, its sysfs file; each NAPI kthread's scheduling or the netdev's
// IRQs; or a host-wide sysctl. The driver's settings come first: GRO and channels make and
// remove NAPIs, which the per-NAPI knobs then find.
struct KnobWays {
    TunableId id;
    std::string_view napiAttr;
    std::string_view sysctl;
    std::string_view ethtool = {};
    // What a veth lacks, for the kernel lab's listing before its veth exists.
    std::string_view vethLacks = {};
};
constexpr KnobWays kWays[] = {
    {TunableId::NetdevGro, {}, {}, "gro"},
    {TunableId::NetdevRxChannels, {}, {}, "rx-channels"},
    {TunableId::NetdevTxChannels, {}, {}, "tx-channels"},
    {TunableId::NetdevCombinedChannels,
     {},
     {},
     "combined-channels",
     "a veth has no combined channels (ethtool -L combined), only rx and tx"},
    {TunableId::NetdevRxRing, {}, {}, "rx-ring", "a veth has no rings (ethtool -G)"},
    {TunableId::NetdevTxRing, {}, {}, "tx-ring", "a veth has no rings (ethtool -G)"},
    {TunableId::NetdevRxUsecs,
     {},
     {},
     "rx-usecs",
     "a veth has no interrupt coalescing (ethtool -C)"},
    {TunableId::NetdevRxFrames,
     {},
     {},
     "rx-frames",
     "a veth has no interrupt coalescing (ethtool -C)"},
    {TunableId::NetdevTxUsecs,
     {},
     {},
     "tx-usecs",
     "a veth has no interrupt coalescing (ethtool -C)"},
    {TunableId::NetdevTxFrames,
     {},
     {},
     "tx-frames",
     "a veth has no interrupt coalescing (ethtool -C)"},
    {TunableId::NetdevAdaptiveRx,
     {},
     {},
     "adaptive-rx",
     "a veth has no interrupt coalescing (ethtool -C)"},
    {TunableId::NapiThreaded, "threaded", {}},
    {TunableId::NapiDeferHardIrqs, "defer-hard-irqs", {}},
    {TunableId::NapiGroFlushTimeoutNs, "gro-flush-timeout", {}},
    {TunableId::NapiIrqSuspendTimeoutNs, "irq-suspend-timeout", {}},
    {TunableId::NapiKthreadCpu, {}, {}},    // each NAPI kthread's affinity
    {TunableId::NapiKthreadPolicy, {}, {}}, // and policy, with napi.kthread_priority
    {TunableId::NapiIrqCpu, {}, {}, {}, "a veth has no interrupts"},
    {TunableId::NetBusyPollUs, {}, "/proc/sys/net/core/busy_poll"},
    {TunableId::NetBusyReadUs, {}, "/proc/sys/net/core/busy_read"},
};

// The IRQs of a netdev: those its NAPIs report, else its device's MSI vectors.
std::vector<unsigned> netdevIrqs(const std::string &ifname, unsigned ifindex)
{
    std::vector<unsigned> irqs;
    host::NetdevNetlink nl;
    std::vector<host::NapiInstance> napis;
    if (host::NetdevNetlink::open(nl).ok() && nl.napis(ifindex, napis).ok())
        for (const auto &n : napis)
            if (n.irq && std::find(irqs.begin(), irqs.end(), *n.irq) == irqs.end())
                irqs.push_back(*n.irq);
    if (!irqs.empty() || ifname.empty()) return irqs;
    std::error_code ec;
    for (const auto &e :
         std::filesystem::directory_iterator("/sys/class/net/" + ifname + "/device/msi_irqs", ec)) {
        unsigned irq = 0;
        const std::string name = e.path().filename().string();
        const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), irq);
        if (err == std::errc{} && end == name.data() + name.size()) irqs.push_back(irq);
    }
    std::sort(irqs.begin(), irqs.end());
    return irqs;
}

// The pids of the netdev's NAPI kthreads now: none without threaded NAPI.
std::vector<pid_t> kthreadPids(const std::string &ifname, unsigned ifindex)
{
    std::vector<pid_t> pids;
    host::NetdevNetlink nl;
    std::vector<host::NapiInstance> napis;
    if (host::NetdevNetlink::open(nl).ok() && nl.napis(ifindex, napis).ok()) {
        for (const auto &n : napis)
            if (n.pid && *n.pid > 0) pids.push_back(*n.pid);
    } else {
        for (const auto &t : napiThreads(ifname))
            pids.push_back(t.pid);
    }
    return pids;
}

// napi.kthread_policy and its priority as one value: -1 for host, else policy * 100 +
// priority, and its text for the thread ("fifo 50").
long long policyWanted(const ParamSet &ps)
{
    const auto p = ps.choice<KthreadPolicy>(TunableId::NapiKthreadPolicy);
    if (p == KthreadPolicy::Host) return -1;
    const bool realtime = p == KthreadPolicy::Fifo || p == KthreadPolicy::Rr;
    return static_cast<long long>(p) * 100 +
           (realtime ? ps.integer(TunableId::NapiKthreadPriority) : 0);
}

std::string policyText(long long want)
{
    const auto p = static_cast<KthreadPolicy>(want / 100);
    const char *name = p == KthreadPolicy::Fifo ? "fifo" : p == KthreadPolicy::Rr ? "rr" : "other";
    return std::string(name) + " " + std::to_string(want % 100);
}

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
    // What the netdev's driver reports through ethtool netlink.
    std::vector<host::EthtoolValue> driver;
    std::vector<host::EthtoolNetlink::Lack> driverLacks;
    std::string noEthtool;
    host::EthtoolNetlink et;
    if (!ifname_.empty()) {
        if (Status st = host::EthtoolNetlink::open(et); !st.ok())
            noEthtool = st.error;
        else if (Status st2 = et.read(ifindex_, driver, &driverLacks); !st2.ok())
            noEthtool = st2.error;
    }
    const long long lastCpu = ::sysconf(_SC_NPROCESSORS_CONF) - 1;
    for (const KnobWays &w : kWays) {
        Knob k;
        k.id = w.id;
        if (ifname_.empty() && !w.vethLacks.empty()) {
            k.why = std::string(w.vethLacks);
            knobs_.push_back(std::move(k));
            continue;
        }
        if (!w.ethtool.empty()) {
            k.attr = w.ethtool;
            const auto v = std::find_if(driver.begin(), driver.end(),
                                        [&](const auto &x) { return x.attr->name == w.ethtool; });
            if (ifname_.empty() || v != driver.end()) {
                k.way = Way::Ethtool;
                k.max = registryMax(w.id);
                if (v != driver.end() && v->max)
                    k.max = std::min<long long>(k.max, static_cast<long long>(*v->max));
                const auto *a = host::findEthtoolAttr(w.ethtool);
                k.min = a && a->maxAttr ? 1 : 0; // a channel or ring count
            } else {
                const auto *a = host::findEthtoolAttr(w.ethtool);
                std::string lacks;
                for (const auto &l : driverLacks)
                    if (a && l.msg == a->msg) lacks = l.why;
                k.why = !noEthtool.empty()
                            ? noEthtool
                            : ifname_ + "'s driver" + " does not take ethtool " +
                                  std::string(a ? a->ethtool : w.ethtool) +
                                  (lacks.empty() ? "" : " (the kernel: " + lacks + ")");
            }
            knobs_.push_back(std::move(k));
            continue;
        }
        if (w.id == TunableId::NapiKthreadPolicy) {
            k.way = Way::Policy;
            k.max = registryMax(w.id);
            knobs_.push_back(std::move(k));
            continue;
        }
        if (w.id == TunableId::NapiIrqCpu) {
            if (netdevIrqs(ifname_, ifindex_).empty()) {
                k.why = ifname_ + " has no interrupts of its own: no NAPI of it reports an IRQ "
                                  "and it has no MSI vectors";
            } else {
                k.way = Way::IrqAffinity;
                k.max = std::min<long long>(registryMax(w.id), lastCpu);
            }
            knobs_.push_back(std::move(k));
            continue;
        }
        if (w.id == TunableId::NapiKthreadCpu) {
            // The kthreads are found at each change (netdev netlink, else by name); any CPU
            // this machine has.
            k.way = Way::Affinity;
            k.max = std::min<long long>(registryMax(w.id), lastCpu);
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
    const std::string on = ifname_.empty() ? "the kernel lab's veth" : ifname_;
    for (const Knob &k : knobs_) {
        const long long v = wanted(k, ps);
        if (v == -1) continue;
        if (k.way == Way::None)
            return Status{nameOf(k.id) + " = " + ps.text(k.id) + ": not on " + on +
                          " here: " + k.why + " (allowed: host, as the host has it)"};
        if (k.way == Way::Policy) continue; // the registry bounds policy and priority
        if (v < k.min || v > k.max)
            return Status{nameOf(k.id) + " = " + ps.text(k.id) +
                          (k.way == Way::Affinity || k.way == Way::IrqAffinity
                               ? ": this machine's CPUs are "
                           : k.way == Way::Ethtool ? ": the driver takes "
                                                   : ": this kernel takes ") +
                          std::to_string(k.min) + " to " + std::to_string(k.max) + " for " + on +
                          " (or -1, as the host has it)"};
    }
    return Status::success();
}

long long NapiSettings::wanted(const Knob &k, const ParamSet &ps)
{
    return k.way == Way::Policy ? policyWanted(ps) : ps.integer(k.id);
}

Status NapiSettings::targets(const Knob &k, std::vector<std::string> &out) const
{
    out.clear();
    if (k.way == Way::Affinity || k.way == Way::Policy) {
        // Every NAPI kthread of the netdev now: none without threaded NAPI.
        for (pid_t pid : kthreadPids(ifname_, ifindex_)) {
            std::string address;
            const Status st = k.way == Way::Affinity ? host::threadAffinityAddress(pid, address)
                                                     : host::threadPolicyAddress(pid, address);
            if (st.ok()) out.push_back(address);
        }
        return Status::success();
    }
    if (k.way == Way::IrqAffinity) {
        for (unsigned irq : netdevIrqs(ifname_, ifindex_))
            out.push_back("/proc/irq/" + std::to_string(irq) + "/smp_affinity_list");
        return Status::success();
    }
    if (k.way == Way::Ethtool) {
        out.push_back(host::ethtoolSettingAddress(ifname_, ifindex_, k.attr));
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
        const long long want = wanted(k, ps);
        // A NAPI the netdev made since (channels changed, a reset) gets the value at the next
        // change: a per-NAPI knob's NAPIs are listed again at every apply.
        const bool perInstance = k.way == Way::Netlink || k.way == Way::Affinity ||
                                 k.way == Way::Policy || k.way == Way::IrqAffinity;
        if (k.way == Way::None || (want == k.applied && (!perInstance || want == -1))) continue;
        std::vector<std::string> paths;
        Status st = targets(k, paths);
        for (std::size_t i = 0; st.ok() && i < paths.size(); ++i) {
            std::string before;
            if (st = host::SettingsJournal::read(paths[i], before); !st.ok()) break;
            // Back to the host's value, or the run's.
            const std::string value = want == -1             ? original(paths[i])
                                      : k.way == Way::Policy ? policyText(want)
                                                             : std::to_string(want);
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
    // Without ids and pids, which every run has its own of: two sessions' NAPIs compare by
    // their settings.
    std::string out;
    for (std::size_t k = 0; k < napis.size(); ++k) {
        const auto &n = napis[k];
        out += (out.empty() ? "" : "; ") + ("napi " + std::to_string(k + 1)) + ": irq " +
               opt(n.irq) + ", kthread " + (n.pid && *n.pid > 0 ? "yes" : "-") + ", threaded " +
               opt(n.threaded) + ", defer-hard-irqs " + opt(n.deferHardIrqs) +
               ", gro-flush-timeout " + opt(n.groFlushTimeoutNs, " ns") + ", irq-suspend-timeout " +
               opt(n.irqSuspendTimeoutNs, " ns");
    }
    return out;
}

} // namespace ringlab::kernel
