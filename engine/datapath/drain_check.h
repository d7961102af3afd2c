// SPDX-License-Identifier: GPL-2.0-or-later
// l2fwd's drain check in a busy lcore loop: frames waiting in a TX buffer are flushed
// tx.coalesce_usecs after they began to wait, found by the loop's own clock reading at each
// round. No timer thread, no system call; counted as the coalesce timer would be (an arm when
// a period starts, a fire and a clean when it ends).
#pragma once

#include <cstdint>

#include "engine/datapath/counters.h"

namespace ringlab {

class DrainCheck {
  public:
    // Once per round. `pending`: frames wait in the buffer. True when they are due now: the
    // caller flushes them.
    bool due(bool pending, std::int64_t nowNs, std::int64_t periodNs, Counters &c)
    {
        if (!pending) {
            dueNs_ = 0;
            return false;
        }
        if (dueNs_ == 0) { // frames began to wait: the period starts
            dueNs_ = nowNs + periodNs;
            c.add(CounterId::TimerArms);
            return false;
        }
        if (nowNs < dueNs_) return false;
        dueNs_ = 0;
        c.add(CounterId::TimerFires);
        c.add(CounterId::TxCleans);
        return true;
    }
    void reset() { dueNs_ = 0; }

  private:
    std::int64_t dueNs_ = 0; // 0: nothing waits
};

} // namespace ringlab
