// SPDX-License-Identifier: GPL-2.0-or-later
// Device specs (--device, a profile's "device") and --eal strings. The first line is the
// spec, the rest the EAL arguments.
#include "drivers/registry.h"
#include "tests/fuzz/fuzz_target.h"

namespace ringlab::fuzz {

int deviceSpec(const std::uint8_t *data, std::size_t size)
{
    const std::string_view in = text(data, size);
    const auto nl = in.find('\n');
    DeviceOptions opts;
    opts.spec = std::string(in.substr(0, nl));
    if (nl != std::string_view::npos) opts.eal = splitEalArgs(std::string(in.substr(nl + 1)));
    DeviceSpec spec;
    const Status st = parseDeviceSpec(opts.spec, spec);
    if (!st.ok() && st.error.empty()) __builtin_trap();
    if (st.ok() && spec.kind == DeviceSpec::Kind::Dpdk && spec.ports.empty()) __builtin_trap();
    // A kernel spec names one interface the kernel could have, and a port.
    if (st.ok() && spec.kind == DeviceSpec::Kind::Kernel &&
        (spec.ports.size() != 1 || spec.ports[0].empty() || spec.ports[0].size() > 15 ||
         spec.udpPort == 0))
        __builtin_trap();
    (void)deviceLabel(opts);
    return 0;
}

} // namespace ringlab::fuzz

RINGLAB_FUZZ_ENTRY(deviceSpec)
