// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/sessions_panel.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/engine_controller.h"
#include "ui/session_list_model.h"
#include "ui/session_mirror.h"

namespace ringlab::ui {

SessionsPanel::SessionsPanel(EngineController *ctl, QWidget *parent)
    : QWidget(parent), ctl_(ctl), model_(new SessionListModel(this)), view_(new QTableView(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->verticalHeader()->hide();
    view_->setWordWrap(false);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setSortingEnabled(false);
    layout->addWidget(view_);
    connect(ctl_, &EngineController::sessionsCopied, this, &SessionsPanel::readCopiedEnvironments);
    // Two rows of buttons: the dock stays narrow enough for 1280x800.
    auto *buttons = new QGridLayout;
    open_ = new QPushButton(tr("Open"));
    rename_ = new QPushButton(tr("Rename…"));
    delete_ = new QPushButton(tr("Delete"));
    export_ = new QPushButton(tr("Export…"));
    compare_ = new QPushButton(tr("Compare"));
    compare_->setToolTip(tr("Select two sessions to compare them"));
    int k = 0;
    for (auto *b : {open_, compare_, export_, rename_, delete_}) {
        buttons->addWidget(b, k / 3, k % 3);
        ++k;
    }
    layout->addLayout(buttons);

    connect(view_, &QTableView::doubleClicked, this, [this](const QModelIndex &i) {
        if (const auto *s = model_->session(i.row())) emit openRequested(s->id);
    });
    connect(open_, &QPushButton::clicked, this, [this] {
        const auto ids = selectedIds();
        if (!ids.isEmpty()) emit openRequested(ids.first());
    });
    connect(rename_, &QPushButton::clicked, this, [this] {
        const auto ids = selectedIds();
        if (ids.isEmpty()) return;
        const auto *s = model_->session(model_->rowOf(ids.first()));
        bool ok = false;
        const QString name =
            QInputDialog::getText(this, tr("Rename session"), tr("Name:"), QLineEdit::Normal,
                                  QString::fromStdString(s->name), &ok);
        if (ok) renameSelected(name);
    });
    connect(delete_, &QPushButton::clicked, this, [this] {
        if (QMessageBox::question(this, tr("Delete sessions"),
                                  tr("Delete the selected session(s) and all their samples?")) ==
            QMessageBox::Yes)
            deleteSelected();
    });
    connect(export_, &QPushButton::clicked, this, [this] {
        const auto ids = selectedIds();
        if (!ids.isEmpty()) emit exportRequested(ids.first());
    });
    connect(compare_, &QPushButton::clicked, this, [this] {
        const auto ids = selectedIds();
        if (ids.size() == 2) emit compareRequested(ids[0], ids[1]);
    });
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &SessionsPanel::updateButtons);
    connect(ctl_, &EngineController::runStopped, this, &SessionsPanel::reload);
    connect(ctl_, &EngineController::runStarted, this, &SessionsPanel::reload);
    // The running session's duration follows at 1 Hz.
    auto *live = new QTimer(this);
    live->setInterval(1000);
    connect(live, &QTimer::timeout, this, [this] {
        if (ctl_->sessionId() && !ctl_->samples().empty())
            model_->setLiveDuration(ctl_->sessionId(), ctl_->samples().back()->t);
    });
    connect(ctl_, &EngineController::runStarted, live, qOverload<>(&QTimer::start));
    connect(ctl_, &EngineController::runStopped, live, &QTimer::stop);
    updateButtons();
}

QList<qint64> SessionsPanel::selectedIds() const
{
    QList<qint64> ids;
    for (const auto &i : view_->selectionModel()->selectedRows())
        if (const auto *s = model_->session(i.row())) ids << s->id;
    std::sort(ids.begin(), ids.end());
    return ids;
}

void SessionsPanel::updateButtons()
{
    const int n = static_cast<int>(selectedIds().size());
    // An engine's sessions are changed where they are kept, not through its API.
    const bool here = !ctl_->remote();
    open_->setEnabled(n == 1);
    rename_->setEnabled(here && n == 1);
    export_->setEnabled(n == 1);
    delete_->setEnabled(here && n >= 1);
    compare_->setEnabled(n == 2);
    const QString onEngine =
        tr("The engine's sessions are changed on its host (ringlab-engine sessions delete)");
    rename_->setToolTip(here ? QString() : onEngine);
    delete_->setToolTip(here ? QString() : onEngine);
}

void SessionsPanel::fitColumns()
{
    view_->resizeColumnsToContents();
    const int widest = view_->fontMetrics().averageCharWidth() * 28;
    if (view_->columnWidth(1) > widest) view_->setColumnWidth(1, widest);
}

void SessionsPanel::reload()
{
    if (ctl_->remote()) {
        // The engine's sessions: listed from it without waiting (this runs from stream lines
        // and from detaching), copied here when opened.
        const auto attached = ctl_->mirror();
        if (!attached.ok()) {
            emit message(errorText(attached.status()), 10000);
            return;
        }
        SessionMirror *mirror = attached.value();
        QPointer<SessionsPanel> self(this);
        QPointer<SessionMirror> from(mirror);
        mirror->listLater(
            [self, from, this](const std::vector<SessionInfo> &sessions, const QString &why) {
                // A reply for an engine this window has left since is not shown.
                if (!self || !from) return;
                if (const auto now = ctl_->mirror(); !now.ok() || now.value() != from) return;
                if (!why.isEmpty()) emit message(why, 10000);
                model_->setSessions(sessions);
                readCopiedEnvironments();
                fitColumns();
                updateButtons();
            });
        return;
    }
    const auto opened = ctl_->store();
    if (!opened.ok()) {
        emit message(errorText(opened.status()), 10000);
        model_->setSessions({});
        return;
    }
    SessionStore *store = opened.value();
    try {
        const auto sessions = store->list();
        std::map<std::int64_t, Environment> environments;
        for (const auto &s : sessions)
            environments[s.id] = store->environment(s.id);
        model_->setSessions(sessions);
        model_->setEnvironments(std::move(environments));
        fitColumns();
    } catch (const DbError &e) {
        emit message(QString::fromStdString(e.what()), 10000);
    }
    updateButtons();
}

void SessionsPanel::readCopiedEnvironments()
{
    if (!ctl_->remote()) return;
    std::map<std::int64_t, Environment> environments;
    const auto opened = ctl_->sessionStore();
    SessionStore *copies = opened.ok() ? opened.value() : nullptr;
    try {
        for (const auto &c : copies ? copies->list() : std::vector<SessionInfo>{}) {
            // The copy of the listed session: the same id and the same run.
            const SessionInfo *listed = model_->session(model_->rowOf(c.id));
            if (listed && listed->uuid == c.uuid) environments[c.id] = copies->environment(c.id);
        }
    } catch (const DbError &e) {
        emit message(QString::fromStdString(e.what()), 10000);
    }
    model_->setEnvironments(std::move(environments),
                            tr("environment: kept on the engine; shown here once the session "
                               "is opened (copied to this machine)"));
}

void SessionsPanel::renameSelected(const QString &name)
{
    if (ctl_->remote()) return;
    const auto store = ctl_->store();
    const auto ids = selectedIds();
    if (!store.ok() || ids.isEmpty() || name.trimmed().isEmpty()) return;
    try {
        store.value()->rename(ids.first(), name.trimmed().toStdString());
    } catch (const DbError &e) {
        emit message(QString::fromStdString(e.what()), 10000);
    }
    reload();
}

void SessionsPanel::deleteSelected()
{
    if (ctl_->remote()) return;
    const auto opened = ctl_->store();
    if (!opened.ok()) return;
    SessionStore *store = opened.value();
    for (qint64 id : selectedIds()) {
        const SessionInfo *s = model_->session(model_->rowOf(id));
        if ((ctl_->isRunning() && id == ctl_->sessionId()) || (s && s->status == "running")) {
            emit message(tr("session %1 is being recorded (pid %2); stop that run first")
                             .arg(id)
                             .arg(s ? s->pid : 0),
                         8000);
            continue;
        }
        try {
            store->deleteSession(id);
        } catch (const DbError &e) {
            emit message(QString::fromStdString(e.what()), 10000);
        }
    }
    reload();
}

} // namespace ringlab::ui
