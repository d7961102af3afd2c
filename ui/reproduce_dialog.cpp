// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/reproduce_dialog.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "engine/experiments/napi_reproduction.h"
#include "engine/profile/reference_cases.h"
#include "ui/job_follower.h"
#include "ui/spin_box.h"

namespace ringlab::ui {

ReproduceDialog::ReproduceDialog(EngineController *engine, QWidget *parent)
    : QDialog(parent), job_(new JobFollower(engine, this))
{
    connect(job_, &JobFollower::updated, this, &ReproduceDialog::progressed);
    connect(job_, &JobFollower::ended, this, &ReproduceDialog::ended);
    connect(job_, &JobFollower::sessionAdded, this, &ReproduceDialog::sessionsChanged);
    setWindowTitle(tr("Reproduce a reference case"));
    case_ = new QComboBox;
    case_->addItem(tr("all five cases"), QStringLiteral("all"));
    for (const auto &c : referenceCases()) {
        case_->addItem(QString::fromUtf8(c.name.data(), static_cast<int>(c.name.size())),
                       QString::fromUtf8(c.name.data(), static_cast<int>(c.name.size())));
        case_->setItemData(case_->count() - 1,
                           QString::fromUtf8(c.title.data(), static_cast<int>(c.title.size())),
                           Qt::ToolTipRole);
    }
    // IRQ suspension's cases: a job of the engine on its kernel lab (root; an attached
    // engine needs the kernel grant), with a table of its own.
    case_->addItem(tr("napi (kernel lab, root)"),
                   QString::fromUtf8(kNapiCaseName.data(), int(kNapiCaseName.size())));
    case_->setItemData(case_->count() - 1,
                       tr("IRQ suspension's cases on a veth pair: base, defer, busy and suspend "
                          "at two request rates, round robin (docs/kernel.md)"),
                       Qt::ToolTipRole);
    repeat_ = spinBox(1, 20, 3, tr("Runs of each profile; 3 or more give an interval"));
    seconds_ = spinBox(2, 120, 5, tr("Length of each run; the first second is left out"), tr(" s"));
    run_ = new QPushButton(tr("Run"));
    run_->setDefault(true);
    connect(run_, &QPushButton::clicked, this, [this] { running() ? cancel() : start(); });

    auto *form = new QFormLayout;
    form->addRow(tr("Case"), case_);
    form->addRow(tr("Repeats"), repeat_);
    form->addRow(tr("Each run"), seconds_);
    auto *top = new QHBoxLayout;
    top->addLayout(form, 1);
    top->addWidget(run_, 0, Qt::AlignBottom);

    bar_ = new QProgressBar;
    bar_->setRange(0, 1);
    bar_->setValue(0);
    status_ = new QLabel(tr("Before and after profiles run interleaved; every run is recorded "
                            "as a session."));
    status_->setWordWrap(true);
    report_ = new QTextBrowser;
    report_->setOpenExternalLinks(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(bar_);
    layout->addWidget(status_);
    layout->addWidget(report_, 1);
    resize(900, 600);
}

bool ReproduceDialog::running() const
{
    return job_->running();
}

void ReproduceDialog::start()
{
    if (running()) return;
    if (blockedReason) {
        if (const QString why = blockedReason(); !why.isEmpty()) {
            status_->setText(why);
            return;
        }
    }
    const nlohmann::json spec = {{"kind", "reproduce"},
                                 {"case", case_->currentData().toString().toStdString()},
                                 {"repeat", repeat_->value()},
                                 {"duration", seconds_->value()}};
    report_->clear();
    bar_->setRange(0, 1);
    bar_->setValue(0);
    if (const Status st = job_->start(spec); !st.ok()) {
        status_->setText(errorText(st));
        return;
    }
    if (!job_->running()) return; // it has ended already (ended() said how)
    run_->setText(tr("Cancel"));
    setEditable(false);
    progressed(job_->last());
}

void ReproduceDialog::cancel()
{
    job_->cancel();
    status_->setText(tr("Cancelling: the run going stops within a poll slice…"));
}

void ReproduceDialog::progressed(const nlohmann::json &job)
{
    const auto p = job.value("progress", nlohmann::json::object());
    bar_->setRange(0, std::max(1, p.value("runs", 0)));
    bar_->setValue(p.value("done", 0));
    status_->setText(JobFollower::progressText(job));
    showReport(job);
}

void ReproduceDialog::showReport(const nlohmann::json &job)
{
    const auto result = job.value("result", nlohmann::json::object());
    if (!result.is_object()) return;
    std::string markdown = result.value("header", std::string());
    if (result.contains("napi") && result.contains("report") && result.at("report").is_string()) {
        markdown += result.at("report").get<std::string>(); // reproduce napi's one table
    } else if (result.contains("cases") && result.at("cases").is_array()) {
        for (const auto &c : result.at("cases"))
            if (c.is_object()) markdown += c.value("report", std::string());
    } else {
        return;
    }
    report_->setMarkdown(QString::fromStdString(markdown));
}

void ReproduceDialog::ended(const nlohmann::json &job)
{
    const bool completed = job.value("state", std::string()) == "completed";
    if (completed) bar_->setValue(bar_->maximum());
    showReport(job);
    status_->setText(completed ? tr("Done. Every run is in the Sessions list, grouped as "
                                    "\"reproduce CASE …\".")
                               : JobFollower::endText(job));
    run_->setText(tr("Run"));
    setEditable(true);
    emit finished(completed);
}

void ReproduceDialog::setEditable(bool on)
{
    case_->setEnabled(on);
    repeat_->setEnabled(on);
    seconds_->setEnabled(on);
}

ReproduceDialog::~ReproduceDialog()
{
    if (running()) job_->cancel(); // nothing follows it any more
}

void ReproduceDialog::done(int result)
{
    // Closed (the close button, Esc): the engine's job is cancelled, as it was when the
    // dialog ran it itself, and its runs so far are kept.
    if (running()) cancel();
    QDialog::done(result);
}

} // namespace ringlab::ui
