// SPDX-License-Identifier: GPL-2.0-or-later
// Interference: stress.threads threads each busy for stress.duty_pct of every millisecond.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "engine/datapath/live_params.h"
#include "engine/datapath/thread_registry.h"

namespace ringlab {

class StressPool {
  public:
    StressPool(const LiveParams &live, ThreadRegistry &reg) : live_(live), reg_(reg) {}
    ~StressPool() { resize(0); }
    // Starts or stops threads to match the count.
    void resize(int threads);

  private:
    const LiveParams &live_;
    ThreadRegistry &reg_;
    std::mutex mutex_;
    std::vector<std::unique_ptr<EngineThread>> threads_;
};

} // namespace ringlab
