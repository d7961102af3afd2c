// SPDX-License-Identifier: GPL-2.0-or-later
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

namespace {
// A profile file in one spelling (an installed layout lists "bin/../share/..."; a file may be
// named through a link), so that the Profile box finds what was loaded.
QString profileKey(const std::filesystem::path &file)
{
    std::error_code ec;
    const std::filesystem::path c = std::filesystem::weakly_canonical(file, ec);
    return QString::fromStdString((ec ? file : c).string());
}
constexpr int kStateVersion = 3; // bumped when the dock or toolbar layout changes
} // namespace

MainWindow::MainWindow(const QString &database, QWidget *parent)
    : QMainWindow(parent), databaseOverride_(database), ctl_(new EngineController(this)),
      undo_(new QUndoStack(this)), charts_(new ChartsView), segments_(new SegmentModel(this)),
      stateLabel_(new QLabel), dropsLabel_(new QLabel), dbLabel_(new QLabel),
      engineLabel_(new QLabel), segmentTimer_(new QTimer(this))
{
    setWindowTitle(tr("Ringlab"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/ringlab.svg")));
    buildCentralWidget();
    connectSweepTab();

    buildToolbar();
    buildDocks();
    buildMenus();
    statusBar()->addWidget(stateLabel_);
    statusBar()->addWidget(dropsLabel_);
    statusBar()->addPermanentWidget(engineLabel_);
    statusBar()->addPermanentWidget(dbLabel_);

    segmentTimer_->setInterval(1000); // the segment statistics follow at 1 Hz
    connect(segmentTimer_, &QTimer::timeout, this, &MainWindow::refreshSegments);
    connectController();
    restoreSettings();
    updateStatus();
    sessions_->reload();
}

QWidget *MainWindow::buildRunTab()
{
    auto *split = new QSplitter(Qt::Vertical);
    charts_->setSettingsGroup(QStringLiteral("charts")); // the series chosen, kept
    split->addWidget(charts_);
    segmentTable_ = new SegmentTable(segments_, [this] {
        const auto store = ctl_->sessionStore();
        return store.ok() ? store.value() : nullptr;
    });
    connect(segmentTable_, &SegmentTable::message, statusBar(), &QStatusBar::showMessage);
    split->addWidget(segmentTable_);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    return split;
}

void MainWindow::buildCentralWidget()
{
    QWidget *runTab = buildRunTab();
    sweep_ = new SweepTab(ctl_);
    sweep_->blockedReason = [this] { return measurementHold().blockedReason(); };
    tabs_ = new QTabWidget;
    tabs_->setDocumentMode(true);
    tabs_->addTab(runTab, tr("Run"));
    tabs_->addTab(sweep_, tr("Sweep"));
    reconnect_ =
        new QAction(QIcon::fromTheme(QStringLiteral("view-refresh")), tr("&Reconnect"), this);
    reconnect_->setToolTip(tr("Reach the engine again now, and read back its state: the run "
                              "going there, its session and its values"));
    connect(reconnect_, &QAction::triggered, this, [this] {
        statusBar()->showMessage(tr("Reconnecting to %1…").arg(ctl_->engineText()), 5000);
        ctl_->reconnect();
    });
    connectionNotice_ = new ConnectionNotice(reconnect_);
    auto *central = new QWidget;
    auto *column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(connectionNotice_);
    column->addWidget(tabs_, 1);
    setCentralWidget(central);
}

void MainWindow::connectSweepTab()
{
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int k) {
        if (tabs_->widget(k) == sweep_ && !sweep_->running()) sweep_->reload();
    });
    connect(sweep_, &SweepTab::openSessionRequested, this, [this](qint64 id) {
        openSession(id);
        tabs_->setCurrentIndex(0);
    });
    connect(sweep_, &SweepTab::message, statusBar(), &QStatusBar::showMessage);
    connect(sweep_, &SweepTab::sessionsChanged, this, [this] { sessions_->reload(); });
}

