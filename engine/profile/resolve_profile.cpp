// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/profile/resolve_profile.h"

namespace ringlab {

Status resolveProfile(const std::string &nameOrPath, const Assignments &overrides,
                      ResolvedProfile &out, const std::string &device,
                      const DeviceDefaultsFn &defaults)
{
    const auto found = findProfile(nameOrPath);
    if (!found.ok()) return found.status();
    const std::filesystem::path &file = found.value();
    auto loaded = loadProfile(file);
    if (!loaded.ok()) return loaded.status();
    out.profile = std::move(loaded).value();
    out.params = ParamSet{};
    // The device's own defaults first: the profile's values and the overrides go on top.
    if (defaults)
        if (auto st = out.params.set(defaults(device.empty() ? out.profile.device : device));
            !st.ok())
            return st;
    if (auto st = out.params.set(out.profile.values); !st.ok())
        return st.within("profile " + file.string() + ": ");
    if (auto st = out.params.set(overrides); !st.ok()) return st.within("--set: ");
    return {};
}

} // namespace ringlab
