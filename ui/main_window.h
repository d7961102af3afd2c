// SPDX-License-Identifier: GPL-2.0-or-later
// The workbench window: toolbar, parameter dock, stacked charts with the segment table
// under them, sessions dock, status bar. Shows the live run, or a recorded session.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/datapath/sample.h"
#include "engine/run/device_provider.h"

#include <QMainWindow>
#include <QPointer>
#include <QUrl>

#include "engine/store/session_report.h"
#include "ui/gui_thread_meter.h"
#include "ui/measurement_hold.h"
#include "ui/session_reader.h"

class QAction;
class QComboBox;
class QLabel;
class QTabWidget;
class QTableView;
class QTimer;
class QUndoStack;

namespace ringlab::ui {

class ChartsView;
class ConnectionNotice;
class ReproduceDialog;
class SweepTab;
class EngineController;
class ParameterPanel;
class SegmentModel;
class SegmentTable;
class SessionsPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
    QString databaseOverride_; // first: the constructor's other members use it

  public:
    // `database`: a session database chosen for this run only (ringlab --db); it is used from
    // the start and not saved in the settings.
    explicit MainWindow(const QString &database = {}, QWidget *parent = nullptr);
    ~MainWindow() override;

    EngineController *controller() const { return ctl_; }
    ChartsView *charts() const { return charts_; }
    ParameterPanel *parameters() const { return params_; }
    SessionsPanel *sessions() const { return sessions_; }
    SegmentModel *segments() const { return segments_; }
    SegmentTable *segmentTable() const { return segmentTable_; }
    QUndoStack *undoStack() const { return undo_; }
    QAction *startAction() const { return start_; }
    QAction *stopAction() const { return stop_; }
    QAction *recordAction() const { return record_; }
    QAction *reproduceAction() const { return reproduce_; }
    QAction *pauseAction() const { return pause_; }
    QAction *undoAction() const { return undoAct_; }
    QComboBox *profileBox() const { return profileBox_; }
    SweepTab *sweepTab() const { return sweep_; }
    // What quitting now would interrupt, as the question to ask (a sweep or tune measuring on
    // this window's own engine, with its progress); empty when nothing would be.
    QString quitQuestion() const;
    qint64 shownSession() const { return shownSession_; } // 0: the live run
    QTabWidget *tabs() const { return tabs_; }
    QLabel *stateLabel() const { return stateLabel_; }
    // What holds the measurement now: the run (here or on the attached engine), a sweep or
    // tune of the Sweep tab, or a reproduction; none when nothing measures.
    MeasurementHold measurementHold() const;

    Status loadProfile(const QString &nameOrPath);
    // Reads the session off the GUI thread, then shows it (sessionShown).
    void openSession(qint64 id);
    Status exportSession(qint64 id, const QString &file);

  public slots:
    // The Export dialog for a session (Qt's own dialog, files typed by name only).
    void chooseExport(qint64 id);
    bool startRun();
    void stopRun();

  public:
    // Chooses the device by registry spec (adding it to the list if it is not there).
    bool selectDevice(const std::string &spec);
    // The knobs devices `from` and `to` set themselves, as the loaded profile resolves them
    // for `to` (engine/profile/resolve_profile.h); said in the status bar.
    void takeDeviceDefaults(const std::string &from, const std::string &to);
    QComboBox *deviceBox() const { return deviceBox_; }
    // The lab's traffic client ("ping -i 0.02 -c 500"; empty: none), checked as --traffic is,
    // the refusal shown beside the field. Sent with the lab only, never with another device.
    void setLabTraffic(const QString &spec);
    QString labTraffic() const { return labTraffic_; }
    QComboBox *trafficBox() const { return trafficBox_; }
    QLabel *trafficError() const { return trafficError_; }
    // Headless (--screenshot): errors go to stderr, never to a dialog.
    void setHeadless(bool on) { headless_ = on; }
    // Drives an engine that `ringlab-engine serve` offers (File > Connect to engine...).
    Status connectToEngine(const QUrl &url, const QByteArray &token);
    // The Connect dialog (its address filled in with `address` when valid); connects on OK.
    void chooseEngine(const QUrl &address = {});
    QLabel *engineLabel() const { return engineLabel_; }
    // Attached and the engine not reached: tries again now (File > Reconnect, the notice).
    QAction *reconnectAction() const { return reconnect_; }
    ConnectionNotice *connectionNotice() const { return connectionNotice_; }

