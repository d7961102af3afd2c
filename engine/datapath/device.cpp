// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/device.h"

#include <algorithm>

namespace ringlab {

std::vector<TunableSupport> completeSupport(DeviceFamily family, std::vector<TunableSupport> own)
{
    for (const TunableInfo &t : tunables()) {
        const DeviceFamily by = appliedOnlyBy(t);
        if (by == DeviceFamily::Any || by == family) continue;
        const bool said = std::any_of(own.begin(), own.end(),
                                      [&](const TunableSupport &s) { return s.id == t.id; });
        if (!said) own.push_back({t.id, Support::Ignored, std::string(ignoredElsewhereWhy(t))});
    }
    return own;
}

} // namespace ringlab
