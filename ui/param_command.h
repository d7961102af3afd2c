// SPDX-License-Identifier: GPL-2.0-or-later
// One parameter change as an undoable command (Ctrl+Z / Ctrl+Shift+Z).
#pragma once

#include <QUndoCommand>

#include "engine/datapath/tunables.h"

namespace ringlab::ui {

class EngineController;

class ParamCommand : public QUndoCommand {
  public:
    // `before` and `after` hold the same tunables. The change has already been applied
    // when the command is pushed; the first redo() does nothing.
    ParamCommand(EngineController *ctl, Assignments before, Assignments after);
    void undo() override;
    void redo() override;

  private:
    EngineController *ctl_;
    Assignments before_, after_;
    bool applied_ = true;
};

} // namespace ringlab::ui
