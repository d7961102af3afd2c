// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/profile/resolve_profile.h"

namespace ringlab {

Status resolveProfile(const std::string &nameOrPath, const Assignments &overrides,
                      ResolvedProfile &out, const std::string &device,
                      const DeviceDefaultsFn &defaults)
{
    std::string error;
    const auto file = findProfile(nameOrPath, error);
    if (file.empty() || !loadProfile(file, out.profile, error)) return Status{error};
    out.params = ParamSet{};
    // The device's own defaults first: the profile's values and the overrides go on top.
    if (defaults)
        if (auto st = out.params.set(defaults(device.empty() ? out.profile.device : device));
            !st.ok())
            return st;
    if (auto st = out.params.set(out.profile.values); !st.ok())
        return Status{"profile " + file.string() + ": " + st.error};
    if (auto st = out.params.set(overrides); !st.ok()) return Status{"--set: " + st.error};
    return {};
}

} // namespace ringlab