  signals:
    void sessionShown(qint64 id);

  protected:
    void closeEvent(QCloseEvent *e) override;

  private:
    void showSession(SessionData &session);
    // The Device box from the window's engine: this process's registry (its DPDK ports
    // described once chosen), or the attached engine's list, asked for off the GUI thread.
    void fillDeviceBox();
    void showDevices(std::vector<DeviceListing> rows, bool described);
    void devicesAnswered(Result<std::vector<DeviceListing>> rows);
    // Row i's tooltip and state, from devices_[i].
    void showDeviceRow(int i);
    void buildDeviceToolbar();
    void onTrafficEdited(const QString &text);
    // The traffic field: enabled for the lab on the engine in this process, else why not.
    void updateTrafficField();
    void chooseDevice(int index);
    // The constructor's parts: the Run and Sweep tabs under the connection notice, and what
    // the window does on the Sweep tab's and the engine's signals.
    void buildCentralWidget();
    QWidget *buildRunTab(); // the charts over the segment table
    void connectSweepTab();
    void connectController();
    void buildToolbar();
    void buildMenus();
    void buildFileMenu();
    void buildToolsMenu();
    void buildHelpMenu();
    void buildDocks();
    void onSamples(const std::vector<std::shared_ptr<const Sample>> &batch);
    void addGuiThreadCpu(double t);
    void clearForNewRun(); // the charts, segments and live figures, for a run about to be shown
    void onEvent(const ringlab::Event &e);
    void refreshSegments();
    void updateStatus();
    // Attached and the engine not reached: what happened, whole; empty otherwise.
    QString contactLostText() const;
    void restoreSettings();
    void saveSettings();

    EngineController *ctl_;
    QUndoStack *undo_;
    ChartsView *charts_;
    SegmentModel *segments_;
    SegmentTable *segmentTable_ = nullptr;
    ParameterPanel *params_ = nullptr;
    SessionsPanel *sessions_ = nullptr;
    QComboBox *profileBox_ = nullptr;
    QAction *undoAct_ = nullptr, *redoAct_ = nullptr;
    QComboBox *deviceBox_ = nullptr;
    std::vector<DeviceListing> devices_;
    std::set<std::string> described_; // rows whose ports were attached to describe them
    int devicesTicket_ = 0;           // the engine's list asked for last (older ones ignored)
    bool devicesListed_ = true;       // false: the attached engine's list is still to come
    QComboBox *trafficBox_ = nullptr;
    QLabel *trafficError_ = nullptr;
    QString labTraffic_;
    bool headless_ = false;
    QComboBox *windowBox_ = nullptr;
    GuiThreadMeter guiCpu_; // this thread's CPU per second, over the last second
    double runDrops_ = 0;   // frames dropped in the live run so far (rate x interval per sample)
    double lastDropT_ = -1; // run time of the last sample that dropped, -1: none
    QAction *start_ = nullptr, *stop_ = nullptr, *record_ = nullptr, *mark_ = nullptr,
            *export_ = nullptr, *reproduce_ = nullptr, *pause_ = nullptr;
    QLabel *stateLabel_, *dropsLabel_, *dbLabel_, *engineLabel_;
    QAction *takeControl_ = nullptr;
    QAction *reconnect_ = nullptr;
    ConnectionNotice *connectionNotice_ = nullptr;
    QString connectionProblem_; // the remote engine's stream is broken: why
    SampleTableBuilder live_;
    std::vector<ParamChangeRow> liveChanges_;
    QTimer *segmentTimer_;
    qint64 shownSession_ = 0; // a recorded session on screen, 0 for the live run
    int openTicket_ = 0;      // the newest openSession; a read that finds another is dropped
    bool opening_ = false;    // "Opening session N…" is in the status bar
    QTabWidget *tabs_ = nullptr;
    SweepTab *sweep_ = nullptr;
    QPointer<ReproduceDialog> reproduceDialog_; // open, or null
};

} // namespace ringlab::ui
