// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/devices_command.h"

#include <cstdio>

#include "drivers/registry.h"
#include "engine/run/catalog_json.h"

namespace ringlab {

int devicesCommand(bool json)
{
    const auto devices = listDevices();
    if (json) {
        std::printf("%s\n", devicesJson(devices).dump(2).c_str());
        return 0;
    }
    for (const auto &d : devices) {
        std::printf("%-46s %-13s %-14s %s\n", d.spec.c_str(), d.kind.c_str(), d.driver.c_str(),
                    d.available ? (d.link.empty() ? "available" : ("link " + d.link).c_str())
                                : ("unavailable: " + d.unavailableWhy).c_str());
        std::printf("    %s%s\n", d.description.c_str(),
                    d.rxInterrupts ? "; RX interrupts (poll.mode=interrupt)" : "");
        // Tunables that share a reason share a line.
        for (std::size_t k = 0; k < d.support.size();) {
            std::string names(info(d.support[k].id).name);
            std::size_t j = k + 1;
            while (j < d.support.size() && d.support[j].reason == d.support[k].reason &&
                   d.support[j].support == d.support[k].support)
                names += ", " + std::string(info(d.support[j++].id).name);
            std::printf("    %s %s: %s\n", names.c_str(),
                        std::string(supportName(d.support[k].support)).c_str(),
                        d.support[k].reason.c_str());
            k = j;
        }
    }
    return 0;
}

} // namespace ringlab
