// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/devices_command.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/params_printer.h"
#include "drivers/registry.h"

namespace ringlab {

int devicesCommand(bool json)
{
    const auto devices = listDevices();
    if (json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto &d : devices) {
            nlohmann::json sup = nlohmann::json::array();
            for (const auto &s : d.support)
                sup.push_back({{"tunable", info(s.id).name},
                               {"support", supportName(s.support)},
                               {"reason", s.reason}});
            arr.push_back({{"spec", d.spec},
                           {"kind", d.kind},
                           {"driver", d.driver},
                           {"description", d.description},
                           {"link", d.link},
                           {"rx_interrupts", d.rxInterrupts},
                           {"available", d.available},
                           {"unavailable_why", d.unavailableWhy},
                           {"support", sup}});
        }
        std::printf("%s\n", arr.dump(2).c_str());
        return 0;
    }
    for (const auto &d : devices) {
        std::printf("%-46s %-13s %-14s %s\n", d.spec.c_str(), d.kind.c_str(), d.driver.c_str(),
                    d.available ? (d.link.empty() ? "available" : ("link " + d.link).c_str())
                                : ("unavailable: " + d.unavailableWhy).c_str());
        std::printf("    %s%s\n", d.description.c_str(),
                    d.rxInterrupts ? "; RX interrupts (poll.mode=interrupt)" : "");
        for (const auto &s : d.support)
            std::printf("    %-20s %-8s %s\n", std::string(info(s.id).name).c_str(),
                        std::string(supportName(s.support)).c_str(), s.reason.c_str());
    }
    return 0;
}

} // namespace ringlab
