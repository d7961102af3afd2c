// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/direct_pass.h"

namespace ringlab {

bool stagesPassFramesThrough(const LiveParams &live)
{
    const auto mode = live.choice<PollMode>(TunableId::PollMode);
    return live.flag(TunableId::FwdDirectPass) &&
           (mode == PollMode::Busy || mode == PollMode::PmdPause) &&
           live.integer(TunableId::ProcNsPerPacket) == 0 && !live.flag(TunableId::ProcCopy) &&
           live.choice<HeaderMode>(TunableId::TxHeader) == HeaderMode::None &&
           live.integer(TunableId::CostTxCleanNs) == 0 && !live.flag(TunableId::TxCoalesceAdaptive);
}

} // namespace ringlab
