// SPDX-License-Identifier: GPL-2.0-or-later
// The window's device picking: the engine's devices listed off the GUI thread, a row
// described, chosen (with its defaults), and the lab's traffic field.
#include "ui/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "drivers/registry.h"
#include "engine/datapath/clock.h"
#include "engine/profile/resolve_profile.h"
#include "ui/chart_export.h"
#include "ui/charts_view.h"
#include "ui/compare_dialog.h"
#include "ui/connect_dialog.h"
#include "ui/connection_notice.h"
#include "ui/engine_controller.h"
#include "ui/image_export_dialog.h"
#include "ui/name_only_icon_provider.h"
#include "ui/param_command.h"
#include "ui/parameter_panel.h"
#include "ui/reproduce_dialog.h"
#include "ui/segment_model.h"
#include "ui/segment_table.h"
#include "ui/session_charts.h"
#include "ui/session_list_model.h"
#include "ui/sessions_panel.h"
#include "ui/sweep_tab.h"

namespace ringlab::ui {

void MainWindow::setLabTraffic(const QString &spec)
{
    trafficBox_->setEditText(spec); // checked and applied by onTrafficEdited
    onTrafficEdited(spec);          // also when the text was already there
}

void MainWindow::onTrafficEdited(const QString &text)
{
    labTraffic_ = text.trimmed();
    const Status st =
        labTraffic_.isEmpty() ? Status::success() : checkTraffic(labTraffic_.toStdString());
    trafficError_->setText(QString::fromStdString(st.error));
    trafficError_->setToolTip(QString::fromStdString(st.error));
    if (takesTraffic(ctl_->device().spec) && !ctl_->isRunning()) {
        DeviceOptions dev = ctl_->device();
        dev.traffic = labTraffic_.toStdString(); // a refused one is refused again by Start
        ctl_->setDevice(dev);
    }
}

void MainWindow::updateTrafficField()
{
    QString why;
    if (ctl_->remote())
        why = tr("The lab's traffic goes with runs of the engine in this process; an attached "
                 "engine's lab runs what it was served with");
    else if (ctl_->isRunning())
        why = tr("Stop the run to change the lab's traffic");
    else if (!takesTraffic(ctl_->device().spec))
        why = tr("Only the lab devices run a traffic client (the lab and the kernel lab, "
                 "across their namespaces); %1 carries the engine's own load")
                  .arg(ctl_->deviceName());
    trafficBox_->setEnabled(why.isEmpty());
    trafficBox_->setToolTip(why.isEmpty()
                                ? tr("The lab's traffic client, checked as ringlab --traffic "
                                     "checks it: ping or iperf3 with their options (the lab "
                                     "chooses the destination); empty: none")
                                : why);
}

void MainWindow::fillDeviceBox()
{
    const int ticket = ++devicesTicket_;
    if (!ctl_->remote()) {
        // Listed without attaching DPDK's ports: the EAL starts when one is chosen
        // (describeDevice in chooseDevice), never at start-up.
        deviceBox_->setEnabled(true);
        devicesListed_ = true;
        deviceBox_->setToolTip(tr("The devices of this machine"));
        showDevices(listDevices({}, DeviceProbe::Later), false);
        return;
    }
    // An attached engine's devices are its host's, never this one's: asked for, and until
    // the answer only the device the window holds, the box greyed with the reason.
    DeviceListing current;
    current.spec = ctl_->device().spec;
    current.kind = "custom";
    showDevices({current}, true);
    deviceBox_->setEnabled(false);
    deviceBox_->setToolTip(tr("Asking the engine for its devices…"));
    devicesListed_ = false;
    // The window may be gone when the answer comes (a link's reply outlives a detach).
    ctl_->engineDevices(
        [self = QPointer<MainWindow>(this), ticket](Result<std::vector<DeviceListing>> rows) {
            if (!self || ticket != self->devicesTicket_) return; // gone, or another engine since
            self->devicesAnswered(std::move(rows));
        });
}

void MainWindow::devicesAnswered(Result<std::vector<DeviceListing>> rows)
{
    deviceBox_->setEnabled(true);
    if (!rows.ok()) {
        const QString why = tr("The engine's devices could not be listed: %1")
                                .arg(QString::fromStdString(rows.error()));
        deviceBox_->setToolTip(why);
        statusBar()->showMessage(why, 8000);
        return;
    }
    deviceBox_->setToolTip(tr("The devices of %1").arg(ctl_->engineText()));
    devicesListed_ = true;
    showDevices(std::move(rows).value(), true);
}

void MainWindow::showDevices(std::vector<DeviceListing> rows, bool described)
{
    devices_ = std::move(rows);
    described_.clear(); // another engine's rows, or this process's again
    if (described)
        for (const auto &d : devices_)
            described_.insert(d.spec);
    deviceBox_->clear();
    for (const auto &d : devices_) {
        QString label = QString::fromStdString(d.spec);
        if (d.kind == "simulated") label = tr("Simulated NIC (sim)");
        if (d.kind == "lab") label = tr("Lab: TAP ports in namespaces (lab)");
        if (d.kind == "kernel lab") label = tr("Kernel lab: NAPI on a veth pair (kernel-lab)");
        deviceBox_->addItem(label, QString::fromStdString(d.spec));
        showDeviceRow(deviceBox_->count() - 1);
    }
    deviceBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    // The device the window holds stays chosen, a row of its own when the list lacks it (a
    // port of another host's): the box never shows a device the next start would not use.
    const QString heldSpec = QString::fromStdString(ctl_->device().spec);
    int held = deviceBox_->findData(heldSpec);
    if (held < 0) {
        DeviceListing custom;
        custom.spec = ctl_->device().spec;
        custom.kind = "custom";
        devices_.push_back(custom);
        deviceBox_->addItem(heldSpec, heldSpec);
        held = deviceBox_->count() - 1;
        showDeviceRow(held);
    }
    deviceBox_->setCurrentIndex(held);
}

void MainWindow::showDeviceRow(int i)
{
    const DeviceListing &d = devices_[static_cast<std::size_t>(i)];
    QString tip = QString::fromStdString(d.kind + " · " + d.driver + ": " + d.description);
    if (!d.link.empty()) tip += tr("\nLink: %1").arg(QString::fromStdString(d.link));
    if (!d.available) {
        tip += tr("\nUnavailable: %1").arg(QString::fromStdString(d.unavailableWhy));
        // Greyed out, not hidden: the user sees what a privileged run would offer.
        if (auto *model = qobject_cast<QStandardItemModel *>(deviceBox_->model()))
            model->item(i)->setEnabled(false);
    }
    deviceBox_->setItemData(i, tip, Qt::ToolTipRole);
}

void MainWindow::chooseDevice(int index)
{
    if (index < 0 || index >= static_cast<int>(devices_.size())) return;
    DeviceListing &row = devices_[static_cast<std::size_t>(index)];
    if (!described_.contains(row.spec) && !ctl_->isRunning()) {
        // Chosen: now its ports are attached once to read their link and support.
        row = describeDevice(row);
        described_.insert(row.spec);
        if (index < deviceBox_->count()) showDeviceRow(index);
    }
    const DeviceListing &d = row;
    if (ctl_->isRunning()) {
        statusBar()->showMessage(tr("Stop the run to change the device"), 5000);
        selectDevice(ctl_->device().spec);
        return;
    }
    DeviceOptions dev = ctl_->device();
    const std::string previous = dev.spec;
    dev.spec = d.spec;
    // The lab's traffic goes with the lab only: another device would refuse it.
    dev.traffic = takesTraffic(d.spec) ? labTraffic_.toStdString() : std::string();
    ctl_->setDevice(dev);
    if (previous != d.spec) takeDeviceDefaults(previous, d.spec);
    if (params_) params_->setDeviceSupport(QString::fromStdString(d.spec), d.support);
    updateStatus();
}

void MainWindow::takeDeviceDefaults(const std::string &from, const std::string &to)
{
    // What a device sets itself (the kernel lab's request rate, a port's TX coalescing)
    // follows the device, as `ringlab-engine run` resolves it: the loaded profile resolved
    // for the new device gives those knobs, and every other knob stays as the user left it.
    const QString path = ctl_->profilePath().isEmpty() ? ctl_->profileName() : ctl_->profilePath();
    ResolvedProfile resolved;
    if (!resolveProfile(path.toStdString(), {}, resolved, to, deviceDefaults).ok()) return;
    Assignments own = deviceDefaults(to), changes;
    for (const auto &a : deviceDefaults(from))
        own.push_back(a);
    const ParamSet now = ctl_->params();
    QStringList said;
    for (const auto &a : own) {
        const std::string &name = a.first;
        const TunableInfo *t = findTunable(name);
        if (!t || now.text(t->id) == resolved.params.text(t->id)) continue;
        if (std::any_of(changes.begin(), changes.end(),
                        [&name](const auto &c) { return c.first == name; }))
            continue;
        changes.emplace_back(name, resolved.params.text(t->id));
        said << QString::fromStdString(name + " " + resolved.params.text(t->id));
    }
    if (changes.empty()) return;
    if (const Status st = ctl_->apply(changes, QStringLiteral("device")); !st.ok()) {
        statusBar()->showMessage(
            tr("%1's own settings were not taken: %2")
                .arg(QString::fromStdString(to), QString::fromStdString(st.error)),
            8000);
        return;
    }
    statusBar()->showMessage(tr("%1 starts from its own %2")
                                 .arg(QString::fromStdString(to), said.join(QStringLiteral(", "))),
                             8000);
}

bool MainWindow::selectDevice(const std::string &spec)
{
    for (int i = 0; i < deviceBox_->count(); ++i)
        if (deviceBox_->itemData(i).toString().toStdString() == spec) {
            deviceBox_->setCurrentIndex(i);
            chooseDevice(i);
            return true;
        }
    // A spec not in the list (a PCI port, a vdev with arguments): add it.
    DeviceListing custom;
    custom.spec = spec;
    custom.kind = "custom";
    devices_.push_back(custom);
    deviceBox_->addItem(QString::fromStdString(spec), QString::fromStdString(spec));
    deviceBox_->setCurrentIndex(deviceBox_->count() - 1);
    chooseDevice(deviceBox_->count() - 1);
    return false;
}

} // namespace ringlab::ui
