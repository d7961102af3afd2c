// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/gui_thread_meter.h"

namespace ringlab::ui {

std::optional<double> GuiThreadMeter::add(double t, std::int64_t cpuNs)
{
    if (!readings_.empty()) {
        const auto [lastT, lastCpu] = readings_.back();
        if (t < lastT || cpuNs < lastCpu)
            readings_.clear(); // a new run: time starts again
        else if (t == lastT)
            return std::nullopt; // the same instant twice
    }
    readings_.emplace_back(t, cpuNs);
    // Keep the newest reading at least kSpanS back, and nothing older (times are sums of
    // sample intervals: within a microsecond is as good as equal).
    constexpr double kSpan = kSpanS - 1e-6;
    while (readings_.size() > 2 && t - readings_[1].first >= kSpan)
        readings_.pop_front();
    const auto [t0, cpu0] = readings_.front();
    if (t - t0 < kSpan) return std::nullopt;
    return static_cast<double>(cpuNs - cpu0) / 1e6 / (t - t0);
}

} // namespace ringlab::ui
