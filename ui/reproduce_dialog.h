// SPDX-License-Identifier: GPL-2.0-or-later
// Tools > Reproduce a reference case: runs `reproduce` (engine/experiments/reproduce_job) on
// a worker thread into the desktop's session database, shows its progress, and each case's
// table as soon as it is complete, as the command prints it.
#pragma once

#include <QDialog>

#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "ui/measurement_hold.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTextBrowser;

namespace ringlab::ui {

class NoticeLabel;

class ReproduceDialog : public QDialog {
    Q_OBJECT
  public:
    ReproduceDialog(std::filesystem::path database, QWidget *parent = nullptr);
    ~ReproduceDialog() override;

    QComboBox *caseBox() const { return case_; }
    QSpinBox *repeatBox() const { return repeat_; }
    QSpinBox *secondsBox() const { return seconds_; }
    QPushButton *runButton() const { return run_; }
    QTextBrowser *report() const { return report_; }
    // Where its runs go, when that is not where the window's other runs go (empty: hidden).
    void setNotice(const QString &text);
    QLabel *status() const { return status_; }
    bool running() const { return worker_.joinable(); }
    // The reproduction measuring, with its run; none while nothing runs (holdChanged).
    const MeasurementHold &hold() const { return hold_; }
    // Asked before it starts: a reason not to (another measurement going), or empty.
    std::function<QString()> blockedReason;

  public slots:
    void start();
    void cancel();

  signals:
    void finished(bool completed);
    // A reproduction began, moved to its next run, or ended.
    void holdChanged();

  protected:
    void closeEvent(QCloseEvent *e) override;

  private:
    void step(int run, int runs);
    void ended(int end, const QString &error);

    std::filesystem::path database_;
    QComboBox *case_;
    QSpinBox *repeat_;
    QSpinBox *seconds_;
    QPushButton *run_;
    QProgressBar *bar_;
    QLabel *status_;
    NoticeLabel *notice_;
    QTextBrowser *report_;
    QString markdown_;
    MeasurementHold hold_;
    std::atomic<bool> cancel_{false};
    std::thread worker_;
};

} // namespace ringlab::ui