void MainWindow::connectController()
{
    connect(ctl_, &EngineController::samplesArrived, this,
            [this](const std::vector<SamplePtr> &batch) {
                if (shownSession_) return;
                charts_->appendSamples(batch);
                for (const auto &s : batch)
                    live_.add(*s);
                addGuiThreadCpu(batch.back()->t);
                onSamples(batch);
            });
    connect(ctl_, &EngineController::eventArrived, this, &MainWindow::onEvent);
    connect(ctl_, &EngineController::errorOccurred, this,
            [this](const QString &m) { statusBar()->showMessage(m, 10000); });
    connect(ctl_, &EngineController::runStarted, this, &MainWindow::updateStatus);
    // The engine's job: Start waits for it, and its sessions are listed as they are recorded.
    connect(ctl_, &EngineController::jobChanged, this, [this] {
        updateStatus();
        sessions_->reload();
    });
    connect(ctl_, &EngineController::runLost, this,
            [this](const QString &m) { connectionNotice_->setOutcome(m); });
    connect(ctl_, &EngineController::connectionChanged, this, [this](bool up, const QString &why) {
        connectionProblem_ = up ? QString() : why;
        if (up) statusBar()->clearMessage(); // "Reconnecting…" hid the state it now shows
        updateStatus();
    });
    connect(ctl_, &EngineController::watchStarted, this, [this] {
        // A run another client started on the engine: charted from its start, like ours.
        clearForNewRun();
        segmentTimer_->start();
    });
    connect(ctl_, &EngineController::runStopped, this, [this] {
        segmentTimer_->stop(); // also when another client stopped it
        if (!shownSession_) segments_->setSession(live_.table(), liveChanges_); // all exact
        // An engine lists its devices only while no run goes: asked again once it stopped.
        if (ctl_->remote() && !devicesListed_) fillDeviceBox();
        updateStatus();
    });
}

MainWindow::~MainWindow()
{
    // Stop a run still going before the members its signals reach are destroyed.
    disconnect(ctl_, nullptr, this, nullptr);
    if (ctl_->remote())
        ctl_->detach(); // never a blocking request from a destructor; the run is the engine's
    else
        ctl_->stop();
}

