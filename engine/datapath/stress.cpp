// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/stress.h"

#include <ctime>

#include "engine/datapath/clock.h"
#include "engine/datapath/waiter.h"

namespace ringlab {

void StressPool::resize(int threads)
{
    std::lock_guard lock(mutex_);
    while (static_cast<int>(threads_.size()) > threads)
        threads_.pop_back();
    while (static_cast<int>(threads_.size()) < threads) {
        const std::string name = "stress/" + std::to_string(threads_.size());
        threads_.push_back(
            std::make_unique<EngineThread>(reg_, name, [this](std::stop_token st, ThreadEntry &) {
                constexpr std::int64_t kPeriod = 1'000'000;
                setTimerSlackNs(1000);
                std::int64_t start = nowNs();
                while (!st.stop_requested()) {
                    const double duty = live_.real(TunableId::StressDutyPct) / 100.0;
                    const std::int64_t busyUntil =
                        start + static_cast<std::int64_t>(duty * kPeriod);
                    while (nowNs() < busyUntil)
                        cpuRelax();
                    start += kPeriod;
                    const std::int64_t now = nowNs();
                    if (start < now) start = now; // fell behind: do not try to catch up
                    if (duty < 1.0) {
                        const timespec ts = toTimespec(start);
                        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
                    }
                }
            }));
    }
}

} // namespace ringlab
