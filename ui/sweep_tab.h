// SPDX-License-Identifier: GPL-2.0-or-later
// The Sweep tab: set up a sweep (axes, ties, repeats) or a tune (objective, constraints,
// tunables, budget), follow its progress, and see the result as a scatter chart of any two
// metrics with the Pareto front and intervals, beside the table of points. Sweeps recorded
// by `ringlab-engine sweep` open here too. The runs go on a worker thread into the
// desktop's session database, through the same code as the command line.
#pragma once

#include <QWidget>

#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "engine/experiments/sweep_report.h"
#include "ui/measurement_hold.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;
class QTextBrowser;

namespace ringlab::ui {

class SweepChart;
class NoticeLabel;

class SweepTab : public QWidget {
    Q_OBJECT
  public:
    // `database` is asked each time it is needed: the user may switch databases.
    explicit SweepTab(std::function<std::filesystem::path()> database, QWidget *parent = nullptr);
    ~SweepTab() override;

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
    // Where its runs go, when that is not where the window's other runs go (empty: hidden).
    void setNotice(const QString &text);
    QString notice() const;
    bool running() const { return worker_.joinable(); }
    // The sweep or tune measuring, with its run; none while nothing runs (holdChanged).
    const MeasurementHold &hold() const { return hold_; }
    const SweepTable &shownTable() const { return shownTable_; }
    // Asked before a run starts: a reason not to (another measurement going), or empty.
    std::function<QString()> blockedReason;

  public slots:
    void start();
    void cancel();

  signals:
    void finished(bool completed);
    // A sweep or tune began, moved to its next run, or ended.
    void holdChanged();
    void openSessionRequested(qint64 session);
    // A run of the sweep or tune made a session or ended one (and when the worker ends):
    // the window's session list follows. Its runs go through a database handle of their own,
    // which nothing else watches.
    void sessionsChanged();
    void message(const QString &text, int timeoutMs);

  private:
    void startSweep();
    void startTune();
    void ended(bool completed, const QString &error, const QString &sweepId);
    void began(MeasurementHold::Kind kind, int runs);
    // Called on the worker: the run it measures now, shown on this thread.
    std::function<void(int, int)> stepReporter();
    // From the worker: sessionsChanged, on the GUI thread.
    void announceSession();
    void redraw();
    void fillTable();

    std::function<std::filesystem::path()> database_;
    QComboBox *mode_, *profile_;
    QStackedWidget *forms_;
    QLineEdit *vary_, *tie_, *objective_, *constraints_, *over_;
    QComboBox *sense_;
    QSpinBox *repeat_, *seconds_, *budget_;
    QPushButton *run_;
    QProgressBar *bar_;
    QLabel *status_;
    NoticeLabel *notice_;
    QComboBox *sweeps_, *x_, *y_;
    SweepChart *chart_;
    QTableWidget *table_;
    QTextBrowser *report_;
    QString shown_;
    SweepRecord shownRecord_;
    SweepTable shownTable_;
    MeasurementHold hold_;
    std::atomic<bool> cancel_{false};
    std::thread worker_;
};

} // namespace ringlab::ui