void MainWindow::buildToolbar()
{
    auto *tb = addToolBar(tr("Run"));
    tb->setObjectName(QStringLiteral("runToolbar"));
    tb->addWidget(new QLabel(tr(" Profile ")));
    profileBox_ = new QComboBox;
    profileBox_->setObjectName(QStringLiteral("profileBox"));
    for (const auto &p : listProfiles()) {
        profileBox_->addItem(QString::fromStdString(p.name), profileKey(p.file));
        profileBox_->setItemData(profileBox_->count() - 1, QString::fromStdString(p.description),
                                 Qt::ToolTipRole);
    }
    profileBox_->setMinimumContentsLength(18);
    connect(profileBox_, &QComboBox::activated, this, [this](int i) {
        if (const Status st = loadProfile(profileBox_->itemData(i).toString()); !st.ok())
            statusBar()->showMessage(errorText(st), 10000);
    });
    tb->addWidget(profileBox_);
    tb->addSeparator();
    start_ = tb->addAction(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("Start"),
                           this, &MainWindow::startRun);
    start_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
    stop_ = tb->addAction(QIcon::fromTheme(QStringLiteral("media-playback-stop")), tr("Stop"), this,
                          &MainWindow::stopRun);
    stop_->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Period), QKeySequence(Qt::SHIFT | Qt::Key_F5)});
    record_ = tb->addAction(tr("Record"));
    record_->setCheckable(true);
    record_->setChecked(true);
    record_->setToolTip(tr("Record the run as a session in the database"));
    connect(record_, &QAction::toggled, ctl_, &EngineController::setRecording);
    mark_ = tb->addAction(tr("Mark"), this, [this] {
        bool ok = false;
        const QString label =
            QInputDialog::getText(this, tr("Mark"), tr("Label:"), QLineEdit::Normal, {}, &ok);
        if (ok) ctl_->mark(label);
    });
    mark_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_M));
    mark_->setToolTip(tr("Put a labelled mark on the running session (Ctrl+M)"));
    export_ = tb->addAction(tr("Export…"), this, [this] {
        const qint64 id = shownSession_ ? shownSession_ : ctl_->sessionId();
        if (id)
            chooseExport(id);
        else
            statusBar()->showMessage(tr("Nothing recorded yet to export"), 5000);
    });
    export_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    export_->setToolTip(tr("Export the session shown as CSV, JSON, PNG or SVG (Ctrl+E)"));
    tb->addSeparator();
    tb->addWidget(new QLabel(tr(" Window ")));
    windowBox_ = new QComboBox;
    windowBox_->addItem(tr("30 s"), 30.0);
    windowBox_->addItem(tr("2 min"), 120.0);
    windowBox_->addItem(tr("10 min"), 600.0);
    windowBox_->addItem(tr("whole session"), 0.0);
    windowBox_->setCurrentIndex(1);
    connect(windowBox_, &QComboBox::currentIndexChanged, this,
            [this] { charts_->setWindow(windowBox_->currentData().toDouble()); });
    tb->addWidget(windowBox_);
    pause_ = tb->addAction(tr("Pause view"));
    pause_->setCheckable(true);
    pause_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Space));
    pause_->setToolTip(tr("Hold the charts where they are while the run goes on recording "
                          "(Ctrl+Space). Wheel: zoom; drag: pan; double click: follow again"));
    connect(pause_, &QAction::toggled, charts_, &ChartsView::setPaused);
    // Pausing follows a live run; a recorded session has nothing to pause (its view is held
    // whole, not paused by the user): the action neither looks pressed nor acts there.
    connect(charts_, &ChartsView::pausedChanged, pause_,
            [this](bool paused) { pause_->setChecked(paused && !shownSession_); });
    tb->addAction(reconnect_); // shown while attached
    buildDeviceToolbar();
}

void MainWindow::buildDeviceToolbar()
{
    // A row of its own: the device, its options, and what is wrong with them, whole.
    addToolBarBreak();
    auto *tb = addToolBar(tr("Device"));
    tb->setObjectName(QStringLiteral("deviceToolbar"));
    tb->addWidget(new QLabel(tr(" Device ")));
    deviceBox_ = new QComboBox;
    fillDeviceBox();
    connect(deviceBox_, &QComboBox::activated, this, [this](int i) { chooseDevice(i); });
    tb->addWidget(deviceBox_);
    tb->addWidget(new QLabel(tr("  Lab traffic ")));
    trafficBox_ = new QComboBox;
    trafficBox_->setObjectName(QStringLiteral("trafficBox"));
    trafficBox_->setEditable(true);
    trafficBox_->setInsertPolicy(QComboBox::NoInsert);
    for (const char *preset : {"ping -i 0.02 -c 500", "ping -i 0.2 -c 100",
                               "iperf3 -u -b 100M -t 10", "iperf3 -t 10", "iperf3 -R -t 10"})
        trafficBox_->addItem(QString::fromLatin1(preset));
    trafficBox_->setMinimumContentsLength(22);
    trafficBox_->lineEdit()->setPlaceholderText(tr("none: no client"));
    trafficBox_->setCurrentIndex(-1);
    trafficBox_->lineEdit()->clear();
    connect(trafficBox_, &QComboBox::editTextChanged, this, &MainWindow::onTrafficEdited);
    tb->addWidget(trafficBox_);
    trafficError_ = new QLabel;
    trafficError_->setObjectName(QStringLiteral("trafficError"));
    trafficError_->setWordWrap(true);
    trafficError_->setTextFormat(Qt::PlainText);
    trafficError_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    trafficError_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; margin-left: 6px; }"));
    trafficError_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    // Two lines hold the lab's longest refusal at 1280 px; a wrapped label's own height hint
    // is for a narrower width, and would make the row (and the window) much taller.
    trafficError_->setMaximumHeight(2 * trafficError_->fontMetrics().lineSpacing() + 2);
    tb->addWidget(trafficError_);
}

