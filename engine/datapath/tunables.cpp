// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/tunables.h"

#include "engine/datapath/handoff.h"
#include "engine/datapath/poll_loop.h"
#include "engine/datapath/refill.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ringlab {
namespace {

constexpr std::string_view kPatterns[] = {"constant", "poisson", "bursty"};
// The strategy families' values and help come from their tables (engine/strategy.h).
constexpr auto kRefillNames = namesOf(kRefillContexts);
constexpr auto kRefillHelp = helpsOf(kRefillContexts);
constexpr auto kPollNames = namesOf(kPollModes);
constexpr auto kPollHelp = helpsOf(kPollModes);
constexpr auto kHandoffNames = namesOf(kHandoffModes);
constexpr auto kHandoffHelp = helpsOf(kHandoffModes);
// fwd.mode's values, in FwdMode's order; the DPDK device forwards by them.
constexpr Strategy<> kFwdModes[] = {
    {"io", "port A to port B and B to A, frames unchanged (one port: back out of the same port)"},
    {"macswap", "back out of the receiving port with source and destination MAC swapped"},
    {"txonly",
     "the engine generates load.* traffic on every port, rate-paced, and drops what it receives"},
    {"rxonly", "receive and drop"},
};
constexpr auto kFwdNames = namesOf(kFwdModes);
constexpr auto kFwdHelp = helpsOf(kFwdModes);
// rx.pool_memory's values, in PoolMemory's order; the DPDK device builds its mbuf pool by them.
constexpr Strategy<> kPoolMemories[] = {
    {"thp", "anonymous memory advised for 2 MB transparent huge pages (madvise), mbufs packed "
            "back to back: a burst's frames share a few TLB entries"},
    {"eal", "the EAL's memory (4 KB pages without hugepages), mbufs packed back to back across "
            "its pages (RTE_MEMPOOL_F_NO_IOVA_CONTIG): 1.6 to a page, each at its own offset"},
    {"eal_paged", "the EAL's memory in DPDK's default layout, each mbuf within a page of its "
                  "own (IO-contiguous), as dpdk-testpmd has it by default with --no-huge: every "
                  "frame's lines fall in the same first-level cache sets"},
};
constexpr auto kPoolMemoryNames = namesOf(kPoolMemories);
constexpr auto kPoolMemoryHelp = helpsOf(kPoolMemories);
static_assert(kPoolMemoryNames[static_cast<int>(PoolMemory::EalPaged)] == "eal_paged" &&
                  kPoolMemoryNames.size() == static_cast<std::size_t>(PoolMemory::EalPaged) + 1,
              "kPoolMemories follows PoolMemory");
static_assert(kPollNames[static_cast<int>(PollMode::PmdPause)] == "pmd_pause" &&
                  kPollNames.size() == static_cast<std::size_t>(PollMode::PmdPause) + 1,
              "kPollModes follows PollMode");
static_assert(kFwdNames[static_cast<int>(FwdMode::Rxonly)] == "rxonly" &&
                  kFwdNames.size() == static_cast<std::size_t>(FwdMode::Rxonly) + 1,
              "kFwdModes follows FwdMode");
constexpr double lastOf(std::size_t n)
{
    return static_cast<double>(n - 1);
}
constexpr std::string_view kTimerPolicies[] = {"rearm", "skip_if_scheduled"};
constexpr std::string_view kWorkQueues[] = {"shared", "dedicated"};
constexpr std::string_view kHeaderModes[] = {"per_packet", "precomputed", "none"};
constexpr std::string_view kSchedPolicies[] = {"other", "fifo"};
constexpr std::string_view kKthreadPolicies[] = {"host", "other", "fifo", "rr"};
constexpr std::string_view kKthreadPolicyHelp[] = {
    "as the host has it", "the normal time-sharing policy (SCHED_OTHER)",
    "real time, first in first out, at napi.kthread_priority (SCHED_FIFO)",
    "real time, round robin between threads of the same priority (SCHED_RR)"};

using T = Type;
constexpr auto L = Apply::Live;
constexpr auto R = Apply::Restart;
constexpr std::span<const std::string_view> none{};

// clang-format off
const TunableInfo kTable[] = {
    {TunableId::LoadRatePps, "load.rate_pps", "Load", T::Integer, "pps", 0, 100e6, 100000, L, none,
     "Offered load of the simulated NIC in frames per second, before the link cap. The device "
     "generates arrivals at this mean rate; an arrival that finds no posted RX buffer is dropped "
     "as rx_missed, as real hardware does."},
    {TunableId::LoadFrameBytes, "load.frame_bytes", "Load", T::Integer, "bytes", 64, 9018, 256, L, none,
     "Size of each generated frame including the FCS. Wire time adds 20 bytes of preamble and "
     "inter-frame gap, so 64-byte frames at 10 Gbit/s are 14.88 Mpps."},
    {TunableId::LoadPattern, "load.pattern", "Load", T::Choice, "", 0, 2, 1, L, kPatterns,
     "How arrivals are spaced: constant (evenly), poisson (exponential gaps, like many "
     "independent senders) or bursty (load.rate_pps during load.burst_on_us, then silence for "
     "load.burst_off_us)."},
    {TunableId::LoadBurstOnUs, "load.burst_on_us", "Load", T::Integer, "us", 1, 10e6, 1000, L, none,
     "Length of a burst when load.pattern is bursty. Frames arrive at load.rate_pps during "
     "the burst."},
    {TunableId::LoadBurstOffUs, "load.burst_off_us", "Load", T::Integer, "us", 0, 10e6, 9000, L, none,
     "Silence between bursts when load.pattern is bursty."},
    {TunableId::LinkMbps, "link.mbps", "Load", T::Integer, "Mbit/s", 10, 400000, 10000, L, none,
     "Line rate of the simulated link. It caps the offered load and sets the wire time after "
     "which a transmitted frame completes."},
    {TunableId::ProbeRateHz, "probe.rate_hz", "Load", T::Integer, "Hz", 0, 100000, 10, L, none,
     "Probe frames per second, on top of the load. Each probe goes through the whole pipeline "
     "and its round trip (arrival to transmit completion on the wire) is measured, as ping "
     "measured the KNI thread. 0 turns probes off."},
    {TunableId::LoadSeed, "load.seed", "Load", T::Integer, "", 0, 2147483647, 1, R, none,
     "Seed of the simulated NIC's random arrival gaps (load.pattern poisson) and probe timing. "
     "One profile with one seed offers the same arrival sequence in every run, so a difference "
     "between two runs is the host's; vary it to see how much the traffic itself varies."},
    {TunableId::RxRingSize, "rx.ring_size", "RX refill", T::Integer, "descriptors", 64, 32768, 1024, R, none,
     "Number of RX descriptors. A power of two. Changing it quiesces the datapath, rebuilds the "
     "rings and resumes.", true},
    // At most 262144: the RX ring, the hand-off queue and the TX ring at their largest hold
    // 131072 buffers, so a larger pool never has more in use; its free list is a FIFO, so
    // every buffer is still cycled through and keeps a page resident, faulted in at start
    // (1048576 buffers: 4.3 GB and 16-30 s of page faults before a 1 s run).
    {TunableId::RxPoolBuffers, "rx.pool_buffers", "RX refill", T::Integer, "buffers", 64, 262144, 4096, R, none,
     "Buffers preallocated in the pool that RX refill draws from. Buffers are held by the RX "
     "ring, the hand-off, and the TX ring until TX completion is cleaned; a pool smaller than "
     "what is in flight makes allocations fail (counted as alloc_fail). At most 262144, twice "
     "what the largest rings and hand-off queue can hold: each buffer keeps a 4 KiB page "
     "resident, prepared before the run starts."},
    {TunableId::RxPoolMemory, "rx.pool_memory", "RX refill", T::Choice, "", 0, lastOf(kPoolMemoryNames.size()), 0, R, kPoolMemoryNames,
     "Where a DPDK port's mbuf pool lives when the EAL runs without hugepages (--no-huge, "
     "the default). A new pool. With hugepages the pool is the EAL's; a port whose device may "
     "read mbufs by IO address (a PCI NIC, or a PMD that does not copy frames: the device's "
     "notes name those that do) gets eal_paged. The simulated NIC's buffers are its own.", false, kPoolMemoryHelp, {}, {},
     DeviceFamily::Dpdk, "its buffers are the engine's own, not DPDK mbufs"},
    {TunableId::RefillContext, "refill.context", "RX refill", T::Choice, "", 0, lastOf(kRefillNames.size()), 0, R, kRefillNames,
     "Who puts fresh buffers back into the RX ring.", false, kRefillHelp},
    {TunableId::RefillThreshold, "refill.threshold", "RX refill", T::Integer, "descriptors", 1, 32767, 256, L, none,
     "Refill is triggered when this many RX descriptors are free (not posted). mhi_net used "
     "ring_size/2 with the work queue and ring_size/3 with the thread. Must be less than "
     "rx.ring_size."},
    {TunableId::RefillBatch, "refill.batch", "RX refill", T::Integer, "buffers", 1, 1024, 32, L, none,
     "Buffers allocated and posted per step. The tail (doorbell) is written once per step; the "
     "refill thread yields the CPU between steps."},
    {TunableId::RefillRetryMs, "refill.retry_ms", "RX refill", T::Integer, "ms", 1, 10000, 10, L, none,
     "After a buffer allocation fails, refill tries again after this delay (mhi_net waits "
     "250 ms)."},
    {TunableId::PollMode, "poll.mode", "Polling", T::Choice, "", 0, lastOf(kPollNames.size()), 1, L, kPollNames,
     "How the poll thread waits between polls.", false, kPollHelp},
    {TunableId::PollSleepMinUs, "poll.sleep_min_us", "Polling", T::Integer, "us", 1, 1000000, 100, L, none,
     "Minimum sleep between polls (sleep and tick modes). Must not exceed poll.sleep_max_us."},
    {TunableId::PollSleepMaxUs, "poll.sleep_max_us", "Polling", T::Integer, "us", 1, 1000000, 200, L, none,
     "Maximum sleep between polls in sleep mode: the kernel may end the sleep anywhere in "
     "[min, max] to batch wakeups (timer slack). The KNI case settled on 100..200 us."},
    {TunableId::PollTickHz, "poll.tick_hz", "Polling", T::Integer, "Hz", 10, 10000, 250, L, none,
     "Tick rate of the tick grid in tick mode (CONFIG_HZ). A sleep request is rounded up to "
     "whole ticks and ends on a tick boundary, so at 250 Hz a 5 us request sleeps up to 4 ms."},
    {TunableId::PollBudget, "poll.budget", "Polling", T::Integer, "packets", 1, 4096, 64, L, none,
     "Most packets harvested per poll round (the NAPI weight). A round that fills its budget "
     "polls again at once instead of sleeping or re-enabling the interrupt."},
    {TunableId::PollPasses, "poll.passes", "Polling", T::Integer, "passes", 1, 100000, 1, L, none,
     "Harvest passes per wakeup in sleep and tick modes: the poll thread polls this many times "
     "before it sleeps again, whether or not the passes found packets. KNI's kthread makes "
     "KNI_RX_LOOP_NUM (1000) passes per wakeup; NAPI-style loops make 1."},
    {TunableId::IrqUsecs, "irq.usecs", "Polling", T::Integer, "us", 0, 100000, 50, L, none,
     "Interrupt moderation delay (rx-usecs): in interrupt mode the device raises its interrupt "
     "this long after the first frame that arrived with interrupts enabled, or earlier when "
     "irq.frames have arrived."},
    {TunableId::IrqFrames, "irq.frames", "Polling", T::Integer, "frames", 1, 4096, 32, L, none,
     "Interrupt moderation frame count (rx-frames): the interrupt is raised once this many "
     "frames have arrived, even before irq.usecs."},
    {TunableId::IrqAdaptive, "irq.adaptive", "Polling", T::Flag, "", 0, 1, 0, L, none,
     "Adaptive RX moderation (ethtool adaptive-rx): in interrupt mode the kernel's net_dim "
     "algorithm replaces irq.usecs/irq.frames, stepping through its five profiles (2 us/256 "
     "frames .. 64 us/64 frames) every 64 interrupts by whether bytes, packets and interrupts "
     "per ms improved. rx_moderation_us shows the profile in force."},
    {TunableId::TxRingSize, "tx.ring_size", "TX coalescing", T::Integer, "descriptors", 64, 32768, 1024, R, none,
     "Number of TX descriptors. A power of two. A transmit that finds the ring full is dropped "
     "(tx_full).", true},
    {TunableId::TxCoalesceUsecs, "tx.coalesce_usecs", "TX coalescing", T::Integer, "us", 1, 100000, 1000, L, none,
     "The TX coalesce timer: completions of transmitted frames are cleaned at the latest this "
     "long after the timer is armed. stmmac used 1 ms and moved to 5 ms."},
    {TunableId::TxCoalesceFrames, "tx.coalesce_frames", "TX coalescing", T::Integer, "frames", 1, 4096, 25, L, none,
     "Clean TX completions as soon as this many frames are pending, without waiting for the "
     "timer (stmmac: 25). Must be less than tx.ring_size."},
    {TunableId::TxCoalesceAdaptive, "tx.coalesce_adaptive", "TX coalescing", T::Flag, "", 0, 1, 0, L, none,
     "Adaptive TX coalescing (ethtool adaptive-tx): net_dim over the TX cleans replaces "
     "tx.coalesce_usecs/tx.coalesce_frames with its TX profiles (5 us/128 frames .. 64 us/32 "
     "frames). tx_coalesce_us shows the profile in force.", false, {}, {}, 0},
    {TunableId::TxTimerPolicy, "tx.timer_policy", "TX coalescing", T::Choice, "", 0, 1, 1, L, kTimerPolicies,
     "When the coalesce timer is armed. rearm: on every transmit (stmmac before the fix; each "
     "arm is a timer syscall). skip_if_scheduled: only when a TX clean is not already "
     "scheduled, cancelling the timer otherwise (the stmmac fix)."},
    {TunableId::TxFreeThresh, "tx.free_thresh", "TX coalescing", T::Integer, "descriptors", 0, 32767, 32, L, none,
     "When fewer TX descriptors than this are free at transmit, the transmit path reclaims "
     "completed ones itself before posting, as DPDK PMDs do (tx_free_thresh), instead of "
     "dropping frames while the TX clean context is late. 0 leaves all cleaning to the "
     "coalesce timer and tx.coalesce_frames. Must be less than tx.ring_size."},
    {TunableId::HandoffMode, "handoff.mode", "Hand-off", T::Choice, "", 0, lastOf(kHandoffNames.size()), 0, R, kHandoffNames,
     "How harvested packets reach processing.", false, kHandoffHelp},
    {TunableId::HandoffQueueLen, "handoff.queue_len", "Hand-off", T::Integer, "packets", 16, 65536, 1024, R, none,
     "Packets that may wait between RX and processing in fifo and work modes; beyond it "
     "packets are dropped (handoff_full)."},
    {TunableId::HandoffBatch, "handoff.batch", "Hand-off", T::Integer, "packets", 1, 1024, 32, L, none,
     "Packets the fifo thread takes out of the queue at a time. Zephyr's RX thread takes one "
     "net_pkt per k_fifo_get (1); larger batches amortise the hand-off."},
    {TunableId::HandoffWorkQueue, "handoff.work_queue", "Hand-off", T::Choice, "", 0, 1, 0, R, kWorkQueues,
     "Which work queue runs per-packet work in work mode. shared: the shared queue with its "
     "workqueue.threads workers (kworker). dedicated: a queue of its own with one thread "
     "(rx_q), as Zephyr's per-traffic-class RX queue."},
    {TunableId::WorkqueueThreads, "workqueue.threads", "Hand-off", T::Integer, "threads", 1, 16, 1, R, none,
     "Worker threads (kworker/N) of the shared work queue that runs refill work, per-packet "
     "work and housekeeping. With more than one worker, per-packet work can complete out of "
     "order."},
    {TunableId::ProcNsPerPacket, "proc.ns_per_packet", "Processing", T::Integer, "ns", 0, 1000000, 200, L, none,
     "Calibrated CPU work done on every packet by the processing stage (the protocol stack).", false, {}, {}, 0},
    {TunableId::ProcCopy, "proc.copy", "Processing", T::Flag, "", 0, 1, 0, L, none,
     "Copy each payload into an application buffer, as copy_to_user does.", false, {}, {}, 0},
    {TunableId::TxHeader, "tx.header", "Processing", T::Choice, "", 0, 2, 1, L, kHeaderModes,
     "How the injection header of each transmitted frame is made. per_packet: built field by "
     "field with bit packing (ocelot before the fix). precomputed: copied from a prepared "
     "template with the per-packet fields patched (ocelot after). none: no header, as a plain "
     "NIC. The header is written ahead of the frame, which leaves unchanged.", false, {}, {}, static_cast<std::int64_t>(HeaderMode::None)},
    {TunableId::StressThreads, "stress.threads", "Interference", T::Integer, "threads", 0, 64, 0, L, none,
     "Threads competing for the CPU, each busy for stress.duty_pct of every millisecond, to "
     "see how a mechanism holds up under concurrent load."},
    {TunableId::StressDutyPct, "stress.duty_pct", "Interference", T::Real, "%", 0, 100, 50, L, none,
     "Share of each millisecond a stress thread spends busy."},
    {TunableId::FwdMode, "fwd.mode", "Forwarding", T::Choice, "", 0, lastOf(kFwdNames.size()), 0, L, kFwdNames,
     "Where a DPDK device sends what it receives, as testpmd's forwarding engines. The "
     "simulated NIC always reflects.", false, kFwdHelp},
    {TunableId::CostTimerArmNs, "cost.timer_arm_ns", "Target model", T::Integer, "ns", 0, 1000000, 0, L, none,
     "Target CPU cost of one coalesce timer arm (hrtimer_start), spent on top of this host's "
     "own timer system call. Models a slower target: see docs/experiments.md for the stmmac "
     "figure. 0: this host's cost only."},
    {TunableId::CostTxCleanNs, "cost.tx_clean_ns", "Target model", T::Integer, "ns", 0, 1000000, 0, L, none,
     "Target CPU cost of cleaning one transmitted frame in the TX clean (DMA unmap and free), "
     "spent in the clean context while it holds the clean scheduled.", false, {}, {}, 0},
    {TunableId::CostRefillBufferNs, "cost.refill_buffer_ns", "Target model", T::Integer, "ns", 0, 1000000, 0, L, none,
     "Target CPU cost of preparing one RX buffer in the refill context (mhi_net: allocate an "
     "skb and map it), spent on top of the engine's own descriptor fill."},
    {TunableId::CostDoorbellNs, "cost.doorbell_ns", "Target model", T::Integer, "ns", 0, 1000000, 0, L, none,
     "Target CPU cost of one doorbell write, charged per buffer queued to the device (mhi_queue "
     "rings the doorbell for every buffer)."},
    {TunableId::CostHeaderFieldNs, "cost.header_field_ns", "Target model", T::Integer, "ns", 0, 1000000, 0, L, none,
     "Target CPU cost of packing one injection header field (lib/packing on the target CPU), "
     "spent per field packed: 8 per frame per_packet, 1 precomputed, 0 none."},
    // CPUs: -1 is "any", the set this process was started with; at most CPU_SETSIZE - 1.
    {TunableId::ThreadsPollCpu, "threads.poll_cpu", "Threads", T::Integer, "", -1, 1023, -1, L, none,
     "The CPU the poll thread runs on (its affinity), or any: wherever the scheduler puts it, "
     "among the CPUs this process may use. A DPDK device's poll thread takes its lcore's CPU "
     "from it. Applied at start and live; a CPU that is offline or outside the process's "
     "allowed set is refused.", false, {}, "any"},
    {TunableId::ThreadsCleanCpu, "threads.clean_cpu", "Threads", T::Integer, "", -1, 1023, -1, L, none,
     "The CPU the TX clean thread (txclean) runs on, or any. On the poll thread's CPU the "
     "clean's wakeups preempt the poll loop; on another they cost a cross-CPU wakeup.",
     false, {}, "any"},
    {TunableId::ThreadsRefillCpu, "threads.refill_cpu", "Threads", T::Integer, "", -1, 1023, -1, L, none,
     "The CPU the refill thread runs on (refill.context thread), or any.", false, {}, "any"},
    {TunableId::ThreadsWorkCpu, "threads.work_cpu", "Threads", T::Integer, "", -1, 1023, -1, L, none,
     "The CPU the hand-off and work queue threads run on (rx-fifo, rx_q, kworker), or any.",
     false, {}, "any"},
    {TunableId::ThreadsSamplerCpu, "threads.sampler_cpu", "Threads", T::Integer, "", -1, 1023, -1, L, none,
     "The CPU the sampler runs on, or any. Away from the poll thread's CPU it never preempts "
     "the datapath it measures.", false, {}, "any"},
    {TunableId::ThreadsPollPolicy, "threads.poll_policy", "Threads", T::Choice, "", 0, 1, 0, L, kSchedPolicies,
     "The poll thread's scheduling policy. other: the normal time-shared class (SCHED_OTHER). "
     "fifo: real-time first-in first-out at threads.poll_priority, never preempted by "
     "normal threads; needs CAP_SYS_NICE or an RLIMIT_RTPRIO at least that priority. A busy "
     "fifo poll thread owns its CPU: pin it (threads.poll_cpu) away from the others."},
    {TunableId::ThreadsPollPriority, "threads.poll_priority", "Threads", T::Integer, "", 1, 99, 50, L, none,
     "The real-time priority of the poll thread when threads.poll_policy is fifo (1..99, higher "
     "runs first)."},
    {TunableId::LatencySampleEvery, "latency.sample_every", "Measurement", T::Integer, "frames", 1, 1024, 1, L, none,
     "Latency and the per-stage spans are measured on one load frame in this many (as DPDK's "
     "latencystats samples), so that measuring costs less than what is measured; probes are "
     "always measured. 1: every frame, exact. At 16 the percentiles of a run at millions of "
     "frames per second stay within a few percent of the exact ones (docs/experiments.md); "
     "at low rates a sample interval holds few frames and its p99 is coarse. Every latency "
     "figure says the rate it was sampled at."},
    {TunableId::FwdDirectPass, "fwd.direct_pass", "Forwarding", T::Flag, "", 0, 1, 1, L, none,
     "Lets a DPDK device forward each poll round itself, RX burst to TX burst as dpdk-testpmd "
     "does, while nothing is done per frame between them (fwd.mode io or macswap, handoff.mode "
     "direct, proc.ns_per_packet 0, no proc.copy, tx.header none, poll.mode busy or pmd_pause, "
     "cost.tx_clean_ns 0, no tx.coalesce_adaptive). Counters stay exact and TX coalescing "
     "works as before; the stage spans collapse into TX. 0: the stages always take the "
     "frames, as when comparing the stage breakdown.", false, {}, {}, {},
     DeviceFamily::Dpdk, "it has no direct pass: its frames always cross the stages"},
    {TunableId::SockBusyPollUs, "sock.busy_poll_us", kKernelGroup, T::Integer, "us", 0, 100000, 0, L, none,
     "The kernel device's socket busy-polls its NAPI for up to this long on a read that finds "
     "nothing (SO_BUSY_POLL; a non-blocking read polls once), instead of waiting for the "
     "interrupt and softirq to deliver. 0: off. A kernel that refuses it without "
     "CAP_NET_ADMIN says so when it is set. The kernel_busy_poll_rx_per_s figure counts what "
     "it received."},
    {TunableId::SockPreferBusyPoll, "sock.prefer_busy_poll", kKernelGroup, T::Flag, "", 0, 1, 0, L, none,
     "SO_PREFER_BUSY_POLL on the kernel device's socket: while the application busy-polls, "
     "the NAPI's interrupts stay masked (with napi_defer_hard_irqs and gro_flush_timeout) and "
     "the softirq leaves the polling to it. Needs CAP_NET_ADMIN."},
    {TunableId::SockBusyPollBudget, "sock.busy_poll_budget", kKernelGroup, T::Integer, "packets", 0, 65535, 0, L, none,
     "SO_BUSY_POLL_BUDGET: the packets one busy poll of the NAPI may take. 0: the kernel's "
     "default (8). Raising it needs CAP_NET_ADMIN."},
    // The host's own NAPI settings: host (-1) leaves a setting as the host has it; any other value is
    // written for the run (journalled first) and put back when it ends, however it ends.
    {TunableId::NapiThreaded, "napi.threaded", kKernelGroup, T::Integer, "", -1, 2, -1, L, none,
     "Threaded NAPI on every NAPI of the kernel device's netdev: 0 polls it in softirq context "
     "after its interrupt; 1 in a kernel thread of its own (napi/IF-ID), scheduled like any "
     "thread and shown as one in the CPU chart; 2, where the kernel takes it (netdev netlink's policy says), that "
     "thread busy polls. Per NAPI through netdev netlink (napi-set) where the kernel takes it, "
     "else /sys/class/net/IF/threaded. host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NapiDeferHardIrqs, "napi.defer_hard_irqs", kKernelGroup, T::Integer, "polls", -1, 2147483647, -1, L, none,
     "How many polls that find nothing may pass, each rescheduled by the gro_flush_timeout "
     "timer, before the NAPI's interrupt is enabled again (napi_defer_hard_irqs). 0: at once. "
     "Per NAPI through netdev netlink where the kernel takes it, else device-wide in sysfs. "
     "host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NapiGroFlushTimeoutNs, "napi.gro_flush_timeout_ns", kKernelGroup, T::Integer, "ns", -1, 2147483647, -1, L, none,
     "How long GRO may hold packets and, with napi.defer_hard_irqs, how long after a poll that "
     "found work a timer polls again instead of an interrupt (gro_flush_timeout). 0: flush at "
     "the end of each poll. Per NAPI through netdev netlink where the kernel takes it, else "
     "device-wide in sysfs. host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NapiIrqSuspendTimeoutNs, "napi.irq_suspend_timeout_ns", kKernelGroup, T::Integer, "ns", -1, 2147483647, -1, L, none,
     "IRQ suspension (Linux 6.13): while an application busy-polls with prefer_busy_poll and "
     "finds work, the NAPI's interrupt stays off for up to this long; when a poll finds "
     "nothing, napi.gro_flush_timeout_ns and napi.defer_hard_irqs take over again. 0: off. Per "
     "NAPI through netdev netlink only. host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NapiKthreadCpu, "napi.kthread_cpu", kKernelGroup, T::Integer, "", -1, 1023, -1, L, none,
     "The CPU every NAPI kthread of the kernel device's netdev runs on (threaded NAPI: "
     "napi.threaded 1), beside threads.poll_cpu for the application's thread: the same CPU "
     "shares it, another runs the two in parallel. A kthread made later (threaded switched "
     "on) is pinned at once. host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NapiKthreadPolicy, "napi.kthread_policy", kKernelGroup, T::Choice, "", 0, 3, 0, L, kKthreadPolicies,
     "The scheduling policy of every NAPI kthread of the kernel device's netdev (threaded NAPI), "
     "as chrt sets it: a real-time kthread preempts the application's thread on a shared CPU "
     "(threads.poll_policy sets the application's). A kthread made later (threaded switched on) "
     "gets it at once. Put back at the end of the run.", false, kKthreadPolicyHelp},
    {TunableId::NapiKthreadPriority, "napi.kthread_priority", kKernelGroup, T::Integer, "", 1, 99, 50, L, none,
     "The real-time priority of the NAPI kthreads with napi.kthread_policy fifo or rr (1-99; "
     "the kernel's own threaded IRQ handlers run at 50)."},
    {TunableId::NapiIrqCpu, "napi.irq_cpu", kKernelGroup, T::Integer, "", -1, 1023, -1, L, none,
     "The CPU that takes the interrupts of the kernel device's netdev: each IRQ its NAPIs "
     "report (netdev netlink), else each of its MSI vectors, through "
     "/proc/irq/N/smp_affinity_list. The softirq that polls a NAPI after its interrupt runs "
     "there. A veth has no interrupts. host (-1): as the host has it. Put back at the end of "
     "the run.", false, {}, "host"},
    {TunableId::NetBusyPollUs, "net.busy_poll_us", kKernelGroup, T::Integer, "us", -1, 2147483647, -1, L, none,
     "net.core.busy_poll, host-wide: how long poll(), select() and epoll_wait() busy-poll the "
     "NAPIs of their sockets before they sleep (epoll: the NAPI its sockets last received "
     "from); in poll.mode interrupt, the kernel device's epoll wait. 0: off. host (-1): as the "
     "host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetBusyReadUs, "net.busy_read_us", kKernelGroup, T::Integer, "us", -1, 2147483647, -1, L, none,
     "net.core.busy_read, host-wide: the SO_BUSY_POLL of every socket that sets none itself: "
     "how long a read that finds nothing busy-polls the socket's NAPI. The kernel copies it into "
     "a socket when the socket is made, so a change mid-run reaches sockets made after it, not "
     "the kernel device's own (made at the start): set it before Start, or sock.busy_poll_us "
     "live. 0: off. host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::EpollBusyPollUs, "epoll.busy_poll_us", kKernelGroup, T::Integer, "us", 0, 2147483647, 0, L, none,
     "Busy polling of the kernel device's own epoll set (EPIOCSPARAMS, Linux 6.9), for "
     "poll.mode interrupt: epoll_wait busy-polls the NAPI its socket receives from for up to "
     "this long before it sleeps, whatever net.core.busy_poll says. 0: the host's "
     "net.core.busy_poll."},
    {TunableId::EpollBusyPollBudget, "epoll.busy_poll_budget", kKernelGroup, T::Integer, "packets", 0, 65535, 0, L, none,
     "The packets one busy poll of the epoll set may take (EPIOCSPARAMS). 0: the kernel's "
     "default (8). Above 64 needs CAP_NET_ADMIN."},
    {TunableId::EpollPreferBusyPoll, "epoll.prefer_busy_poll", kKernelGroup, T::Flag, "", 0, 1, 0, L, none,
     "prefer_busy_poll of the kernel device's epoll set (EPIOCSPARAMS): while epoll_wait "
     "busy-polls, the NAPI's interrupts stay masked (with napi.defer_hard_irqs and "
     "napi.gro_flush_timeout_ns) and, with napi.irq_suspend_timeout_ns, suspended."},
    // The netdev's driver, through ethtool netlink; offered where the driver reports the setting.
    {TunableId::NetdevGro, "netdev.gro", kKernelNetdevGroup, T::Integer, "", -1, 1, -1, L, none,
     "GRO on the kernel device's netdev (ethtool -K gro): 1 merges a flow's frames in the NAPI "
     "poll before they go up the stack. A veth has a NAPI only with GRO on: 0 on kernel-lab "
     "hands its frames to the CPU's backlog instead, and its NAPI (with its settings) goes. "
     "host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevRxChannels, "netdev.rx_channels", kKernelNetdevGroup, T::Integer, "queues", -1, 4096, -1, L, none,
     "The netdev's receive-only channels (ethtool -L rx): each has a queue and a NAPI. 1 to the "
     "driver's maximum. host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevTxChannels, "netdev.tx_channels", kKernelNetdevGroup, T::Integer, "queues", -1, 4096, -1, L, none,
     "The netdev's transmit-only channels (ethtool -L tx). 1 to the driver's maximum. host "
     "(-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevCombinedChannels, "netdev.combined_channels", kKernelNetdevGroup, T::Integer, "queues", -1, 4096, -1, L, none,
     "The netdev's combined channels (ethtool -L combined): a receive and a transmit queue "
     "sharing one interrupt and NAPI, as most NICs have them. host (-1): as the host has it. "
     "Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevRxRing, "netdev.rx_ring", kKernelNetdevGroup, T::Integer, "descriptors", -1, 65536, -1, L, none,
     "The descriptors of each receive ring (ethtool -G rx): what a burst may fill before the "
     "NIC drops. Many drivers reset the device to change it: traffic pauses. host (-1): as the "
     "host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevTxRing, "netdev.tx_ring", kKernelNetdevGroup, T::Integer, "descriptors", -1, 65536, -1, L, none,
     "The descriptors of each transmit ring (ethtool -G tx). host (-1): as the host has it. Put "
     "back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevRxUsecs, "netdev.rx_usecs", kKernelNetdevGroup, T::Integer, "us", -1, 1000000, -1, L, none,
     "Interrupt coalescing (ethtool -C rx-usecs): how long the NIC waits after a frame "
     "arrives before it interrupts. host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevRxFrames, "netdev.rx_frames", kKernelNetdevGroup, T::Integer, "frames", -1, 65535, -1, L, none,
     "Interrupt coalescing (ethtool -C rx-frames): the frames that make the NIC interrupt "
     "before rx-usecs has passed. host (-1): as the host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevTxUsecs, "netdev.tx_usecs", kKernelNetdevGroup, T::Integer, "us", -1, 1000000, -1, L, none,
     "Interrupt coalescing of transmit completions (ethtool -C tx-usecs). host (-1): as the "
     "host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevTxFrames, "netdev.tx_frames", kKernelNetdevGroup, T::Integer, "frames", -1, 65535, -1, L, none,
     "Interrupt coalescing of transmit completions (ethtool -C tx-frames). host (-1): as the "
     "host has it. Put back at the end of the run.", false, {}, "host"},
    {TunableId::NetdevAdaptiveRx, "netdev.adaptive_rx", kKernelNetdevGroup, T::Integer, "", -1, 1, -1, L, none,
     "Adaptive receive coalescing (ethtool -C adaptive-rx): the driver picks rx-usecs and "
     "rx-frames from the traffic itself. host (-1): as the host has it. Put back at the end of "
     "the run.", false, {}, "host"},
};
// clang-format on
static_assert(std::size(kTable) == kParamCount, "one registry row per tunable");

bool isPowerOfTwo(std::int64_t v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

std::string formatNumber(double v)
{
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
        return buf;
    }
    // The shortest text that parses back to the same double: a value read back is the value set.
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

std::size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string quoted(std::string_view s)
{
    return "\"" + std::string(s) + "\"";
}

} // namespace

std::span<const TunableInfo> tunables()
{
    return kTable;
}

const TunableInfo &info(TunableId p)
{
    return kTable[static_cast<std::size_t>(p)];
}

DeviceFamily appliedOnlyBy(const TunableInfo &t)
{
    return isKernelGroup(t.group) ? DeviceFamily::Kernel : t.onlyOn;
}

std::string_view ignoredElsewhereWhy(const TunableInfo &t)
{
    if (isKernelGroup(t.group))
        return "a setting of the Linux kernel's receive path, for the kernel device "
               "(kernel:IFNAME, kernel-lab)";
    return t.elsewhere;
}

std::span<const TunableInfo *const> frameWorkTunables()
{
    static const std::vector<const TunableInfo *> rows = [] {
        std::vector<const TunableInfo *> v;
        for (const auto &t : kTable)
            if (t.noFrameWorkAt) v.push_back(&t);
        return v;
    }();
    return rows;
}

const TunableInfo *findTunable(std::string_view name)
{
    for (const auto &t : kTable)
        if (t.name == name) return &t;
    return nullptr;
}

std::string_view typeName(Type t)
{
    switch (t) {
    case Type::Integer:
        return "integer";
    case Type::Real:
        return "real";
    case Type::Choice:
        return "choice";
    case Type::Flag:
        return "flag";
    }
    return "?";
}

std::string helpText(const TunableInfo &t)
{
    std::string s(t.help);
    for (std::size_t k = 0; k < t.choiceHelp.size() && k < t.choices.size(); ++k)
        s += " " + std::string(t.choices[k]) + ": " + std::string(t.choiceHelp[k]) + ".";
    return s;
}

std::string allowedText(const TunableInfo &t)
{
    switch (t.type) {
    case Type::Choice: {
        std::string s;
        for (auto c : t.choices)
            s += (s.empty() ? "" : ", ") + std::string(c);
        return "one of " + s;
    }
    case Type::Flag:
        return "true or false (also 1/0, on/off, yes/no)";
    case Type::Integer:
    case Type::Real: {
        std::string s = t.minWord.empty()
                            ? formatNumber(t.min) + ".." + formatNumber(t.max)
                            : std::string(t.minWord) + " or " + formatNumber(t.min + 1) + ".." +
                                  formatNumber(t.max);
        if (!t.unit.empty()) s += " " + std::string(t.unit);
        if (t.power_of_two) s += ", a power of two";
        return s;
    }
    }
    return {};
}

std::string ParamSet::format(const TunableInfo &t, Value v)
{
    switch (t.type) {
    case Type::Choice:
        return std::string(t.choices[static_cast<std::size_t>(v.i)]);
    case Type::Flag:
        return v.i ? "true" : "false";
    case Type::Integer:
        if (!t.minWord.empty() && v.i == static_cast<std::int64_t>(t.min))
            return std::string(t.minWord);
        return std::to_string(v.i);
    case Type::Real:
        return formatNumber(v.r);
    }
    return {};
}

ParamSet::ParamSet()
{
    for (const auto &t : kTable) {
        Value v;
        if (t.type == Type::Real)
            v.r = t.def;
        else
            v.i = static_cast<std::int64_t>(t.def);
        values_[idx(t.id)] = v;
    }
}

std::string ParamSet::text(TunableId p) const
{
    return format(info(p), value(p));
}

Status ParamSet::parse(const TunableInfo &t, std::string_view text, Value &out)
{
    auto reject = [&](std::string_view why) {
        return Status{std::string(t.name) + ": " + quoted(text) + " " + std::string(why) +
                      " (allowed: " + allowedText(t) + ")"};
    };
    switch (t.type) {
    case Type::Choice:
        for (std::size_t k = 0; k < t.choices.size(); ++k)
            if (t.choices[k] == text) {
                out = Value{static_cast<std::int64_t>(k), 0};
                return Status::success();
            }
        return reject("is not a valid choice");
    case Type::Flag:
        if (text == "true" || text == "1" || text == "on" || text == "yes") {
            out = Value{1, 0};
            return Status::success();
        }
        if (text == "false" || text == "0" || text == "off" || text == "no") {
            out = Value{0, 0};
            return Status::success();
        }
        return reject("is not a flag");
    case Type::Integer: {
        if (!t.minWord.empty() && text == t.minWord) {
            out = Value{static_cast<std::int64_t>(t.min), 0};
            return Status::success();
        }
        std::int64_t v = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc::result_out_of_range) return reject("is out of range");
        if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
            return reject("is not an integer");
        if (v < t.min || v > t.max) return reject("is out of range");
        if (t.power_of_two && !isPowerOfTwo(v)) return reject("is not a power of two");
        out = Value{v, 0};
        return Status::success();
    }
    case Type::Real: {
        double v = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() ||
            !std::isfinite(v))
            return reject("is not a number");
        if (v < t.min || v > t.max) return reject("is out of range");
        out = Value{0, v};
        return Status::success();
    }
    }
    return reject("has an unknown type");
}

