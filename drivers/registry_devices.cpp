// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/registry_devices.h"

#include "drivers/registry.h"

namespace ringlab {

namespace {
class RegistryDevices final : public DeviceProvider {
  public:
    Status check(const DeviceOptions &opts) const override { return checkDeviceOptions(opts); }
    DeviceFactory factory(const DeviceOptions &opts) const override { return deviceFactory(opts); }
    Assignments defaults(const std::string &spec) const override { return deviceDefaults(spec); }
    std::string grant(const std::string &spec, std::string *why) const override
    {
        return deviceGrant(spec, why);
    }
    bool usesEal(const std::string &spec) const override
    {
        DeviceSpec parsed;
        return parseDeviceSpec(spec, parsed).ok() &&
               (parsed.kind == DeviceSpec::Kind::Dpdk || parsed.kind == DeviceSpec::Kind::Lab);
    }
    std::vector<DeviceListing> list(const std::vector<std::string> &eal) const override
    {
        return listDevices(eal);
    }
};
} // namespace

const DeviceProvider &registryDevices()
{
    static const RegistryDevices devices;
    return devices;
}

} // namespace ringlab
