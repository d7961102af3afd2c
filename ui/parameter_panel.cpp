// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/parameter_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QUndoStack>
#include <QVBoxLayout>
#include <cmath>

#include "ui/engine_controller.h"
#include "ui/param_command.h"

namespace ringlab::ui {

namespace {
// A slider over a wide range moves logarithmically: 0..1000 steps from min to max.
bool wide(const TunableInfo &t)
{
    return t.type == Type::Integer && t.minWord.empty() && t.max - std::max(t.min, 1.0) >= 1000;
}
int toSlider(const TunableInfo &t, double v)
{
    const double lo = std::log(std::max(t.min, 1.0)), hi = std::log(t.max);
    return static_cast<int>(std::lround((std::log(std::max(v, 1.0)) - lo) / (hi - lo) * 1000));
}
double fromSlider(const TunableInfo &t, int pos)
{
    if (pos <= 0) return t.min; // the bottom end is the minimum, 0 included
    const double lo = std::log(std::max(t.min, 1.0)), hi = std::log(t.max);
    return std::round(std::exp(lo + (hi - lo) * pos / 1000.0));
}
} // namespace

ParameterPanel::ParameterPanel(EngineController *ctl, QUndoStack *undo, QWidget *parent)
    : QWidget(parent), ctl_(ctl), undo_(undo)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(2, 2, 2, 2);
    jobNote_ = new QLabel(this);
    jobNote_->setWordWrap(true);
    jobNote_->setStyleSheet(QStringLiteral("QLabel { background: #fff4e5; padding: 4px; }"));
    jobNote_->hide();
    outer->addWidget(jobNote_);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    auto *inner = new QWidget;
    auto *column = new QVBoxLayout(inner);
    QFormLayout *form = nullptr;
    std::string_view group;
    for (const auto &t : tunables()) {
        if (t.group != group) {
            group = t.group;
            auto *box =
                new QGroupBox(QString::fromUtf8(group.data(), static_cast<int>(group.size())));
            form = new QFormLayout(box);
            form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
            column->addWidget(box);
        }
        const QString name = QString::fromUtf8(t.name.data(), static_cast<int>(t.name.size()));
        auto *label =
            new QLabel(t.apply == Apply::Restart
                           ? name + QStringLiteral(" <span style='color:#b35900'>⟳</span>")
                           : name);
        const QString tip =
            QString::fromStdString(helpText(t)) + QStringLiteral("\n\nAllowed: ") +
            QString::fromStdString(allowedText(t)) +
            (t.apply == Apply::Restart ? tr("\nChanging it while running restarts the datapath.")
                                       : tr("\nApplies live."));
        label->setToolTip(tip);
        QWidget *field = makeControl(t);
        field->setToolTip(tip);
        controls_.value(name)->setToolTip(tip);
        form->addRow(label, field);
        rows_[0].insert(name, label);
        rows_[1].insert(name, field);
        tips_.insert(name, tip);
    }
    column->addStretch(1);
    scroll->setWidget(inner);
    fields_ = inner;
    outer->addWidget(scroll);
    hold_ = new QCheckBox(tr("Hold edits and apply them together"), this);
    hold_->setToolTip(tr("Edits wait, highlighted, until Apply: several tunables change as one "
                         "(one segment), and a pair that must stay ordered can be moved in "
                         "any order. ⟳ tunables always wait while running."));
    outer->addWidget(hold_);
    stagedNote_ = new QLabel(this);
    stagedNote_->setWordWrap(true);
    stagedNote_->hide();
    outer->addWidget(stagedNote_);
    auto *buttons = new QHBoxLayout;
    applyRestart_ = new QPushButton(tr("Apply and restart"), this);
    applyRestart_->setEnabled(false);
    connect(applyRestart_, &QPushButton::clicked, this, &ParameterPanel::applyStaged);
    discard_ = new QPushButton(tr("Discard"), this);
    discard_->setEnabled(false);
    discard_->setToolTip(tr("Forget the held edits; the values in force stay"));
    connect(discard_, &QPushButton::clicked, this, [this] {
        staged_.clear();
        refresh();
    });
    buttons->addWidget(applyRestart_, 1);
    buttons->addWidget(discard_);
    outer->addLayout(buttons);
    connect(hold_, &QCheckBox::toggled, this, [this](bool on) {
        // Held live edits apply when holding ends; held ⟳ edits still wait for Apply.
        if (!on && !staged_.empty() && !heldNeedsRestart()) applyStaged();
        refresh();
    });
    connect(ctl_, &EngineController::paramsChanged, this, &ParameterPanel::refresh);
    connect(ctl_, &EngineController::runStopped, this, [this] {
        // No datapath to restart: restart tunables simply apply; held edits keep waiting.
        if (!staged_.empty() && !hold_->isChecked()) applyStaged();
    });
    refresh();
}

