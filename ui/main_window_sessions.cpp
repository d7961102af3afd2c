// SPDX-License-Identifier: GPL-2.0-or-later
// The window's recorded sessions: opening one into the charts and the segment table, and
// exporting it (a file, or an image of its charts).
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

void MainWindow::openSession(qint64 id)
{
    if (ctl_->isRunning()) {
        // The charts belong to the live run until it stops.
        statusBar()->showMessage(
            tr("Stop the run to open session %1 (or compare it with another)").arg(id), 8000);
        return;
    }
    const auto opened = ctl_->sessionStore();
    if (const Status st = opened.ok() ? ctl_->fetchSessions({id}) : opened.status(); !st.ok()) {
        statusBar()->showMessage(errorText(st), 10000);
        return;
    }
    // Read on a worker thread; the window stays live. Only the newest open is shown, and
    // none once a run has started.
    const int ticket = ++openTicket_;
    auto *watcher = new QFutureWatcher<SessionData>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, ticket] {
        watcher->deleteLater();
        if (ticket != openTicket_ || ctl_->isRunning()) return;
        SessionData session = watcher->future().takeResult();
        showSession(session);
    });
    QTimer::singleShot(200, watcher, [this, id, ticket] {
        if (ticket != openTicket_) return;
        opening_ = true;
        statusBar()->showMessage(tr("Opening session %1…").arg(id));
    });
    watcher->setFuture(readSessionAsync(*opened.value(), id));
}

void MainWindow::showSession(SessionData &session)
{
    opening_ = false;
    if (!session.error.isEmpty()) {
        statusBar()->showMessage(session.error, 10000);
        return;
    }
    showSessionCharts(*charts_, session); // a recorded session is seen whole
    shownSession_ = session.id;
    segments_->setSession(session.table, session.changes);
    statusBar()->clearMessage();
    updateStatus();
    emit sessionShown(session.id);
}

void MainWindow::chooseExport(qint64 id)
{
    if (const Status st = ctl_->fetchSessions({id}); !st.ok()) {
        statusBar()->showMessage(errorText(st), 10000);
        return;
    }
    QFileDialog dialog(
        this, tr("Export session %1").arg(id), QStringLiteral("session-%1.csv").arg(id),
        tr("CSV (*.csv);;JSON (*.json);;Charts as PNG (*.png);;Charts as SVG (*.svg)"));
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    // Qt's own dialog, whose files are typed by name: see NameOnlyIconProvider.
    dialog.setOption(QFileDialog::DontUseNativeDialog);
    NameOnlyIconProvider names;
    dialog.setIconProvider(&names);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return;
    const QString file = dialog.selectedFiles().constFirst();
    const QString suffix = QFileInfo(file).suffix().toLower();
    if (suffix == QLatin1String("png") || suffix == QLatin1String("svg")) {
        const auto store = ctl_->sessionStore();
        SessionInfo info;
        if (!store.ok() || !store.value()->get(id, info)) return;
        QSettings settings;
        ImageExportDialog ask(
            sessionTitle(info),
            settings.value(QStringLiteral("export/size"), QSize(1600, 1000)).toSize(), this);
        if (ask.exec() != QDialog::Accepted) return;
        settings.setValue(QStringLiteral("export/size"), ask.imageSize());
        // Read on a worker thread, then drawn here: the window stays live meanwhile.
        statusBar()->showMessage(tr("Exporting session %1 to %2…").arg(id).arg(file));
        auto *watcher = new QFutureWatcher<SessionData>(this);
        connect(watcher, &QFutureWatcherBase::finished, this,
                [this, watcher, file, size = ask.imageSize(), title = ask.title()] {
                    watcher->deleteLater();
                    SessionData session = watcher->future().takeResult();
                    if (const Status st = renderSessionCharts(session, file, size, title);
                        !st.ok()) {
                        statusBar()->clearMessage();
                        QMessageBox::warning(this, tr("Export failed"), errorText(st));
                        return;
                    }
                    statusBar()->showMessage(
                        tr("Session %1 written to %2").arg(session.id).arg(file), 8000);
                });
        watcher->setFuture(readSessionAsync(*store.value(), id));
        return;
    }
    if (const Status st = exportSession(id, file); !st.ok())
        QMessageBox::warning(this, tr("Export failed"), errorText(st));
    else
        statusBar()->showMessage(tr("Session %1 written to %2").arg(id).arg(file), 8000);
}

Status MainWindow::exportSession(qint64 id, const QString &file)
{
    const auto store = ctl_->sessionStore();
    if (!store.ok()) return store.status();
    if (Status st = ctl_->fetchSessions({id}); !st.ok()) return st;
    return exportSessionFile(*store.value(), id, file);
}

} // namespace ringlab::ui
