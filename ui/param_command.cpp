// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/param_command.h"

#include "ui/engine_controller.h"

namespace ringlab::ui {

ParamCommand::ParamCommand(EngineController *ctl, Assignments before, Assignments after)
    : ctl_(ctl), before_(std::move(before)), after_(std::move(after))
{
    QStringList parts;
    for (const auto &[name, value] : after_)
        parts << QString::fromStdString(name + " = " + value);
    setText(parts.join(QStringLiteral(", ")));
}

void ParamCommand::undo()
{
    const Status st = ctl_->apply(before_, QStringLiteral("gui"));
    if (!st.ok()) setObsolete(true); // the values no longer fit together; drop it
}

void ParamCommand::redo()
{
    if (applied_) {
        applied_ = false;
        return;
    }
    const Status st = ctl_->apply(after_, QStringLiteral("gui"));
    if (!st.ok()) setObsolete(true);
}

} // namespace ringlab::ui
