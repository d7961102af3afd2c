// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/coalesce_timer.h"

#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "engine/datapath/clock.h"

namespace ringlab {

CoalesceTimer::CoalesceTimer()
{
    fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "TX coalesce timer");
}

CoalesceTimer::~CoalesceTimer()
{
    close(fd_);
}

void CoalesceTimer::program(std::int64_t expiryNs)
{
    itimerspec its{};
    its.it_value = toTimespec(expiryNs); // never 0 (which would disarm): a CLOCK_MONOTONIC time
    timerfd_settime(fd_, TFD_TIMER_ABSTIME, &its, nullptr);
    programmed_.store(expiryNs, std::memory_order_seq_cst);
    reprograms_.fetch_add(1, std::memory_order_relaxed);
}

void CoalesceTimer::reprogram()
{
    std::lock_guard lock(lock_);
    const std::int64_t e = expiry_.load(std::memory_order_seq_cst);
    if (e != kIdle && e < programmed_.load(std::memory_order_relaxed)) program(e);
}

bool CoalesceTimer::expire(std::int64_t nowNs)
{
    std::lock_guard lock(lock_);
    // The timerfd fired: it holds nothing now. Stored before the expiry is read, so that an
    // arm either sees this (and programs itself) or is seen below (both sequentially
    // consistent).
    programmed_.store(kNothing, std::memory_order_seq_cst);
    std::int64_t e = expiry_.load(std::memory_order_seq_cst);
    for (;;) {
        if (e == kIdle) return false; // cancelled
        if (e > nowNs) {              // pushed out since it was programmed: sleep again
            program(e);
            return false;
        }
        if (expiry_.compare_exchange_weak(e, kIdle, std::memory_order_seq_cst)) return true;
    }
}

} // namespace ringlab
