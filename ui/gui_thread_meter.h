// SPDX-License-Identifier: GPL-2.0-or-later
// The GUI thread's CPU, per second, for the CPU chart beside the engine's threads. Its work
// is bursty (a replot every few batches, a repaint, a segment table refreshed): read over
// each 0.1 s batch it showed 3-7 ms/s with spikes, where /proc read 24-64 ms/s on average
// (issue 46 item 4). So each value is the thread's CPU time over the last second or a little
// more of the run's time, one value per batch: what /proc says over the same second.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

namespace ringlab::ui {

class GuiThreadMeter {
  public:
    static constexpr double kSpanS = 1.0;

    // The thread's CPU time (ns) read at run time t (s). Returns ms of CPU per second over
    // the last kSpanS or more, once that much run time has passed since the first reading.
    std::optional<double> add(double t, std::int64_t cpuNs);
    void clear() { readings_.clear(); }

  private:
    std::deque<std::pair<double, std::int64_t>> readings_; // oldest first, >= kSpanS back
};

} // namespace ringlab::ui