void MainWindow::buildMenus()
{
    buildFileMenu();

    auto *edit = menuBar()->addMenu(tr("&Edit"));
    undoAct_ = undo_->createUndoAction(edit, tr("&Undo"));
    undoAct_->setShortcut(QKeySequence::Undo);
    edit->addAction(undoAct_);
    redoAct_ = undo_->createRedoAction(edit, tr("&Redo"));
    redoAct_->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo});
    edit->addAction(redoAct_);

    auto *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(start_);
    run->addAction(stop_);
    run->addAction(mark_);
    run->addSeparator();
    run->addAction(record_);
    takeControl_ = run->addAction(tr("&Take control of the run"), this, [this] {
        if (const Status st = ctl_->takeControl(); !st.ok())
            statusBar()->showMessage(errorText(st), 10000);
        updateStatus();
    });

    auto *view = menuBar()->addMenu(tr("&View"));
    view->addAction(pause_);
    auto *follow =
        view->addAction(tr("&Follow the run"), this, [this] { charts_->setPaused(false); });
    follow->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    view->addAction(tr("Show the &whole session"), charts_, &ChartsView::showWhole);
    view->addSeparator();
    for (auto *dock : findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());

    buildToolsMenu();
    buildHelpMenu();
}

void MainWindow::buildFileMenu()
{
    auto *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Connect to engine…"), this, [this] { chooseEngine(); });
    file->addAction(tr("Use the engine in this &process"), this, [this] {
        ctl_->detach();
        clearForNewRun(); // what was shown was the engine's
        fillDeviceBox();
        connectionProblem_.clear();
        updateStatus();
        sessions_->reload(); // this process's sessions again
    });
    file->addAction(reconnect_);
    file->addSeparator();
    file->addAction(export_);
    file->addSeparator();
    auto *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setShortcutContext(Qt::ApplicationShortcut);
}

void MainWindow::buildToolsMenu()
{
    auto *tools = menuBar()->addMenu(tr("&Tools"));
    reproduce_ = tools->addAction(tr("&Reproduce a reference case…"), this, [this] {
        if (reproduceDialog_) { // one at a time: the open one
            reproduceDialog_->raise();
            reproduceDialog_->activateWindow();
            return;
        }
        if (const MeasurementHold hold = measurementHold(); hold.held()) {
            statusBar()->showMessage(hold.blockedReason(), 8000);
            return;
        }
        auto *dlg = new ReproduceDialog(ctl_, this);
        reproduceDialog_ = dlg;
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        connect(dlg, &ReproduceDialog::finished, sessions_, &SessionsPanel::reload);
        connect(dlg, &ReproduceDialog::sessionsChanged, sessions_, &SessionsPanel::reload);
        dlg->blockedReason = [this] { return measurementHold().blockedReason(); };
        dlg->show();
    });
}

