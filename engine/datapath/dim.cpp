// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/dim.h"

namespace ringlab {
namespace {

// IS_SIGNIFICANT_DIFF(val, ref): more than 10 % of ref.
bool significant(std::uint64_t val, std::uint64_t ref)
{
    if (!ref) return false;
    const std::uint64_t d = val > ref ? val - ref : ref - val;
    return 100 * d / ref > 10;
}

std::uint64_t divRoundUp(std::uint64_t a, std::uint64_t b)
{
    return (a + b - 1) / b;
}

} // namespace

NetDim::Stats NetDim::compare(const Rates &cur, const Rates &prev)
{
    if (!prev.bpms) return cur.bpms ? Stats::Better : Stats::Same;
    if (significant(cur.bpms, prev.bpms))
        return cur.bpms > prev.bpms ? Stats::Better : Stats::Worse;
    if (!prev.ppms) return cur.ppms ? Stats::Better : Stats::Same;
    if (significant(cur.ppms, prev.ppms))
        return cur.ppms > prev.ppms ? Stats::Better : Stats::Worse;
    if (!prev.epms) return Stats::Same;
    if (significant(cur.epms, prev.epms))
        return cur.epms < prev.epms ? Stats::Better : Stats::Worse;
    return Stats::Same;
}

NetDim::Step NetDim::step()
{
    if (tired_ == kDimProfiles * 2) return Step::TooTired;
    switch (tune_) {
    case Tune::ParkingOnTop:
    case Tune::ParkingTired:
        break;
    case Tune::GoingRight:
        if (ix_ == kDimProfiles - 1) return Step::OnEdge;
        ++ix_;
        ++stepsRight_;
        break;
    case Tune::GoingLeft:
        if (ix_ == 0) return Step::OnEdge;
        --ix_;
        ++stepsLeft_;
        break;
    }
    ++tired_;
    return Step::Stepped;
}

void NetDim::exitParking()
{
    tune_ = ix_ ? Tune::GoingLeft : Tune::GoingRight;
    step();
}

bool NetDim::onTop() const
{
    switch (tune_) {
    case Tune::ParkingOnTop:
    case Tune::ParkingTired:
        return true;
    case Tune::GoingRight:
        return stepsLeft_ > 1 && stepsRight_ == 1;
    case Tune::GoingLeft:
        return stepsRight_ > 1 && stepsLeft_ == 1;
    }
    return true;
}

void NetDim::turn()
{
    if (tune_ == Tune::GoingRight) {
        tune_ = Tune::GoingLeft;
        stepsLeft_ = 0;
    } else if (tune_ == Tune::GoingLeft) {
        tune_ = Tune::GoingRight;
        stepsRight_ = 0;
    }
}

void NetDim::parkOnTop()
{
    stepsRight_ = stepsLeft_ = tired_ = 0;
    tune_ = Tune::ParkingOnTop;
}

void NetDim::parkTired()
{
    stepsRight_ = stepsLeft_ = 0;
    tune_ = Tune::ParkingTired;
}

bool NetDim::decide(const Rates &cur)
{
    const Tune prevTune = tune_;
    const int prevIx = ix_;
    switch (tune_) {
    case Tune::ParkingOnTop:
        if (compare(cur, prev_) != Stats::Same) exitParking();
        break;
    case Tune::ParkingTired:
        if (--tired_ == 0) exitParking();
        break;
    case Tune::GoingRight:
    case Tune::GoingLeft:
        if (compare(cur, prev_) != Stats::Better) turn();
        if (onTop()) {
            parkOnTop();
            break;
        }
        switch (step()) {
        case Step::OnEdge:
            parkOnTop();
            break;
        case Step::TooTired:
            parkTired();
            break;
        case Step::Stepped:
            break;
        }
        break;
    }
    if (prevTune != Tune::ParkingOnTop || tune_ != Tune::ParkingOnTop) prev_ = cur;
    return ix_ != prevIx;
}

bool NetDim::sample(std::int64_t nowNs, std::uint64_t events, std::uint64_t packets,
                    std::uint64_t bytes)
{
    if (measuring_) {
        if (events - start_.events < kDimEvents) return false;
        const std::uint64_t us = static_cast<std::uint64_t>((nowNs - start_.ns) / 1000);
        if (us == 0) return false;
        Rates cur;
        cur.ppms = divRoundUp((packets - start_.packets) * 1000, us);
        cur.bpms = divRoundUp((bytes - start_.bytes) * 1000, us);
        cur.epms = divRoundUp(kDimEvents * 1000, us);
        if (decide(cur)) {
            // DIM_APPLY_NEW_PROFILE: applied at once here; the next measurement starts now.
            measuring_ = false;
            return true;
        }
    }
    start_ = {nowNs, events, packets, bytes};
    measuring_ = true;
    return false;
}

} // namespace ringlab
