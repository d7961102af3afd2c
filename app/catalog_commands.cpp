// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/catalog_commands.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli_model.h"
#include "app/devices_command.h"
#include "app/params_printer.h"
#include "drivers/registry.h"
#include "engine/common/utf8_text.h"
#include "engine/datapath/live_params.h"
#include "engine/metrics/metric_table.h"
#include "engine/profile/profile.h"

namespace ringlab {
namespace {

struct ParamsWords {
    bool json = false;
    std::string device, eal;
};

int paramsCommand(const ParamsWords &w)
{
    const ParamSet defaults;
    std::vector<TunableSupport> support;
    if (!w.device.empty()) {
        DeviceOptions dev;
        dev.spec = w.device;
        dev.eal = splitEalArgs(w.eal);
        if (auto st = checkDeviceOptions(dev); !st.ok()) {
            std::fprintf(stderr, "ringlab-engine: %s\n", st.error.c_str());
            return 2;
        }
        try {
            const LiveParams live(defaults);
            support = createDevice(dev, defaults, live)->support();
        } catch (const std::exception &e) {
            std::fprintf(stderr, "ringlab-engine: device %s: %s\n", w.device.c_str(), e.what());
            return 1;
        }
    }
    w.json ? printParamsJson(std::cout, defaults, support)
           : printParamsText(std::cout, defaults, support);
    return 0;
}

int profilesCommand(bool namesOnly)
{
    std::vector<std::string> problems;
    const auto found = listProfiles(&problems);
    if (namesOnly) {
        for (const auto &p : found)
            std::printf("%s\n", terminalText(p.name).c_str());
        return 0;
    }
    for (const auto &p : found)
        std::printf("%-22s %s\n%-22s %s\n", terminalText(p.name).c_str(),
                    terminalText(p.description).c_str(), "", p.file.c_str());
    for (const auto &e : problems) // a file the user dropped in, and why it is not listed
        std::fprintf(stderr, "ringlab-engine: skipped %s\n", terminalText(e).c_str());
    return 0;
}

// The metric table as it is: what a session stores, a line holds and a summary names.
int metricsCommand(bool json, bool markdown)
{
    auto direction = [](int better) { return std::string(metricDirection(better)); };
    if (markdown) {
        std::cout << metricsMarkdown();
        return 0;
    }
    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const MetricDef &d : metricTable())
            out.push_back({{"name", d.perThread() ? d.name + "[THREAD]" : d.name},
                           {"unit", d.unit},
                           {"kind", metricKindName(d.kind)},
                           {"better", direction(d.better)},
                           {"label", d.label},
                           {"line", d.line.empty()  ? nlohmann::json()
                                    : d.perThread() ? nlohmann::json("cpu.threads[]." + d.line)
                                                    : nlohmann::json(d.line)}});
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%-28s %-12s %-11s %-17s %-34s %s\n", "metric", "unit", "kind", "better",
                "in a sample line", "label");
    for (const MetricDef &d : metricTable()) {
        const std::string name = d.perThread() ? d.name + "[THREAD]" : d.name;
        const std::string line = d.line.empty()  ? "(derived)"
                                 : d.perThread() ? "cpu.threads[]." + d.line
                                                 : d.line;
        std::printf("%-28s %-12s %-11s %-17s %-34s %s\n", name.c_str(), d.unit.c_str(),
                    std::string(metricKindName(d.kind)).c_str(), direction(d.better).c_str(),
                    line.c_str(), d.label.c_str());
    }
    return 0;
}

} // namespace

Subcommand addMetricsCommand(CLI::App &app)
{
    auto json = std::make_shared<bool>(false);
    auto markdown = std::make_shared<bool>(false);
    auto *metrics = app.add_subcommand(
        "metrics",
        "List every metric: unit, kind, which way is better, where a sample line has it");
    metrics->add_flag("--json", *json, "Print as JSON");
    metrics->add_flag("--markdown", *markdown, "Print docs/metrics.md, with what each measures")
        ->excludes("--json");
    return {metrics, [json, markdown] { return metricsCommand(*json, *markdown); }};
}

Subcommand addParamsCommand(CLI::App &app)
{
    auto w = std::make_shared<ParamsWords>();
    auto *params = app.add_subcommand(
        "params", "List every tunable: type, unit, range, default, live or restart, explanation");
    params->add_flag("--json", w->json, "Print as JSON");
    params
        ->add_option("--device", w->device,
                     "Also say what this device does with each tunable (e.g. dpdk:net_null0)")
        ->type_name(kValueDevice);
    params->add_option("--eal", w->eal, "EAL arguments for a DPDK device");
    return {params, [w] { return paramsCommand(*w); }};
}

Subcommand addProfilesCommand(CLI::App &app)
{
    auto names = std::make_shared<bool>(false);
    auto *profiles = app.add_subcommand("profiles", "List the profiles found and where");
    profiles->add_flag("--names", *names, "Print only the names, one per line");
    return {profiles, [names] { return profilesCommand(*names); }};
}

Subcommand addDevicesCommand(CLI::App &app)
{
    auto json = std::make_shared<bool>(false);
    auto *devices = app.add_subcommand(
        "devices", "List the devices: sim, the lab, DPDK ports (driver, link, what each supports)");
    devices->add_flag("--json", *json, "Print as JSON");
    return {devices, [json] { return devicesCommand(*json); }};
}

} // namespace ringlab
