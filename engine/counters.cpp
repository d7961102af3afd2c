// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/counters.h"

namespace ringlab {

std::string_view counterName(C c)
{
    static constexpr std::string_view names[] = {
        "offered",        "rx_packets",       "rx_bytes",      "processed",      "tx_packets",
        "tx_bytes",       "rx_missed",        "alloc_fail",    "tx_full",        "handoff_full",
        "polls",          "empty_polls",      "interrupts",    "refill_wakeups", "refill_posted",
        "work_items",     "timer_arms",       "timer_cancels", "timer_fires",    "tx_cleans",
        "tx_clean_kicks", "tx_inline_cleans", "reordered",     "rx_errors",      "tx_errors",
        "handoff_takes",  "dim_steps"};
    static_assert(std::size(names) == kCounterCount);
    return names[static_cast<std::size_t>(c)];
}

} // namespace ringlab
