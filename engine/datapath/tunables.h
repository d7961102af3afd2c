// SPDX-License-Identifier: GPL-2.0-or-later
// The tunables registry: the one place that names, describes and validates every knob.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/common/status.h"

namespace ringlab {

enum class Type { Integer, Real, Choice, Flag };
enum class Apply { Live, Restart };

// Index of every tunable. Order matches the table in tunables.cpp.
enum class TunableId : std::uint16_t {
    LoadRatePps,
    LoadFrameBytes,
    LoadPattern,
    LoadBurstOnUs,
    LoadBurstOffUs,
    LinkMbps,
    ProbeRateHz,
    LoadSeed,
    RxRingSize,
    RxPoolBuffers,
    RxPoolMemory,
    RefillContext,
    RefillThreshold,
    RefillBatch,
    RefillRetryMs,
    PollMode,
    PollSleepMinUs,
    PollSleepMaxUs,
    PollTickHz,
    PollBudget,
    PollPasses,
    IrqUsecs,
    IrqFrames,
    IrqAdaptive,
    TxRingSize,
    TxCoalesceUsecs,
    TxCoalesceFrames,
    TxCoalesceAdaptive,
    TxTimerPolicy,
    TxFreeThresh,
    HandoffMode,
    HandoffQueueLen,
    HandoffBatch,
    HandoffWorkQueue,
    WorkqueueThreads,
    ProcNsPerPacket,
    ProcCopy,
    TxHeader,
    StressThreads,
    StressDutyPct,
    FwdMode,
    CostTimerArmNs,
    CostTxCleanNs,
    CostRefillBufferNs,
    CostDoorbellNs,
    CostHeaderFieldNs,
    ThreadsPollCpu,
    ThreadsCleanCpu,
    ThreadsRefillCpu,
    ThreadsWorkCpu,
    ThreadsSamplerCpu,
    ThreadsPollPolicy,
    ThreadsPollPriority,
    LatencySampleEvery,
    FwdDirectPass,
    SockBusyPollUs,
    SockPreferBusyPoll,
    SockBusyPollBudget,
    NapiThreaded,
    NapiDeferHardIrqs,
    NapiGroFlushTimeoutNs,
    NapiIrqSuspendTimeoutNs,
    NapiKthreadCpu,
    NapiKthreadPolicy,
    NapiKthreadPriority,
    NapiIrqCpu,
    NetBusyPollUs,
    NetBusyReadUs,
    EpollBusyPollUs,
    EpollBusyPollBudget,
    EpollPreferBusyPoll,
    NetdevGro,
    NetdevRxChannels,
    NetdevTxChannels,
    NetdevCombinedChannels,
    NetdevRxRing,
    NetdevTxRing,
    NetdevRxUsecs,
    NetdevRxFrames,
    NetdevTxUsecs,
    NetdevTxFrames,
    NetdevAdaptiveRx,
    Count
};
inline constexpr std::size_t kParamCount = static_cast<std::size_t>(TunableId::Count);

// Choice values, in the order of their names in the registry.
enum class LoadPattern { Constant, Poisson, Bursty };
enum class RefillContext { Inline, Workqueue, Thread };
enum class PollMode { Busy, Sleep, Tick, Interrupt, PmdPause };
enum class TimerPolicy { Rearm, SkipIfScheduled };
enum class HandoffMode { Direct, Fifo, Work };
enum class WorkQueueKind { Shared, Dedicated };
enum class HeaderMode { PerPacket, Precomputed, None };
enum class FwdMode { Io, Macswap, Txonly, Rxonly };
enum class PoolMemory { Thp, Eal, EalPaged };
enum class SchedPolicy { Other, Fifo };
// napi.kthread_policy: Host leaves the kthreads' policy as the host has it.
enum class KthreadPolicy { Host, Other, Fifo, Rr };

// The devices that apply a tunable: every device (the engine's datapath does it), or one
// family of devices only; the others ignore it (TunableInfo::elsewhere says why), without a
// word in their own support lists.
enum class DeviceFamily : std::uint8_t {
    Any,       // of a tunable: every device applies it
    Simulated, // devices the engine makes itself: the simulated NIC, and the tests' devices
    Dpdk,
    Kernel,
};

struct TunableInfo {
    TunableId id;
    std::string_view name;
    std::string_view group;
    Type type;
    std::string_view unit;
    double min;
    double max;
    double def;
    Apply apply;
    std::span<const std::string_view> choices;
    std::string_view help;
    bool power_of_two = false;
    std::span<const std::string_view> choiceHelp{}; // a phrase per choice (strategy tables)
    std::string_view minWord{}; // an integer's minimum spelled as a word ("any" for -1)
    // Whether it gives a stage between RX and TX work per frame (a processing cost, a copy, a
    // header to write, a clean's cost, adaptive coalescing), and the one value at which it gives
    // none: a device's direct pass forwards only while each such tunable holds it
    // (stagesPassFramesThrough). Empty: it never gives per-frame work.
    std::optional<std::int64_t> noFrameWorkAt{};
    // Applied only by this family of devices (the kernel groups are the kernel device's).
    DeviceFamily onlyOn = DeviceFamily::Any;
    std::string_view elsewhere{}; // why other devices ignore it
};

// Every tunable, in TunableId order.
std::span<const TunableInfo> tunables();
// The groups of the tunables that are the Linux kernel's own (sockets, NAPI, sysctls; the
// netdev's driver through ethtool): only the kernel device applies them.
inline constexpr std::string_view kKernelGroup = "Kernel NAPI";
inline constexpr std::string_view kKernelNetdevGroup = "Kernel netdev";
inline bool isKernelGroup(std::string_view group)
{
    return group == kKernelGroup || group == kKernelNetdevGroup;
}
const TunableInfo &info(TunableId p);
// The family of devices that applies it (TunableInfo::onlyOn; Kernel for the kernel groups),
// and why the others ignore it.
DeviceFamily appliedOnlyBy(const TunableInfo &t);
std::string_view ignoredElsewhereWhy(const TunableInfo &t);
// The tunables that can give a stage per-frame work (TunableInfo::noFrameWorkAt), in order.
std::span<const TunableInfo *const> frameWorkTunables();
const TunableInfo *findTunable(std::string_view name);
// The help, and for a choice its members' help: "How ... busy: never sleeps. sleep: ...".
std::string helpText(const TunableInfo &t);
// Human-readable list of allowed values: "1..4096 packets", "busy, sleep, tick, interrupt".
std::string allowedText(const TunableInfo &t);
std::string_view typeName(Type t);

// Integer, choice index and flag as int64; reals as double.
struct Value {
    std::int64_t i = 0;
    double r = 0.0;
    friend bool operator==(const Value &, const Value &) = default;
};

// "unknown tunable \"X\" (did you mean Y?)", the one message for a name not in the registry.
Status unknownTunable(std::string_view name);

using Assignments = std::vector<std::pair<std::string, std::string>>;

struct Change {
    TunableId id;
    Value before;
    Value after;
};

// A complete, valid set of values for every tunable.
class ParamSet {
  public:
    ParamSet(); // the registry defaults

    std::int64_t integer(TunableId p) const { return values_[idx(p)].i; }
    double real(TunableId p) const { return values_[idx(p)].r; }
    bool flag(TunableId p) const { return values_[idx(p)].i != 0; }
    template <class E> E choice(TunableId p) const { return static_cast<E>(values_[idx(p)].i); }
    Value value(TunableId p) const { return values_[idx(p)]; }
    std::string text(TunableId p) const;

    // Parses and validates one text value; nothing changes on error.
    static Status parse(const TunableInfo &t, std::string_view text, Value &out);
    // Sets several values at once: every value is checked, then cross-field rules on the
    // result. All or nothing. `changes` receives what actually changed.
    Status set(const Assignments &assignments, std::vector<Change> *changes = nullptr);
    Status set(std::string_view name, std::string_view text,
               std::vector<Change> *changes = nullptr);
    // Sets a parsed value (still subject to the cross-field rules).
    Status setValue(TunableId p, Value v);

    static std::string format(const TunableInfo &t, Value v);

  private:
    static std::size_t idx(TunableId p) { return static_cast<std::size_t>(p); }
    Status checkCrossRules() const;
    std::array<Value, kParamCount> values_{};
};

} // namespace ringlab
