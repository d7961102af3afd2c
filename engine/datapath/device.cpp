// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/device.h"

namespace ringlab {

void addKernelOnlyTunables(std::vector<TunableSupport> &support)
{
    for (TunableId id : {TunableId::SockBusyPollUs, TunableId::SockPreferBusyPoll,
                         TunableId::SockBusyPollBudget})
        support.push_back({id, Support::Ignored,
                           "a socket option of the kernel device (kernel:IFNAME, kernel-lab)"});
}

} // namespace ringlab
