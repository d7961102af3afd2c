// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/direct_pass.h"

namespace ringlab {

bool stagesPassFramesThrough(const LiveParams &live)
{
    const auto mode = live.choice<PollMode>(TunableId::PollMode);
    if (!live.flag(TunableId::FwdDirectPass) ||
        (mode != PollMode::Busy && mode != PollMode::PmdPause))
        return false;
    for (const TunableInfo *t : frameWorkTunables())
        if (live.integer(t->id) != *t->noFrameWorkAt) return false;
    return true;
}

} // namespace ringlab