Status ParamSet::checkCrossRules() const
{
    auto rule = [&](TunableId a, std::string_view relation, TunableId b) {
        return Status{std::string(info(a).name) + ": " + text(a) + " is not allowed: must be " +
                      std::string(relation) + " " + std::string(info(b).name) + " (" + text(b) +
                      ")"};
    };
    if (integer(TunableId::PollSleepMinUs) > integer(TunableId::PollSleepMaxUs))
        return rule(TunableId::PollSleepMinUs, "at most", TunableId::PollSleepMaxUs);
    if (integer(TunableId::RefillThreshold) >= integer(TunableId::RxRingSize))
        return rule(TunableId::RefillThreshold, "less than", TunableId::RxRingSize);
    if (integer(TunableId::TxCoalesceFrames) >= integer(TunableId::TxRingSize))
        return rule(TunableId::TxCoalesceFrames, "less than", TunableId::TxRingSize);
    if (integer(TunableId::TxFreeThresh) >= integer(TunableId::TxRingSize))
        return rule(TunableId::TxFreeThresh, "less than", TunableId::TxRingSize);
    if (integer(TunableId::RefillBatch) > integer(TunableId::RxRingSize))
        return rule(TunableId::RefillBatch, "at most", TunableId::RxRingSize);
    return Status::success();
}