void MainWindow::buildHelpMenu()
{
    auto *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard and mouse"), this, [this] {
        QMessageBox::information(
            this, tr("Keyboard and mouse"),
            tr("<table>"
               "<tr><td>Start</td><td>Ctrl+R, F5</td></tr>"
               "<tr><td>Stop</td><td>Ctrl+., Shift+F5</td></tr>"
               "<tr><td>Mark</td><td>Ctrl+M</td></tr>"
               "<tr><td>Export</td><td>Ctrl+E</td></tr>"
               "<tr><td>Undo, redo a change</td><td>Ctrl+Z, Ctrl+Shift+Z</td></tr>"
               "<tr><td>Pause the view</td><td>Ctrl+Space</td></tr>"
               "<tr><td>Follow the run</td><td>Ctrl+0, or double click a chart</td></tr>"
               "<tr><td>Zoom the time axis</td><td>mouse wheel over a chart</td></tr>"
               "<tr><td>Pan</td><td>drag a chart</td></tr>"
               "<tr><td>Hide a series</td><td>click its legend entry</td></tr>"
               "<tr><td>Quit</td><td>Ctrl+Q</td></tr></table>"));
    });
    help->addAction(tr("&About Ringlab"), this, [this] {
        QMessageBox::about(this, tr("About Ringlab"),
                           tr("<b>Ringlab</b> %1<br>Tune a NIC driver's host side live and "
                              "measure what it costs.")
                               .arg(QCoreApplication::applicationVersion()));
    });
}

void MainWindow::buildDocks()
{
    params_ = new ParameterPanel(ctl_, undo_);
    auto *pd = new QDockWidget(tr("Parameters"), this);
    pd->setObjectName(QStringLiteral("parametersDock"));
    pd->setWidget(params_);
    pd->setMinimumWidth(330);
    addDockWidget(Qt::LeftDockWidgetArea, pd);
    connect(params_, &ParameterPanel::message, statusBar(), &QStatusBar::showMessage);

    sessions_ = new SessionsPanel(ctl_);
    auto *sd = new QDockWidget(tr("Sessions"), this);
    sd->setObjectName(QStringLiteral("sessionsDock"));
    sd->setWidget(sessions_);
    addDockWidget(Qt::LeftDockWidgetArea, sd);
    tabifyDockWidget(pd, sd); // the charts keep the width; the sessions are one tab away
    pd->raise();
    connect(sessions_, &SessionsPanel::message, statusBar(), &QStatusBar::showMessage);
    connect(sessions_, &SessionsPanel::openRequested, this, &MainWindow::openSession);
    connect(sessions_, &SessionsPanel::exportRequested, this, &MainWindow::chooseExport);
    connect(sessions_, &SessionsPanel::compareRequested, this, [this](qint64 a, qint64 b) {
        const auto store = ctl_->sessionStore();
        if (const Status st = store.ok() ? ctl_->fetchSessions({a, b}) : store.status(); !st.ok()) {
            statusBar()->showMessage(errorText(st), 10000);
            return;
        }
        auto *dlg = new CompareDialog(*store.value(), a, b, this);
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        dlg->show();
    });
}

Status MainWindow::loadProfile(const QString &nameOrPath)
{
    if (const MeasurementHold hold = ctl_->jobHold(); hold.held())
        return Status::failure(
            tr("profile %1 not loaded: %2").arg(nameOrPath, hold.blockedReason()).toStdString());
    // A profile is a set of values over the defaults, checked as one.
    ResolvedProfile resolved;
    // Resolved for its own device, as `ringlab-engine run --profile` does (a stopped workbench
    // follows that device below), or while a run goes, for the device it runs on.
    const std::string on = ctl_->isRunning() ? ctl_->device().spec : std::string();
    if (Status st = resolveProfile(nameOrPath.toStdString(), {}, resolved, on, deviceDefaults);
        !st.ok())
        return st;
    const Profile &p = resolved.profile;
    const ParamSet &ps = resolved.params;
    const std::filesystem::path &file = p.file;
    Assignments all, before;
    const ParamSet was = ctl_->params();
    for (const auto &t : tunables()) {
        all.emplace_back(std::string(t.name), ps.text(t.id));
        before.emplace_back(std::string(t.name), was.text(t.id));
    }
    // One change, checked and applied as a whole: while running, a single segment.
    if (Status st = ctl_->apply(all, QStringLiteral("profile")); !st.ok()) return st;
    ctl_->setProfileName(QString::fromStdString(p.name), QString::fromStdString(file.string()));
    // A profile names its device; a stopped workbench follows it.
    DeviceSpec spec;
    if (Status st = parseDeviceSpec(p.device, spec); !st.ok())
        return st.within(file.string() + ": ");
    if (!ctl_->isRunning() && p.device != ctl_->device().spec) selectDevice(p.device);
    // The box shows what was loaded, found by its file: a profile file outside the listed
    // ones gets an item of its own (its name; the path in the tooltip).
    const QString path = profileKey(file);
    int i = profileBox_->findData(path);
    if (i < 0) {
        profileBox_->addItem(QString::fromStdString(p.name), path);
        i = profileBox_->count() - 1;
        profileBox_->setItemData(i, path + u'\n' + QString::fromStdString(p.description),
                                 Qt::ToolTipRole);
    }
    profileBox_->setCurrentIndex(i);
    if (ctl_->isRunning())
        undo_->push(new ParamCommand(ctl_, before, all)); // applied; undo goes back
    else
        undo_->clear();
    updateStatus();
    return Status::success();
}

