// SPDX-License-Identifier: GPL-2.0-or-later
// One measurement at a time: two runs that share a CPU corrupt each other's figures, so the
// engine has one holder of the measurement, a run (RunApi's start) or a job (a sweep, tune or
// reproduction of engine/experiments). A second start of either kind is refused with a
// sentence naming what holds the measurement and since when.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace ringlab {

struct MeasurementHolder {
    std::string kind;  // "run" or "job"
    std::string what;  // "job 3 (sweep)", "a run of profile default (client \"gui\")"
    std::string since; // ISO 8601, UTC
    std::uint64_t token = 0;
};

class MeasurementLock {
  public:
    // Takes the measurement for `what`; 0 and `refusal` (naming the holder and since when)
    // when something holds it already. The token returned releases it.
    std::uint64_t acquire(const std::string &kind, const std::string &what, std::string &refusal);
    // Names the holder anew (a job takes the measurement before it has its id); a token that
    // is no longer the holder's does nothing.
    void rename(std::uint64_t token, const std::string &what);
    // Gives it back; a token that is no longer the holder's does nothing.
    void release(std::uint64_t token);
    std::optional<MeasurementHolder> holder() const;
    // "the measurement is held by WHAT since SINCE"
    static std::string refusalText(const MeasurementHolder &h);

  private:
    mutable std::mutex mutex_;
    std::optional<MeasurementHolder> holder_;
    std::uint64_t next_ = 1;
};

} // namespace ringlab
