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
    // The device's own defaults first: the profile's values and the overrides go on top,
    // but for a profile written for another device, whose values for what this device sets
    // itself do not fit it.
    const std::string spec = device.empty() ? out.profile.device : device;
    const Assignments own = defaults ? defaults(spec) : Assignments{};
    if (auto st = out.params.set(own); !st.ok()) return st;
    if (auto st = out.params.set(out.profile.values); !st.ok())
        return st.within("profile " + file.string() + ": ");
    if (defaults && !own.empty() && defaults(out.profile.device) != own)
        if (auto st = out.params.set(own); !st.ok()) return st;
    if (auto st = out.params.set(overrides); !st.ok()) return st.within("--set: ");
    return {};
}

} // namespace ringlab
