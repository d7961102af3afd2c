// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/measurement_lock.h"

#include "engine/common/host_info.h"

namespace ringlab {

std::uint64_t MeasurementLock::acquire(const std::string &kind, const std::string &what,
                                       std::string &refusal)
{
    std::lock_guard lock(mutex_);
    if (holder_) {
        refusal = refusalText(*holder_);
        return 0;
    }
    holder_ = MeasurementHolder{kind, what, isoTimeNow(), next_++};
    return holder_->token;
}

void MeasurementLock::rename(std::uint64_t token, const std::string &what)
{
    std::lock_guard lock(mutex_);
    if (holder_ && holder_->token == token) holder_->what = what;
}

void MeasurementLock::release(std::uint64_t token)
{
    std::lock_guard lock(mutex_);
    if (holder_ && holder_->token == token) holder_.reset();
}

std::optional<MeasurementHolder> MeasurementLock::holder() const
{
    std::lock_guard lock(mutex_);
    return holder_;
}

std::string MeasurementLock::refusalText(const MeasurementHolder &h)
{
    return "the measurement is held by " + h.what + " since " + h.since +
           " (one measurement at a time: " +
           (h.kind == "job" ? std::string("wait for the job or cancel it, POST /v1/jobs/ID/cancel")
                            : std::string("stop the run first")) +
           ")";
}

} // namespace ringlab
