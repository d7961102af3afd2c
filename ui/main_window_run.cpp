// SPDX-License-Identifier: GPL-2.0-or-later
// The window's run: start (with its fallback), stop, attaching to an engine, following the
// samples and events, and the status bar that says what the engine is doing.
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

void MainWindow::clearForNewRun()
{
    shownSession_ = 0;
    if (opening_) statusBar()->clearMessage(); // "Opening session N…" is not going to happen
    opening_ = false;
    ++openTicket_; // a session still being read is not shown over the run
    charts_->clear();
    live_.clear();
    liveChanges_.clear();
    segments_->setSession({}, {});
    guiCpu_.clear();
    runDrops_ = 0;
    lastDropT_ = -1;
    dropsLabel_->clear();
}

bool MainWindow::startRun()
{
    if (const MeasurementHold hold = measurementHold(); hold.held()) {
        if (hold.kind == MeasurementHold::Kind::Run) return true; // already going
        statusBar()->showMessage(hold.blockedReason(), 8000);
        return false;
    }
    clearForNewRun();
    if (const Status st = ctl_->start(); !st.ok()) {
        const QString error = errorText(st);
        if (headless_ || ctl_->device().spec == "sim") {
            if (headless_)
                std::fprintf(stderr, "ringlab: cannot start: %s\n", qPrintable(error));
            else
                QMessageBox::warning(this, tr("Cannot start"), error);
            return false;
        }
        // A real device failed: say why, and offer the simulated NIC.
        QMessageBox box(QMessageBox::Warning, tr("Cannot start on %1").arg(ctl_->deviceName()),
                        error, QMessageBox::Cancel, this);
        auto *useSim = box.addButton(tr("Use the simulated NIC"), QMessageBox::AcceptRole);
        box.exec();
        if (box.clickedButton() != useSim) return false;
        selectDevice("sim");
        return startRun();
    }
    // The device in use says what it does with each tunable (a custom spec is only known now).
    params_->setDeviceSupport(ctl_->deviceName(), ctl_->deviceSupport());
    segmentTimer_->start();
    updateStatus();
    return true;
}

void MainWindow::chooseEngine(const QUrl &address)
{
    ConnectDialog d(this);
    if (address.isValid()) d.setAddress(address);
    if (d.exec() != QDialog::Accepted) return;
    if (const Status st = connectToEngine(d.url(), d.token()); !st.ok())
        QMessageBox::warning(this, tr("Cannot connect"), errorText(st));
}

Status MainWindow::connectToEngine(const QUrl &url, const QByteArray &token)
{
    if (ctl_->isRunning() && !ctl_->remote())
        return refusedBecause(tr("Stop the run in this process first"));
    if (Status st = ctl_->attach(url, token); !st.ok()) return st;
    clearForNewRun(); // what was shown was this process's (or another engine's)
    fillDeviceBox();  // the engine's devices, not this host's
    ConnectDialog::remember(url);
    connectionProblem_.clear();
    updateStatus();
    sessions_->reload(); // the engine's sessions
    return Status::success();
}

void MainWindow::stopRun()
{
    segmentTimer_->stop();
    ctl_->stop();
    updateStatus();
}

void MainWindow::addGuiThreadCpu(double t)
{
    // This thread is the GUI thread: its CPU over the last second of the run's time.
    if (const auto msPerS = guiCpu_.add(t, threadCpuNs())) charts_->addGuiThreadCpu(t, *msPerS);
}

void MainWindow::onSamples(const std::vector<SamplePtr> &batch)
{
    if (batch.empty()) return;
    // Every sample of the batch counts, not only the last: a burst between two batches
    // stays said until the run ends.
    for (const auto &s : batch)
        if (const double d = s->dropsPerS(); d > 0) {
            runDrops_ += d * std::max(0.0, s->interval);
            lastDropT_ = s->t;
        }
    const double now = batch.back()->dropsPerS();
    const QString total = QLocale().toString(std::llround(runDrops_));
    QString text;
    if (now > 0)
        text = tr("⚠ dropping %1 frames/s · %2 dropped in this run")
                   .arg(QLocale().toString(now, 'f', 0), total);
    else if (lastDropT_ >= 0)
        text = tr("⚠ %1 frames dropped in this run, the last at %2 s")
                   .arg(total, QLocale().toString(lastDropT_, 'f', 1));
    dropsLabel_->setText(
        text.isEmpty()
            ? QString()
            : QStringLiteral("<span style='color:#c62828'>%1</span>").arg(text.toHtmlEscaped()));
}

void MainWindow::onEvent(const ringlab::Event &e)
{
    if (shownSession_) return;
    addEventMarker(*charts_, e);
    if (e.kind == "param") {
        liveChanges_.push_back({e.t, e.tunable, e.before, e.after, e.source});
        refreshSegments();
    } else if (e.kind == "warning") {
        statusBar()->showMessage(QString::fromStdString(e.message), 10000);
    }
}

void MainWindow::refreshSegments()
{
    if (shownSession_) return;
    segments_->followLive(live_.table(), liveChanges_);
}

