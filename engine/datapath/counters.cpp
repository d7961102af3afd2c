// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/counters.h"

namespace ringlab {

namespace {
struct CounterText {
    std::string_view name, help;
};
// In the order of CounterId.
constexpr CounterText kCounters[] = {
    {"offered", "frames the device generated (load and probes)"},
    {"rx_packets", "frames harvested from the RX ring"},
    {"rx_bytes", "bytes harvested from the RX ring"},
    {"processed", "frames that finished the processing stage"},
    {"tx_packets", "frames completed on the wire and cleaned"},
    {"tx_bytes", "bytes completed on the wire and cleaned"},
    {"rx_missed", "arrivals that found no posted RX buffer"},
    {"alloc_fail", "refills that found the buffer pool empty"},
    {"tx_full", "frames refused by a full TX ring, or by the port at a flush (DPDK)"},
    {"handoff_full", "frames refused by a full hand-off queue"},
    {"polls", "polls of the RX ring"},
    {"empty_polls", "polls that found nothing"},
    {"interrupts", "RX interrupts that ended a wait (poll.mode interrupt)"},
    {"refill_wakeups", "refill thread wakeups or refill work items queued"},
    {"refill_posted", "buffers posted to the RX ring"},
    {"work_items", "work items run by the work queue (refill, per-packet work, housekeeping)"},
    {"timer_arms",
     "TX coalesce timer arms (hrtimer_start: a timerfd_settime only when the expiry moves "
     "earlier); on a DPDK port drained by a busy poll loop, drain periods begun"},
    {"timer_cancels", "TX coalesce timer cancels (tx.timer_policy skip_if_scheduled)"},
    {"timer_fires", "TX coalesce timer expiries"},
    {"tx_cleans", "passes of the txclean thread, and drains by a busy poll loop (DPDK)"},
    {"tx_clean_kicks", "TX cleans scheduled by an interrupt-marked frame (tx.coalesce_frames)"},
    {"tx_inline_cleans", "transmit-path passes that reclaimed completions (tx.free_thresh)"},
    {"reordered", "frames transmitted out of arrival order (several work-queue workers)"},
    {"rx_errors", "frames the port received in error (DPDK ierrors)"},
    {"tx_errors", "frames the port failed to send (DPDK oerrors)"},
    {"handoff_takes", "takes from the hand-off: fifo dequeues, per-packet work items run"},
    {"dim_steps", "moderation profile changes by net_dim (irq.adaptive, tx.coalesce_adaptive)"},
};
static_assert(std::size(kCounters) == kCounterCount);
} // namespace

std::string_view counterName(CounterId c)
{
    return kCounters[static_cast<std::size_t>(c)].name;
}

std::string_view counterHelp(CounterId c)
{
    return kCounters[static_cast<std::size_t>(c)].help;
}

} // namespace ringlab
