// SPDX-License-Identifier: GPL-2.0-or-later
// The parameter panel, generated from the engine's registry: one control per tunable,
// grouped by mechanism, fitted to its type, with the registry's explanation as tooltip.
// Live tunables apply at once; restart tunables wait for "Apply and restart" while running,
// and with "Hold edits" every edit waits, highlighted, to be applied with the others as one.
#pragma once

#include <QHash>
#include <QWidget>

#include <vector>

#include "engine/datapath/device.h"
#include "engine/datapath/tunables.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QUndoStack;

namespace ringlab::ui {

class EngineController;

class ParameterPanel : public QWidget {
    Q_OBJECT
  public:
    ParameterPanel(EngineController *ctl, QUndoStack *undo, QWidget *parent = nullptr);
    // The input widget of a tunable (spin box, combo box or check box); for tests.
    QWidget *control(const QString &tunable) const { return controls_.value(tunable); }
    QPushButton *applyRestartButton() const { return applyRestart_; }
    QCheckBox *holdBox() const { return hold_; }
    bool isHeld(const QString &tunable) const; // edited, waiting to be applied
    int controlCount() const { return static_cast<int>(controls_.size()); }

    // What the chosen device does with each tunable: one it ignores is disabled, and the
    // reason is in every tooltip.
    void setDeviceSupport(const QString &device, const std::vector<TunableSupport> &support);
    // The reason shown for a tunable on the current device, or empty; for tests.
    QString deviceNote(const QString &tunable) const { return notes_.value(tunable); }
    // While a job (sweep, tune, reproduction) measures, its points set the tunables: the panel
    // is read-only and says why (`reason`); empty: editable again.
    void setMeasuredByJob(const QString &reason);
    QString jobNote() const;

  public slots:
    void refresh(); // show the values in force (after undo, a rejected change, a profile)

  signals:
    void message(const QString &text, int timeoutMs);

  private:
    QWidget *makeControl(const TunableInfo &t);
    // makeControl's parts: the spin box of an integer or a real tunable (`unit`: its suffix),
    // and the row of an integer's spin box beside a slider that moves logarithmically.
    QSpinBox *makeIntegerSpin(const TunableInfo &t, const QString &unit);
    QWidget *withLogSlider(const TunableInfo &t, const QString &name, QSpinBox *spin);
    QDoubleSpinBox *makeRealSpin(const TunableInfo &t, const QString &unit);
    void edited(const TunableInfo &t, const std::string &value);
    void applyStaged();
    void updateStaged();
    bool heldNeedsRestart() const; // running, and a held edit is a ⟳ tunable
    std::string shownValue(const TunableInfo &t) const;

    EngineController *ctl_;
    QUndoStack *undo_;
    QHash<QString, QWidget *> controls_;
    QHash<QString, QWidget *> rows_[2]; // label, field
    QHash<QString, QString> tips_;      // the registry's explanation
    QHash<QString, QString> notes_;     // the device's reason, where it has one
    Assignments staged_;
    QPushButton *applyRestart_ = nullptr, *discard_ = nullptr;
    QCheckBox *hold_ = nullptr;
    QLabel *stagedNote_ = nullptr;
    QLabel *jobNote_ = nullptr;
    QWidget *fields_ = nullptr; // every group of controls
};

} // namespace ringlab::ui
