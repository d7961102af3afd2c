// SPDX-License-Identifier: GPL-2.0-or-later
// The live prompt on standard input, as testpmd's: set, show, mark, help, quit. Replies go
// to standard error so that standard output stays a clean stream of samples.
#pragma once

#include <cstdio>
#include <string>

#include "app/sample_printer.h"
#include "engine/run/run_service.h"

namespace ringlab {

class ConsoleCommands {
  public:
    // Changes go through the run service, as the API's and the desktop's do: a restart that
    // fails twice ends the run there, and its session `failed`.
    ConsoleCommands(RunService &service, SamplePrinter &printer, std::string source,
                    std::FILE *reply)
        : service_(service), printer_(printer), source_(std::move(source)), reply_(reply)
    {
    }
    // Executes one line. Returns false when the line asks to quit, or when the run it
    // controls has ended (runEnded()).
    bool execute(const std::string &line);
    // A change ended the run (a restart whose new and previous settings both failed).
    bool runEnded() const { return !service_.running(); }

  private:
    void show(const std::string &what);
    RunService &service_;
    SamplePrinter &printer_;
    std::string source_;
    std::FILE *reply_;
};

} // namespace ringlab