MeasurementHold MainWindow::measurementHold() const
{
    if (ctl_->isRunning()) {
        MeasurementHold run;
        run.kind = MeasurementHold::Kind::Run;
        run.since = ctl_->runStartedAt();
        if (ctl_->remote()) run.where = tr("on %1").arg(ctl_->engineText());
        return run;
    }
    return ctl_->jobHold(); // a sweep, tune or reproduction: whoever started it
}

QString MainWindow::contactLostText() const
{
    if (!ctl_->remote() || ctl_->connected()) return {};
    QString text =
        tr("Contact lost with %1: %2.")
            .arg(ctl_->engineText(),
                 connectionProblem_.isEmpty() ? tr("its stream ended") : connectionProblem_);
    if (ctl_->isRunning())
        text += tr(" The run that was going there (%1) may go on or may have ended: "
                   "the window cannot tell until it reaches the engine again.")
                    .arg(ctl_->sessionId() ? tr("session %1").arg(ctl_->sessionId())
                                           : tr("not recorded"));
    return text + tr(" Trying again every %1 s; Reconnect tries now and reads back the "
                     "engine's state.")
                      .arg(RemoteLink::kRetryMs / 1000);
}

void MainWindow::updateStatus()
{
    const bool running = ctl_->isRunning();
    const QString lost = contactLostText();
    const bool driving = ctl_->controlling() && (!ctl_->remote() || ctl_->connected());
    const MeasurementHold hold = measurementHold();
    const QString noContact = tr("No contact with the engine: Reconnect first");
    start_->setEnabled(!hold.held() && driving);
    // A job measures its own values: nothing the window holds can change them meanwhile (the
    // panel, a profile, undo and redo), and each says why.
    const QString jobReason =
        hold.held() && hold.kind != MeasurementHold::Kind::Run ? hold.blockedReason() : QString();
    if (params_) params_->setMeasuredByJob(jobReason);
    profileBox_->setEnabled(jobReason.isEmpty());
    undoAct_->setEnabled(jobReason.isEmpty() && undo_->canUndo());
    redoAct_->setEnabled(jobReason.isEmpty() && undo_->canRedo());
    start_->setToolTip(!lost.isEmpty() ? noContact
                       : hold.held()   ? hold.blockedReason()
                                       : tr("Start a run (Ctrl+R, F5)"));
    stop_->setEnabled(running && driving);
    stop_->setToolTip(!lost.isEmpty()
                          ? noContact
                          : tr("Stop the run; its session ends as completed (Ctrl+., Shift+F5)"));
    takeControl_->setVisible(ctl_->remote());
    takeControl_->setEnabled(running && !ctl_->controlling() && ctl_->connected());
    reconnect_->setVisible(ctl_->remote());
    reconnect_->setEnabled(!lost.isEmpty());
    connectionNotice_->setNotice(lost);
    if (!ctl_->remote())
        engineLabel_->setText(tr("engine: this process"));
    else if (!lost.isEmpty())
        engineLabel_->setText(tr("<b style='color:#b00020'>contact lost</b> with the engine"));
    else
        engineLabel_->setText(tr("engine: %1%2")
                                  .arg(ctl_->engineText(), running && !ctl_->controlling()
                                                               ? tr(" · watching")
                                                               : QString()));
    // The whole of it, also where the status bar has no room.
    engineLabel_->setToolTip(!lost.isEmpty() ? lost : ctl_->engineText());
    record_->setEnabled(!running);
    if (shownSession_) {
        const QSignalBlocker quiet(pause_); // unchecked, not unpaused: the view stays whole
        pause_->setChecked(false);
    }
    pause_->setEnabled(!shownSession_);
    mark_->setEnabled(running && driving);
    updateTrafficField();
    profileBox_->setToolTip(!jobReason.isEmpty() ? jobReason
                            : running ? tr("Apply a profile's values to the run as one change")
                                      : tr("Load a profile: its values and its device"));
    QString state;
    if (running && !lost.isEmpty())
        state =
            tr("%1 · contact lost · was running %2%3")
                .arg(ctl_->deviceName(), ctl_->profileName(),
                     ctl_->sessionId() ? tr(" · session %1").arg(ctl_->sessionId()) : QString());
    else if (!lost.isEmpty())
        state = tr("contact lost with the engine");
    else if (running)
        state = tr("%3 · running %1%2")
                    .arg(ctl_->profileName())
                    .arg(ctl_->sessionId() ? tr(" · recording session %1").arg(ctl_->sessionId())
                                           : tr(" · not recording"))
                    .arg(ctl_->deviceName());
    else if (hold.held())
        state = hold.stateLine();
    else if (shownSession_)
        state = tr("%2 · stopped · showing recorded session %1")
                    .arg(shownSession_)
                    .arg(ctl_->deviceName());
    else
        state = tr("%2 · stopped · profile %1").arg(ctl_->profileName(), ctl_->deviceName());
    stateLabel_->setText(state);
    dbLabel_->setText(ctl_->remote() ? tr("sessions: the engine's")
                                     : tr("database: %1").arg(ctl_->databasePath()));
    if (!running && shownSession_) dropsLabel_->clear(); // a stopped run's drops stay said
}

} // namespace ringlab::ui
