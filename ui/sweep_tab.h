// SPDX-License-Identifier: GPL-2.0-or-later
// The Sweep tab: set up a sweep (axes, ties, repeats) or a tune (objective, constraints,
// tunables, budget), follow its progress, and see the result as a scatter chart of any two
// metrics with the Pareto front and intervals, beside the table of points. The sweep or tune
// is a job of the engine the window uses (POST /v1/jobs: this process's, or the attached
// one), so its runs and sessions are that engine's; sweeps recorded by `ringlab-engine
// sweep` open here too.
#pragma once

#include <QWidget>

#include <functional>
#include <nlohmann/json.hpp>

#include "engine/experiments/sweep_report.h"

class QComboBox;
class QLabel;
class QLayout;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QFormLayout;
class QTableWidget;
class QTextBrowser;

namespace ringlab::ui {

class SweepChart;
class EngineController;
class JobFollower;

class SweepTab : public QWidget {
    Q_OBJECT
  public:
    // The window's engine: where sweeps run and are read from (its sessionStore()).
    explicit SweepTab(EngineController *engine, QWidget *parent = nullptr);

    // Fills the list of recorded sweeps and shows the newest (or `select`).
    void reload(const QString &select = {});
    // Shows a recorded sweep.
    bool showSweep(const QString &id);
    QString shownSweep() const { return shown_; }

    QComboBox *modeBox() const { return mode_; }
    QComboBox *profileBox() const { return profile_; }
    QLineEdit *varyEdit() const { return vary_; }
    QLineEdit *tieEdit() const { return tie_; }
    QSpinBox *repeatBox() const { return repeat_; }
    QSpinBox *secondsBox() const { return seconds_; }
    QLineEdit *objectiveEdit() const { return objective_; }
    QLineEdit *constraintEdit() const { return constraints_; }
    QLineEdit *overEdit() const { return over_; }
    QSpinBox *budgetBox() const { return budget_; }
    QPushButton *runButton() const { return run_; }
    QComboBox *sweepBox() const { return sweeps_; }
    QComboBox *xBox() const { return x_; }
    QComboBox *yBox() const { return y_; }
    SweepChart *chart() const { return chart_; }
    QTableWidget *table() const { return table_; }
    QTextBrowser *report() const { return report_; }
    QLabel *status() const { return status_; }
    // Whether this tab's sweep or tune is going (the engine's job; the window's Start
    // follows the engine's jobs, whoever started them).
    bool running() const;
    // What the running job is and how far it got ("Run 2 of 3: point 2 ..."); empty when idle.
    QString progress() const;
    const SweepTable &shownTable() const { return shownTable_; }
    // Asked before a run starts: a reason not to (another measurement going), or empty.
    std::function<QString()> blockedReason;

  public slots:
    void start();
    void cancel();

  signals:
    void finished(bool completed);
    void openSessionRequested(qint64 session);
    // A run of the sweep or tune made a session or ended one (and when the job ends): the
    // window's session list follows. The job records through the engine's own database
    // handle, which nothing else watches.
    void sessionsChanged();
    void message(const QString &text, int timeoutMs);

  private:
    QWidget *buildSetup();   // the left: mode, profile, the sweep's or tune's words, Run
    QLayout *buildResults(); // the right: the sweep shown, its chart, table and report
    // buildSetup's parts: the mode, the profile and the sweep's fields (with the tie and each
    // run's length, the tune's too); the tune's fields; the two forms the mode switches
    // between; Run, the progress bar and the status line.
    void makeSweepFields();
    void makeTuneFields();
    QFormLayout *buildForm();
    void makeRunControls();
    // buildResults's parts: the sweep and the metrics of the axes; the chart, table and
    // report; the chart with its caption under it.
    QLayout *buildPicker();
    void makeResultViews();
    QWidget *buildChartBox();
    void startSweep();
    void startTune();
    void submit(const nlohmann::json &spec, int runs);
    void progressed(const nlohmann::json &job);
    void ended(const nlohmann::json &job);
    // Attached: the engine's sweep sessions copied here (the store the tab reads), so that
    // its sweeps are listed and shown as this process's are; `ids` only, or all of them.
    void copySweepSessions(const QList<qint64> &ids = {});
    void redraw();
    void fillTable();

    EngineController *engine_;
    JobFollower *job_;
    int shownRuns_ = -1; // the job's completed runs when its sweep was last shown
    QComboBox *mode_, *profile_;
    QLineEdit *vary_, *tie_, *objective_, *constraints_, *over_;
    QComboBox *sense_;
    QSpinBox *repeat_, *seconds_, *budget_;
    QPushButton *run_;
    QProgressBar *bar_;
    QLabel *status_;
    QComboBox *sweeps_, *x_, *y_;
    SweepChart *chart_;
    QTableWidget *table_;
    QTextBrowser *report_;
    QString shown_;
    SweepRecord shownRecord_;
    SweepTable shownTable_;
};

} // namespace ringlab::ui