QWidget *ParameterPanel::makeControl(const TunableInfo &t)
{
    const QString name = QString::fromUtf8(t.name.data(), static_cast<int>(t.name.size()));
    const QString unit =
        t.unit.empty() ? QString()
                       : QStringLiteral(" ") +
                             QString::fromUtf8(t.unit.data(), static_cast<int>(t.unit.size()));
    QWidget *input = nullptr;
    QWidget *field = nullptr;
    switch (t.type) {
    case Type::Integer: {
        auto *spin = makeIntegerSpin(t, unit);
        input = spin;
        if (wide(t)) field = withLogSlider(t, name, spin);
        break;
    }
    case Type::Real:
        input = makeRealSpin(t, unit);
        break;
    case Type::Choice: {
        auto *combo = new QComboBox;
        for (auto c : t.choices)
            combo->addItem(QString::fromUtf8(c.data(), static_cast<int>(c.size())));
        connect(combo, &QComboBox::activated, this, [this, &t, combo](int i) {
            edited(t, std::string(t.choices[static_cast<std::size_t>(i)]));
            (void)combo;
        });
        input = combo;
        break;
    }
    case Type::Flag: {
        auto *check = new QCheckBox;
        connect(check, &QCheckBox::clicked, this,
                [this, &t](bool on) { edited(t, on ? "true" : "false"); });
        input = check;
        break;
    }
    }
    input->setObjectName(name);
    controls_.insert(name, input);
    return field ? field : input;
}

QSpinBox *ParameterPanel::makeIntegerSpin(const TunableInfo &t, const QString &unit)
{
    auto *spin = new QSpinBox;
    spin->setRange(static_cast<int>(t.min), static_cast<int>(t.max));
    spin->setSuffix(unit);
    spin->setKeyboardTracking(false);
    spin->setAccelerated(true);
    // "any" for threads.*_cpu: the minimum shown and typed as its word.
    if (!t.minWord.empty())
        spin->setSpecialValueText(
            QString::fromUtf8(t.minWord.data(), static_cast<int>(t.minWord.size())));
    connect(spin, &QSpinBox::editingFinished, this, [this, &t, spin] {
        edited(t, ParamSet::format(t, Value{spin->value(), 0}));
    });
    return spin;
}

QWidget *ParameterPanel::withLogSlider(const TunableInfo &t, const QString &name, QSpinBox *spin)
{
    auto *slider = new QSlider(Qt::Horizontal);
    slider->setRange(0, 1000);
    slider->setObjectName(name + QStringLiteral(".slider"));
    // Dragging shows the value; the change applies where the slider comes to rest
    // (release, a click on the groove, the wheel or the keyboard).
    slider->setTracking(false);
    connect(slider, &QSlider::sliderMoved, spin, [&t, spin](int pos) {
        QSignalBlocker block(spin);
        spin->setValue(static_cast<int>(fromSlider(t, pos)));
    });
    connect(slider, &QSlider::valueChanged, this, [this, &t, spin](int pos) {
        {
            QSignalBlocker block(spin);
            spin->setValue(static_cast<int>(fromSlider(t, pos)));
        }
        edited(t, std::to_string(spin->value()));
    });
    connect(spin, &QSpinBox::valueChanged, slider, [&t, slider](int v) {
        QSignalBlocker block(slider);
        slider->setValue(toSlider(t, v));
    });
    auto *field = new QWidget;
    auto *row = new QHBoxLayout(field);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(spin, 2);
    row->addWidget(slider, 3);
    return field;
}

