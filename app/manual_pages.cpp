// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/manual_pages.h"
#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/man_page.h"
#include "engine/version.h"

namespace ringlab {

namespace {
ManPage common(const CliCommand &cli)
{
    ManPage p;
    p.program = cli.name;
    p.version = std::string("ringlab ") + RINGLAB_VERSION;
    p.date = RINGLAB_RELEASE_DATE;
    p.cli = cli;
    return p;
}

ManSection files()
{
    return {"FILES",
            {},
            {{"\\fI$XDG_DATA_HOME/ringlab/sessions.db\\fR",
              "The session database (~/.local/share/ringlab/sessions.db when XDG_DATA_HOME is "
              "not set): every recorded run, its samples, changes and events (SQLite)."},
             {"\\fI/usr/share/ringlab/profiles/*.json\\fR",
              "The profiles shipped: a name, a description, a device and tunable values. A "
              "profile is named by its file name without .json, or given as a path."}},
            {}};
}

ManSection environment()
{
    return {"ENVIRONMENT",
            {},
            {{"\\fBRINGLAB_PROFILE_DIR\\fR",
              "A directory searched for profiles before the installed ones."},
             {"\\fBXDG_DATA_HOME\\fR", "Where the session database lives (see FILES)."},
             {"\\fBXDG_RUNTIME_DIR\\fR",
              "Where the engine's API socket lives: $XDG_RUNTIME_DIR/ringlab/engine.sock."},
             {"\\fBRINGLAB_DPDK_LOG\\fR", "Set to 1 to let DPDK's own log through."}},
            {}};
}

ManSection seeAlso(const char *other)
{
    return {"SEE ALSO", {std::string(other) + "(1), iperf3(1), ping(8), dpdk-testpmd(1)"}, {}, {}};
}
} // namespace

std::string engineManual(const CliCommand &cli)
{
    ManPage p = common(cli);
    p.summary = "drive a NIC datapath, tune it live, measure what it costs";
    p.description = {
        "ringlab-engine is the Ringlab engine without a window: it runs a NIC driver's host side "
        "(RX refill, polling, TX completion coalescing, stage hand-off) on a simulated NIC, on "
        "DPDK ports or on a one-machine lab that real ping and iperf3 traffic crosses, prints "
        "a sample of throughput, CPU time and wakeups per thread, latency and drops every "
        "interval, and records every run as a session.",
        "Tunables are changed before a run with --set and during one on standard input (type "
        "help). Sweeps, tunes and reproductions of the reference cases are runs of the same "
        "engine, one measurement at a time. serve offers the engine to the desktop workbench, "
        "ringlab(1), and to scripts over HTTP on a Unix socket or TCP."};
    p.sections = {
        tunablesSection(),
        files(),
        environment(),
        {"EXIT STATUS",
         {},
         {{"0", "Success; also --help, --version."},
          {"1", "A run, device or database failed, or a recording lost samples."},
          {"2", "Bad input: an unknown command, option, profile or tunable, a value outside "
                "what is allowed, a device that needs root. The message names the thing, the "
                "value and what is allowed."}},
         {}},
        seeAlso("ringlab")};
    return renderManPage(p);
}

std::string desktopManual(const CliCommand &cli)
{
    ManPage p = common(cli);
    p.summary = "the Ringlab workbench: tune a NIC driver's host side live";
    p.description = {
        "ringlab is the desktop workbench of Ringlab. Pick a device and a profile, press Start, "
        "and move the knobs while charts show throughput, CPU time and wakeups per thread, "
        "latency and drops; every run is recorded as a session to compare, export and repeat. "
        "It runs the engine in its own process, or drives one that ringlab-engine serve offers "
        "(--connect).",
        "ringlab render draws a recorded session's charts to a PNG or SVG file without a "
        "window."};
    p.sections = {files(), environment(), seeAlso("ringlab-engine")};
    return renderManPage(p);
}

Subcommand addManualCommand(CLI::App &app)
{
    auto *manual = app.add_subcommand("manual", "Print the manual page (roff)")->group("");
    return {manual, [&app] {
                std::fputs(engineManual(describeCli(app)).c_str(), stdout);
                return 0;
            }};
}

} // namespace ringlab
