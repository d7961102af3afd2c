// SPDX-License-Identifier: GPL-2.0-or-later
// Tools > Reproduce a reference case: a reproduction as a job of the window's engine
// (POST /v1/jobs: this process's, or the attached one, whose sessions they are), its progress,
// and each case's table as soon as it is complete, as `reproduce --markdown` prints it.
#pragma once

#include <QDialog>

#include <functional>
#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTextBrowser;

namespace ringlab::ui {

class EngineController;
class JobFollower;

class ReproduceDialog : public QDialog {
    Q_OBJECT
  public:
    ReproduceDialog(EngineController *engine, QWidget *parent = nullptr);
    ~ReproduceDialog() override;

    QComboBox *caseBox() const { return case_; }
    QSpinBox *repeatBox() const { return repeat_; }
    QSpinBox *secondsBox() const { return seconds_; }
    QPushButton *runButton() const { return run_; }
    QTextBrowser *report() const { return report_; }
    QLabel *status() const { return status_; }
    bool running() const;
    // Asked before it starts: a reason not to (another measurement going), or empty.
    std::function<QString()> blockedReason;

  public slots:
    void start();
    void cancel();
    // Closing the dialog (its button, Esc) cancels its job.
    void done(int result) override;

  signals:
    void finished(bool completed);
    // A run of the reproduction made a session (the window's session list follows).
    void sessionsChanged();

  private:
    void progressed(const nlohmann::json &job);
    void ended(const nlohmann::json &job);
    void showReport(const nlohmann::json &job); // the header and the cases so far
    void setEditable(bool on);

    JobFollower *job_;
    QComboBox *case_;
    QSpinBox *repeat_;
    QSpinBox *seconds_;
    QPushButton *run_;
    QProgressBar *bar_;
    QLabel *status_;
    QTextBrowser *report_;
};

} // namespace ringlab::ui
