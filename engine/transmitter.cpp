// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/transmitter.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <stdexcept>
#include <system_error>

#include "engine/clock.h"
#include "engine/waiter.h"

namespace ringlab {

Transmitter::Transmitter(const LiveParams &live, Device &dev, BufferSource &pool,
                         ThreadRegistry &reg, bool concurrent)
    : live_(live), dev_(dev), pool_(pool), concurrent_(concurrent),
      flushInline_(dev.txCompletesOnFlush())
{
    timerFd_ = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    kickFd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (timerFd_ < 0 || kickFd_ < 0)
        throw std::system_error(errno, std::generic_category(), "TX coalesce timer");
    clean_ = EngineThread(reg, "txclean",
                          [this](std::stop_token st, ThreadEntry &self) { cleanThread(st, self); });
}

Transmitter::~Transmitter()
{
    stop();
    close(timerFd_);
    close(kickFd_);
}

void Transmitter::stop()
{
    clean_.requestStop();
    kick();
    clean_.stop();
}

void Transmitter::kick()
{
    const std::uint64_t one = 1;
    [[maybe_unused]] auto r = write(kickFd_, &one, sizeof one);
}

void Transmitter::armTimer(Counters &c)
{
    const std::int64_t ns = live_.i(P::TxCoalesceUsecs) * 1000;
    itimerspec its{};
    its.it_value = toTimespec(ns);
    timerfd_settime(timerFd_, 0, &its, nullptr);
    timerArmed_.store(true, std::memory_order_relaxed);
    c.add(C::TimerArms);
}

void Transmitter::cancelTimer(Counters &c)
{
    itimerspec its{};
    timerfd_settime(timerFd_, 0, &its, nullptr);
    timerArmed_.store(false, std::memory_order_relaxed);
    c.add(C::TimerCancels);
}

void Transmitter::xmit(Buffer *const *bufs, std::uint32_t n, Counters &c)
{
    if (n == 0) return;
    c.add(C::Processed, n);
    std::unique_lock lock(lock_, std::defer_lock);
    if (concurrent_) lock.lock();

    const std::int64_t now = nowNs();
    std::uint64_t reordered = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
        bufs[k]->at(Stage::TxPosted) = now;
        if (anySeq_ && bufs[k]->seq < lastSeq_)
            ++reordered;
        else
            lastSeq_ = bufs[k]->seq;
        anySeq_ = true;
    }
    if (reordered) c.add(C::Reordered, reordered);
    if (dev_.txFree() < static_cast<std::uint32_t>(live_.i(P::TxFreeThresh)) && reclaim(c) > 0)
        c.add(C::TxInlineCleans);
    const std::uint32_t sent = dev_.txPost(bufs, n, now);
    if (sent < n) {
        c.add(C::TxFull, n - sent);
        pool_.release(bufs + sent, n - sent);
    }

    // Coalesce timer: stmmac_tx_timer_arm() before and after the fix. Reading the flag with a
    // read-modify-write orders it with the exchange in cleanThread() (both seq_cst RMWs on one
    // atomic): either we see the clean unscheduled, or it sees our frames. Unlike a pair of
    // fences, ThreadSanitizer can check this.
    const auto scheduled = [this] {
        return cleanScheduled_.fetch_or(0, std::memory_order_seq_cst) != 0;
    };
    if (live_.choice<TimerPolicy>(P::TxTimerPolicy) == TimerPolicy::Rearm || !scheduled()) {
        armTimer(c);
    } else if (timerArmed_.load(std::memory_order_relaxed)) {
        cancelTimer(c);
        // The clean may have finished (and armed the timer for our frames) meanwhile.
        if (!scheduled()) armTimer(c);
    }

    if (dev_.txPending() >= static_cast<std::uint32_t>(live_.i(P::TxCoalesceFrames))) {
        if (flushInline_) {
            if (reclaim(c) > 0) c.add(C::TxInlineCleans);
        } else if (!cleanScheduled_.exchange(1, std::memory_order_acq_rel)) {
            c.add(C::TxCleanKicks);
            kick();
        }
    }
}

std::uint32_t Transmitter::reclaim(Counters &c)
{
    if (reclaiming_.test_and_set(std::memory_order_acquire)) return 0;
    std::uint32_t total = 0;
    constexpr std::uint32_t kBurst = 256;
    Buffer *done[kBurst];
    std::uint32_t k = 0;
    do {
        k = dev_.txReclaim(done, kBurst, nowNs());
        total += k;
        std::uint64_t bytes = 0;
        latency_.record(done, k);
        for (std::uint32_t j = 0; j < k; ++j)
            bytes += done[j]->len;
        if (k) {
            std::uint32_t dropped = 0;
            if (!dev_.txRetire(done, k, dropped)) pool_.release(done, k);
            if (dropped) c.add(C::TxFull, dropped);
            c.add(C::TxPackets, k - dropped);
            c.add(C::TxBytes, bytes);
        }
    } while (k == kBurst);
    reclaiming_.clear(std::memory_order_release);
    return total;
}

void Transmitter::cleanThread(std::stop_token st, ThreadEntry &self)
{
    Counters &c = self.counters;
    setTimerSlackNs(1);
    pollfd fds[2] = {{timerFd_, POLLIN, 0}, {kickFd_, POLLIN, 0}};
    while (!st.stop_requested()) {
        if (::poll(fds, 2, -1) < 0) continue;
        if (st.stop_requested()) break;
        std::uint64_t v = 0;
        if (fds[0].revents & POLLIN && read(timerFd_, &v, sizeof v) == sizeof v) {
            c.add(C::TimerFires, v);
            timerArmed_.store(false, std::memory_order_relaxed);
            cleanScheduled_.store(1, std::memory_order_release);
        }
        if (fds[1].revents & POLLIN) [[maybe_unused]]
            auto r = read(kickFd_, &v, sizeof v);

        c.add(C::TxCleans);
        reclaim(c);
        cleanScheduled_.exchange(0, std::memory_order_seq_cst); // pairs with xmit()'s fetch_or
        // Frames still on the wire: the timer brings us back (stmmac re-arms in tx clean).
        if (dev_.txPending() > 0) armTimer(c);
    }
}

} // namespace ringlab
