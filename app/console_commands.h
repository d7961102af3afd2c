// SPDX-License-Identifier: GPL-2.0-or-later
// The live prompt on standard input, as testpmd's: set, show, mark, help, quit. Replies go
// to standard error so that standard output stays a clean stream of samples.
#pragma once

#include <cstdio>
#include <string>

#include "app/sample_printer.h"
#include "engine/datapath/engine.h"

namespace ringlab {

class ConsoleCommands {
  public:
    ConsoleCommands(Engine &engine, SamplePrinter &printer, std::string source, std::FILE *reply)
        : engine_(engine), printer_(printer), source_(std::move(source)), reply_(reply)
    {
    }
    // Executes one line. Returns false when the line asks to quit.
    bool execute(const std::string &line);

  private:
    void show(const std::string &what);
    Engine &engine_;
    SamplePrinter &printer_;
    std::string source_;
    std::FILE *reply_;
};

} // namespace ringlab