QDoubleSpinBox *ParameterPanel::makeRealSpin(const TunableInfo &t, const QString &unit)
{
    auto *spin = new QDoubleSpinBox;
    spin->setRange(t.min, t.max);
    spin->setDecimals(1);
    spin->setSuffix(unit);
    spin->setKeyboardTracking(false);
    connect(spin, &QDoubleSpinBox::editingFinished, this, [this, &t, spin] {
        // Leaving the field changes nothing: a value shown rounded (33.33 as 33.3)
        // is not a new value.
        const double now = std::stod(shownValue(t));
        if (std::abs(spin->value() - now) < 0.5 * std::pow(10.0, -spin->decimals())) return;
        edited(t, QString::number(spin->value(), 'g', 10).toStdString());
    });
    return spin;
}

void ParameterPanel::setDeviceSupport(const QString &device,
                                      const std::vector<TunableSupport> &support)
{
    notes_.clear();
    for (const auto &sup : support) {
        const auto &t = info(sup.id);
        const QString name = QString::fromUtf8(t.name.data(), static_cast<int>(t.name.size()));
        notes_.insert(name, (sup.support == Support::Ignored       ? tr("No effect on %1: %2")
                             : sup.support == Support::Unavailable ? tr("Not on %1: %2")
                                                                   : tr("On %1: %2"))
                                .arg(device, QString::fromStdString(sup.reason)));
    }
    for (auto it = tips_.cbegin(); it != tips_.cend(); ++it) {
        const QString &name = it.key();
        const QString note = notes_.value(name);
        const QString tip =
            note.isEmpty() ? it.value() : note + QStringLiteral("\n\n") + it.value();
        bool ignored = false;
        for (const auto &sup : support)
            if (QString::fromUtf8(info(sup.id).name.data(),
                                  static_cast<int>(info(sup.id).name.size())) == name)
                ignored = sup.support == Support::Ignored || sup.support == Support::Unavailable ||
                          (sup.support == Support::Fixed && sup.id == TunableId::RefillContext);
        for (auto *w : {rows_[0].value(name), rows_[1].value(name), controls_.value(name)}) {
            if (!w) continue;
            w->setToolTip(tip);
            w->setEnabled(!ignored);
        }
    }
}

std::string ParameterPanel::shownValue(const TunableInfo &t) const
{
    for (const auto &[n, v] : staged_)
        if (n == t.name) return v;
    return ctl_->params().text(t.id);
}

void ParameterPanel::edited(const TunableInfo &t, const std::string &value)
{
    const ParamSet now = ctl_->params();
    if (value == shownValue(t)) return;
    if (hold_->isChecked() || (t.apply == Apply::Restart && ctl_->isRunning())) {
        // Checked alone now (its type and range); with the others when applied, so that an
        // ordered pair can be moved one side at a time.
        Value v;
        if (const Status st = ParamSet::parse(t, value, v); !st.ok()) {
            emit message(QString::fromStdString(st.error), 8000);
            refresh();
            return;
        }
        std::erase_if(staged_, [&](const auto &a) { return a.first == t.name; });
        if (value != now.text(t.id)) staged_.emplace_back(std::string(t.name), value);
        refresh();
        return;
    }
    const Assignments before = {{std::string(t.name), now.text(t.id)}};
    const Assignments after = {{std::string(t.name), value}};
    const Status st = ctl_->apply(after, QStringLiteral("gui"));
    if (!st.ok()) {
        emit message(QString::fromStdString(st.error), 8000);
        refresh(); // back to the value in force
        return;
    }
    // Applied now: an older held value of it is gone.
    std::erase_if(staged_, [&](const auto &a) { return a.first == t.name; });
    undo_->push(new ParamCommand(ctl_, before, after));
    refresh();
}

