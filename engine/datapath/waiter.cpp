// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/waiter.h"

#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "engine/datapath/clock.h"

namespace ringlab {
namespace {
long futex(std::atomic<std::uint32_t> *addr, int op, std::uint32_t val, const timespec *ts,
           std::uint32_t bitset)
{
    return syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(addr), op, val, ts, nullptr,
                   bitset);
}
} // namespace

bool Waiter::waitUntil(std::int64_t deadlineNs)
{
    sleeping_.store(1, std::memory_order_seq_cst);
    bool woken = false;
    for (;;) {
        if (word_.exchange(0, std::memory_order_acquire) == 1) {
            woken = true;
            break;
        }
        if (deadlineNs >= 0 && nowNs() >= deadlineNs) break;
        const timespec ts = toTimespec(deadlineNs);
        const long rc = futex(&word_, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0,
                              deadlineNs >= 0 ? &ts : nullptr, FUTEX_BITSET_MATCH_ANY);
        if (rc == -1 && errno == ETIMEDOUT) {
            woken = word_.exchange(0, std::memory_order_acquire) == 1;
            break;
        }
    }
    sleeping_.store(0, std::memory_order_relaxed);
    return woken;
}

void Waiter::wake()
{
    word_.store(1, std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_seq_cst))
        futex(&word_, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, nullptr, 0);
}

void setTimerSlackNs(std::int64_t ns)
{
    thread_local std::int64_t current = -1;
    if (ns < 1) ns = 1;
    if (ns == current) return;
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(ns), 0, 0, 0);
    current = ns;
}

} // namespace ringlab
