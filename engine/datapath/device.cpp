// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/device.h"

namespace ringlab {

void addKernelOnlyTunables(std::vector<TunableSupport> &support)
{
    for (const TunableInfo &t : tunables())
        if (isKernelGroup(t.group))
            support.push_back({t.id, Support::Ignored,
                               "a setting of the Linux kernel's receive path, for the kernel "
                               "device (kernel:IFNAME, kernel-lab)"});
}

} // namespace ringlab