Status ParamSet::setValue(TunableId p, Value v)
{
    ParamSet next = *this;
    next.values_[idx(p)] = v;
    if (auto st = next.checkCrossRules(); !st.ok()) return st;
    *this = next;
    return Status::success();
}

Status unknownTunable(std::string_view name)
{
    std::string best;
    std::size_t bestDist = 4;
    for (const auto &c : kTable)
        if (auto d = editDistance(name, c.name); d < bestDist) {
            bestDist = d;
            best = c.name;
        }
    std::string msg = "unknown tunable " + quoted(name);
    msg += best.empty() ? " (see 'ringlab-engine params')" : " (did you mean " + best + "?)";
    return Status{msg};
}

Status ParamSet::set(const Assignments &assignments, std::vector<Change> *changes)
{
    ParamSet next = *this;
    for (const auto &[name, text] : assignments) {
        const TunableInfo *t = findTunable(name);
        if (!t) return unknownTunable(name);
        Value v;
        if (auto st = parse(*t, text, v); !st.ok()) return st;
        next.values_[idx(t->id)] = v;
    }
    if (auto st = next.checkCrossRules(); !st.ok()) return st;
    if (changes) {
        changes->clear();
        for (std::size_t k = 0; k < kParamCount; ++k)
            if (!(values_[k] == next.values_[k]))
                changes->push_back({static_cast<TunableId>(k), values_[k], next.values_[k]});
    }
    *this = next;
    return Status::success();
}

Status ParamSet::set(std::string_view name, std::string_view text, std::vector<Change> *changes)
{
    return set({{std::string(name), std::string(text)}}, changes);
}

} // namespace ringlab