void ParameterPanel::applyStaged()
{
    if (staged_.empty()) return;
    const ParamSet now = ctl_->params();
    Assignments before;
    for (const auto &[n, v] : staged_)
        before.emplace_back(n, now.text(findTunable(n)->id));
    const Assignments after = staged_;
    // One change: the engine checks the assignments together and applies all or none.
    const Status st = ctl_->apply(after, QStringLiteral("gui"));
    if (!st.ok()) {
        emit message(QString::fromStdString(st.error), 8000);
        refresh(); // the edits stay held, with the reason
        return;
    }
    staged_.clear();
    undo_->push(new ParamCommand(ctl_, before, after));
    refresh();
}

bool ParameterPanel::heldNeedsRestart() const
{
    if (!ctl_->isRunning()) return false;
    return std::any_of(staged_.begin(), staged_.end(),
                       [](const auto &a) { return findTunable(a.first)->apply == Apply::Restart; });
}

void ParameterPanel::updateStaged()
{
    const bool restart = heldNeedsRestart();
    ParamSet trial = ctl_->params();
    const Status st = staged_.empty() ? Status::success() : trial.set(staged_);
    const int n = static_cast<int>(staged_.size());
    applyRestart_->setText(restart ? tr("Apply %n change(s) and restart", nullptr, n)
                                   : tr("Apply %n change(s)", nullptr, n));
    if (n == 0) applyRestart_->setText(tr("Apply"));
    applyRestart_->setEnabled(n > 0 && st.ok());
    applyRestart_->setToolTip(
        restart ? tr("Apply the held edits as one change: the datapath quiesces, is rebuilt "
                     "and resumes")
                : tr("Apply the held edits as one change"));
    discard_->setEnabled(n > 0);
    stagedNote_->setVisible(n > 0 && !st.ok());
    stagedNote_->setText(st.ok() ? QString()
                                 : QStringLiteral("<span style='color:#c62828'>%1</span>")
                                       .arg(QString::fromStdString(st.error).toHtmlEscaped()));
    // A held value is highlighted until it applies.
    for (auto it = controls_.begin(); it != controls_.end(); ++it) {
        bool held = false;
        for (const auto &[name, v] : staged_)
            held = held || it.key().toStdString() == name;
        if (it.value()->property("held").toBool() == held) continue;
        it.value()->setProperty("held", held);
        it.value()->setStyleSheet(held ? QStringLiteral("background-color: #fff1b8;") : QString());
    }
}

bool ParameterPanel::isHeld(const QString &tunable) const
{
    QWidget *w = controls_.value(tunable);
    return w && w->property("held").toBool();
}

void ParameterPanel::refresh()
{
    updateStaged();
    for (const auto &t : tunables()) {
        QWidget *w =
            controls_.value(QString::fromUtf8(t.name.data(), static_cast<int>(t.name.size())));
        if (!w) continue;
        QSignalBlocker block(w);
        const std::string text = shownValue(t);
        if (auto *spin = qobject_cast<QSpinBox *>(w)) {
            Value v; // "any" is the spin box's minimum
            if (ParamSet::parse(t, text, v).ok()) spin->setValue(static_cast<int>(v.i));
            if (auto *slider = findChild<QSlider *>(w->objectName() + QStringLiteral(".slider"))) {
                QSignalBlocker b2(slider);
                slider->setValue(toSlider(t, static_cast<double>(spin->value())));
            }
        } else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(w)) {
            dspin->setValue(std::stod(text));
        } else if (auto *combo = qobject_cast<QComboBox *>(w)) {
            combo->setCurrentText(QString::fromStdString(text));
        } else if (auto *check = qobject_cast<QCheckBox *>(w)) {
            check->setChecked(text == "true");
        }
    }
}

void ParameterPanel::setMeasuredByJob(const QString &reason)
{
    const bool held = !reason.isEmpty();
    jobNote_->setText(held ? tr("%1. Its points set the tunables, so the panel is read-only "
                                "until it ends.")
                                 .arg(reason)
                           : QString());
    jobNote_->setVisible(held);
    fields_->setEnabled(!held);
    hold_->setEnabled(!held);
}

QString ParameterPanel::jobNote() const
{
    return jobNote_->isVisible() ? jobNote_->text() : QString();
}

} // namespace ringlab::ui