void MainWindow::restoreSettings()
{
    QSettings s;
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
        // First start: most of the screen it opens on (its frame included), centred.
        const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1280, 800);
        const QSize size(avail.width() * 9 / 10, avail.height() * 9 / 10);
        resize(size.expandedTo(minimumSizeHint()).boundedTo(avail.size()));
        move(avail.center() - QPoint(width() / 2, height() / 2));
    }
    restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kStateVersion);
    const QString db = databaseOverride_.isEmpty()
                           ? s.value(QStringLiteral("database/path")).toString()
                           : databaseOverride_;
    if (!db.isEmpty()) ctl_->setDatabasePath(db);
    const int w = windowBox_->findData(s.value(QStringLiteral("charts/window"), 120.0).toDouble());
    if (w >= 0) windowBox_->setCurrentIndex(w);
    charts_->setWindow(windowBox_->currentData().toDouble());
    if (!loadProfile(s.value(QStringLiteral("profile/last"), QStringLiteral("default")).toString())
             .ok())
        (void)loadProfile(QStringLiteral("default")); // the defaults' profile always loads
}

void MainWindow::saveSettings()
{
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState(kStateVersion));
    if (databaseOverride_.isEmpty())
        s.setValue(QStringLiteral("database/path"), ctl_->databasePath());
    s.setValue(QStringLiteral("charts/window"), windowBox_->currentData());
    s.setValue(QStringLiteral("profile/last"), ctl_->profileName());
}

QString MainWindow::quitQuestion() const
{
    // An attached engine's job goes on there when the window detaches: nothing to ask.
    if (ctl_->remote()) return {};
    // A sweep of the Sweep tab says its own progress; a tune or a reproduction (whose dialog
    // is not modal) as the engine counts it.
    const bool sweeping = sweep_ && sweep_->running();
    const MeasurementHold job = ctl_->jobHold();
    if (!sweeping && !job.held()) return {};
    return tr("A job is measuring on this window's engine:\n%1\n\nQuitting interrupts it. "
              "The runs it has measured are kept; the one going is marked interrupted.")
        .arg(sweeping ? sweep_->progress() : job.stateLine());
}

void MainWindow::closeEvent(QCloseEvent *e)
{
    if (const QString ask = quitQuestion(); !ask.isEmpty()) {
        QMessageBox box(QMessageBox::Warning, tr("Quit Ringlab?"), ask, QMessageBox::NoButton,
                        this);
        QPushButton *quit =
            box.addButton(tr("Quit and interrupt it"), QMessageBox::DestructiveRole);
        box.addButton(QMessageBox::Cancel);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != quit) {
            e->ignore();
            return;
        }
    }
    if (ctl_->remote())
        ctl_->detach(); // a run on an engine goes on there; its session is the engine's
    else
        stopRun(); // the session ends as completed
    saveSettings();
    e->accept();
}

} // namespace ringlab::ui
