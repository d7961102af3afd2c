// SPDX-License-Identifier: GPL-2.0-or-later
// Standard input as `run` reads it: bytes cut into lines (in chunks of any size, the first
// byte choosing it), each executed as a command on a run on the simulated NIC, through the
// run service as `run` does. Replies go to /dev/null.
#include <cstdio>
#include <memory>

#include "app/console_commands.h"
#include "app/line_splitter.h"
#include "drivers/registry_devices.h"
#include "tests/fuzz/fuzz_target.h"

namespace ringlab::fuzz {

int console(const std::uint8_t *data, std::size_t size)
{
    static std::FILE *devNull = std::fopen("/dev/null", "w");
    // The console changes a run through the run service, so the run is going (unrecorded, on
    // the simulated NIC).
    // the simulated NIC), stopped at exit.
    static RunService service(registryDevices());
    static const bool started = service.start(RunSetup{}, nullptr).ok();
    if (!started) __builtin_trap();
    static SamplePrinter printer(OutputFormat::Table, devNull, 1.0);
    if (size == 0) return 0;
    const std::size_t chunk = 1 + data[0] % 64;
    std::string_view in = text(data + 1, size - 1);
    LineSplitter split;
    std::vector<std::string> lines, errors;
    for (std::size_t k = 0; k < in.size(); k += chunk)
        split.feed(in.substr(k, chunk), lines, errors);
    split.finish(lines);
    ConsoleCommands commands(service, printer, "fuzz", devNull);
    for (const auto &line : lines) {
        if (line.size() > LineSplitter::kMaxLine) __builtin_trap();
        if (!commands.execute(line)) break; // quit
    }
    return 0;
}

} // namespace ringlab::fuzz

RINGLAB_FUZZ_ENTRY(console)
