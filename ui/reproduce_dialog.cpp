// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/reproduce_dialog.h"
#include "ui/notice_label.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "engine/experiments/reproduce_job.h"
#include "engine/profile/reference_cases.h"

namespace ringlab::ui {

ReproduceDialog::ReproduceDialog(std::filesystem::path database, QWidget *parent)
    : QDialog(parent), database_(std::move(database))
{
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
    repeat_ = new QSpinBox;
    repeat_->setRange(1, 20);
    repeat_->setValue(3);
    repeat_->setToolTip(tr("Runs of each profile; 3 or more give an interval"));
    seconds_ = new QSpinBox;
    seconds_->setRange(2, 120);
    seconds_->setValue(5);
    seconds_->setSuffix(tr(" s"));
    seconds_->setToolTip(tr("Length of each run; the first second is left out"));
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

    notice_ = new NoticeLabel;
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(notice_);
    layout->addLayout(top);
    layout->addWidget(bar_);
    layout->addWidget(status_);
    layout->addWidget(report_, 1);
    resize(900, 600);
}

ReproduceDialog::~ReproduceDialog()
{
    cancel_ = true;
    if (worker_.joinable()) worker_.join();
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
    ReproduceOptions o;
    o.which = case_->currentData().toString().toStdString();
    o.repeat = repeat_->value();
    o.durationNs = static_cast<std::int64_t>(seconds_->value()) * 1'000'000'000;
    o.warmupS = 1.0;
    o.db = database_.string();
    const int total =
        (o.which == "all" ? static_cast<int>(referenceCases().size()) : 1) * 2 * o.repeat;
    markdown_ = QString::fromStdString(reproduceHeader(o, true));
    report_->setMarkdown(markdown_);
    bar_->setRange(0, total);
    bar_->setValue(0);
    cancel_ = false;
    run_->setText(tr("Cancel"));
    case_->setEnabled(false);
    repeat_->setEnabled(false);
    seconds_->setEnabled(false);

    hold_ = {MeasurementHold::Kind::Reproduction, QDateTime::currentDateTime(), 0, total,
             tr("in Tools > Reproduce")};
    emit holdChanged();

    // The worker reports through queued calls: the dialog outlives it (it joins it).
    o.progress = [this](const std::string &msg) {
        const QString text = QString::fromStdString(msg);
        QMetaObject::invokeMethod(
            this, [this, text] { status_->setText(text); }, Qt::QueuedConnection);
    };
    o.onStep = [this](int run, int runs) {
        QMetaObject::invokeMethod(
            this, [this, run, runs] { step(run, runs); }, Qt::QueuedConnection);
    };
    o.onCase = [this](const ReproduceCase &c) {
        const QString table = QString::fromStdString(formatReproduceCase(c, true));
        QMetaObject::invokeMethod(
            this,
            [this, table] {
                markdown_ += table;
                report_->setMarkdown(markdown_);
            },
            Qt::QueuedConnection);
    };
    o.cancelled = [this] { return cancel_.load(); };
    worker_ = std::thread([this, o] {
        std::string error;
        ReproduceEnd end = ReproduceEnd::Failed;
        try {
            end = runReproduce(o, -1, error);
        } catch (const std::exception &e) {
            error = e.what();
        }
        QMetaObject::invokeMethod(
            this, [this, end, err = QString::fromStdString(error)] { ended(int(end), err); },
            Qt::QueuedConnection);
    });
}

void ReproduceDialog::cancel()
{
    cancel_ = true;
    status_->setText(tr("Cancelling after the current run's sample…"));
}

void ReproduceDialog::step(int run, int runs)
{
    if (!hold_.held()) return;
    bar_->setRange(0, runs);
    bar_->setValue(std::max(0, run - 1));
    hold_.step = run;
    hold_.steps = runs;
    emit holdChanged();
}

void ReproduceDialog::ended(int end, const QString &error)
{
    if (worker_.joinable()) worker_.join();
    const bool completed = static_cast<ReproduceEnd>(end) == ReproduceEnd::Completed;
    if (completed) bar_->setValue(bar_->maximum());
    status_->setText(completed ? tr("Done. Every run is in the Sessions list, grouped as "
                                    "\"reproduce CASE … before/after\".")
                               : error);
    run_->setText(tr("Run"));
    case_->setEnabled(true);
    repeat_->setEnabled(true);
    seconds_->setEnabled(true);
    hold_ = {};
    emit holdChanged();
    emit finished(completed);
}

void ReproduceDialog::closeEvent(QCloseEvent *e)
{
    if (running()) {
        cancel();
        worker_.join(); // the current run stops within 100 ms
    }
    QDialog::closeEvent(e);
}

void ReproduceDialog::setNotice(const QString &text)
{
    notice_->setNotice(text);
}

} // namespace ringlab::ui
