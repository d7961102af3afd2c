// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/sweep_tab.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <cmath>

#include "engine/common/number_text.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/profile/profile.h"
#include "engine/store/session_store.h"
#include "engine/store/sweep_store.h"
#include "ui/engine_controller.h"
#include "ui/job_follower.h"
#include "ui/session_mirror.h"
#include "ui/spin_box.h"
#include "ui/sweep_chart.h"

namespace ringlab::ui {
namespace {

QStringList splitItems(const QString &text)
{
    QStringList out;
    for (const QString &part : text.split(QLatin1Char(';'), Qt::SkipEmptyParts))
        if (!part.trimmed().isEmpty()) out << part.trimmed();
    return out;
}

QString cell(const Estimate &e)
{
    const auto num = [](double v) { return QString::fromStdString(shortNumber(v)); };
    return e.batches >= 3 ? num(e.mean) + QStringLiteral(" ±") + num(e.ciHalf)
                          : num(e.mean) + QObject::tr(" (no CI)");
}

} // namespace

SweepTab::SweepTab(EngineController *engine, QWidget *parent)
    : QWidget(parent), engine_(engine), job_(new JobFollower(engine, this))
{
    connect(job_, &JobFollower::updated, this, &SweepTab::progressed);
    connect(job_, &JobFollower::ended, this, &SweepTab::ended);
    connect(job_, &JobFollower::sessionAdded, this, &SweepTab::sessionsChanged);
    auto *layout = new QHBoxLayout(this);
    layout->addWidget(buildSetup());
    layout->addLayout(buildResults(), 1);
}

QWidget *SweepTab::buildSetup()
{
    makeSweepFields();
    makeTuneFields();
    makeRunControls();

    auto *setup = new QGroupBox(tr("Set up"));
    auto *setupLayout = new QVBoxLayout(setup);
    setupLayout->addLayout(buildForm());
    setupLayout->addWidget(run_);
    setupLayout->addWidget(bar_);
    setupLayout->addWidget(status_);
    setupLayout->addStretch(1);
    setup->setMinimumWidth(250);
    setup->setMaximumWidth(380);
    return setup;
}

void SweepTab::makeSweepFields()
{
    mode_ = new QComboBox;
    // Short names (the box is 250 px wide at 1024x640); what each does in the item's tip.
    mode_->addItem(tr("Sweep"));
    mode_->setItemData(0, tr("Sweep: one point per setting"), Qt::ToolTipRole);
    mode_->addItem(tr("Tune"));
    mode_->setItemData(1, tr("Tune: find the setting for a goal"), Qt::ToolTipRole);
    profile_ = new QComboBox;
    for (const auto &p : listProfiles())
        profile_->addItem(QString::fromStdString(p.name));
    profile_->setCurrentText(QStringLiteral("kni-sleep-100-200"));

    vary_ = new QLineEdit(QStringLiteral("poll.sleep_min_us=5..1000:log:5"));
    vary_->setToolTip(tr("One axis per ';': NAME=V1,V2,... or NAME=LO..HI[:lin|:log][:N]. "
                         "Several axes are crossed as a grid."));
    tie_ = new QLineEdit(QStringLiteral("poll.sleep_max_us=2*poll.sleep_min_us"));
    tie_->setToolTip(tr("Tunables computed at every point, NAME=EXPRESSION, separated by ';'"));
    repeat_ = spinBox(1, 20, 1, tr("Runs per point; 3 or more give intervals across runs"));
    seconds_ =
        spinBox(1, 600, 3, tr("Length of each run; the first half second is left out"), tr(" s"));
}

void SweepTab::makeTuneFields()
{
    sense_ = new QComboBox;
    sense_->addItems({tr("minimize"), tr("maximize")});
    objective_ = new QLineEdit(QStringLiteral("engine_cpu_ms_per_s"));
    constraints_ = new QLineEdit(QStringLiteral("latency_p50_us<=60"));
    constraints_->setToolTip(tr("METRIC OP NUMBER, separated by ';' (OP: <=, <, >=, >, ==)"));
    over_ = new QLineEdit(QStringLiteral("poll.sleep_min_us=5..2000"));
    over_->setToolTip(tr("Tunables to search, NAME or NAME=LO..HI, separated by ';'"));
    budget_ = spinBox(4, 500, 12, tr("Runs in all, the repeats at the best settings included"));
}

// One form, so that every field starts at one edge: the mode's own rows are shown, the
// other mode's hidden (no space kept for them).
QFormLayout *SweepTab::buildForm()
{
    auto *form = new QFormLayout;
    // Every field may be as narrow as the box at 1024x640 (its text scrolls or elides), and
    // grows with the box: nothing is cut off at its right edge (issue 46 item 8).
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (QComboBox *b : {mode_, profile_, sense_}) {
        b->setMinimumContentsLength(8);
        b->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    }
    // A field narrower than its text shows its start (the tunable's name), not its end.
    for (QLineEdit *e : {vary_, tie_, objective_, constraints_, over_}) {
        e->setMinimumWidth(60);
        e->setCursorPosition(0);
    }
    form->addRow(tr("Mode"), mode_);
    form->addRow(tr("Profile"), profile_);
    form->addRow(tr("Vary"), vary_);
    form->addRow(tr("Repeats"), repeat_);
    auto *goal = new QHBoxLayout;
    goal->addWidget(sense_);
    goal->addWidget(objective_, 1);
    form->addRow(tr("Goal"), goal);
    form->addRow(tr("Subject to"), constraints_);
    form->addRow(tr("Over"), over_);
    form->addRow(tr("Budget"), budget_);
    form->addRow(tr("Tie"), tie_);
    form->addRow(tr("Each run"), seconds_);
    const auto showMode = [form, goal, this](int mode) {
        const bool tuning = mode == 1;
        // Before the form is in the window only hiding is done: a row shown while its layout
        // has no parent widget would open as a window of its own.
        const auto setRow = [form](auto *field, bool visible) {
            if (!visible || form->parentWidget()) form->setRowVisible(field, visible);
        };
        setRow(vary_, !tuning);
        setRow(repeat_, !tuning);
        setRow(goal, tuning);
        setRow(constraints_, tuning);
        setRow(over_, tuning);
        setRow(budget_, tuning);
    };
    connect(mode_, &QComboBox::currentIndexChanged, this, showMode);
    showMode(mode_->currentIndex());
    return form;
}

void SweepTab::makeRunControls()
{
    run_ = new QPushButton(tr("Run"));
    connect(run_, &QPushButton::clicked, this, [this] { running() ? cancel() : start(); });
    bar_ = new QProgressBar;
    bar_->setRange(0, 1);
    bar_->setValue(0);
    status_ = new QLabel(tr("Every run is recorded as a session; an interrupted sweep keeps "
                            "what it measured."));
    status_->setWordWrap(true);
}

QLayout *SweepTab::buildResults()
{
    QLayout *pick = buildPicker();
    makeResultViews();
    QWidget *chartBox = buildChartBox();
    auto *results = new QSplitter(Qt::Vertical);
    results->addWidget(chartBox);
    results->addWidget(table_);
    results->addWidget(report_);
    results->setStretchFactor(0, 4);
    results->setStretchFactor(1, 2);
    results->setStretchFactor(2, 1);
    results->setSizes({4000, 2000, 1000}); // scaled to the space there is: the chart first
    auto *right = new QVBoxLayout;
    right->addLayout(pick);
    right->addWidget(results, 1);
    return right;
}

QLayout *SweepTab::buildPicker()
{
    sweeps_ = new QComboBox;
    sweeps_->setMinimumContentsLength(12);
    sweeps_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    sweeps_->setToolTip(tr("Sweeps in the session database, newest first"));
    x_ = new QComboBox;
    y_ = new QComboBox;
    for (QComboBox *b : {x_, y_}) {
        b->setEditable(true);
        b->setMinimumContentsLength(12);
        b->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        for (const auto &m : engineMetricNames())
            if (m.find('[') == std::string::npos) b->addItem(QString::fromStdString(m));
    }
    x_->setCurrentText(QStringLiteral("engine_cpu_ms_per_s"));
    y_->setCurrentText(QStringLiteral("latency_p99_us"));
    for (QComboBox *b : {x_, y_})
        b->lineEdit()->setCursorPosition(0); // the metric's start in view, as in the fields
    connect(sweeps_, &QComboBox::activated, this,
            [this](int k) { showSweep(sweeps_->itemData(k).toString()); });
    connect(x_, &QComboBox::currentTextChanged, this, [this] { redraw(); });
    connect(y_, &QComboBox::currentTextChanged, this, [this] { redraw(); });
    // Two rows, so that the tab fits beside the docks at 1280x800.
    auto *pick = new QGridLayout;
    pick->addWidget(new QLabel(tr("Sweep")), 0, 0);
    pick->addWidget(sweeps_, 0, 1, 1, 3);
    pick->addWidget(new QLabel(tr("x")), 1, 0);
    pick->addWidget(x_, 1, 1);
    pick->addWidget(new QLabel(tr("y")), 1, 2);
    pick->addWidget(y_, 1, 3);
    pick->setColumnStretch(1, 1);
    pick->setColumnStretch(3, 1);
    return pick;
}

void SweepTab::makeResultViews()
{
    chart_ = new SweepChart;
    connect(chart_, &SweepChart::pointClicked, this, [this](int, qint64 session) {
        if (session > 0) emit openSessionRequested(session);
    });
    table_ = new QTableWidget;
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (row < 0 || row >= static_cast<int>(shownTable_.points.size())) return;
        const auto &s = shownTable_.points[static_cast<std::size_t>(row)].sessions;
        if (!s.empty()) emit openSessionRequested(s.front());
    });
    report_ = new QTextBrowser;
    report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    report_->setMinimumHeight(60);
    report_->setLineWrapMode(QTextEdit::NoWrap);
}

QWidget *SweepTab::buildChartBox()
{
    // What the front and the bars mean, under the chart.
    auto *caption = new QLabel;
    caption->setWordWrap(true);
    caption->setObjectName(QStringLiteral("sweepChartCaption"));
    caption->setToolTip(tr("An interval is over the repeats of a point, or with one run over "
                           "its 0.5 s batches; a point with fewer than 3 of either has none. "
                           "Hover a point for its figures, click it to open its session."));
    QFont small = caption->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    caption->setFont(small);
    connect(chart_, &SweepChart::captionChanged, caption, &QLabel::setText);
    auto *chartBox = new QWidget;
    auto *chartLayout = new QVBoxLayout(chartBox);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->setSpacing(2);
    chartLayout->addWidget(chart_, 1);
    chartLayout->addWidget(caption);
    return chartBox;
}

QString SweepTab::progress() const
{
    return running() ? JobFollower::progressText(job_->last()) : QString();
}

bool SweepTab::running() const
{
    return job_->running();
}

void SweepTab::reload(const QString &select)
{
    sweeps_->clear();
    std::vector<SweepRecord> list;
    if (engine_->remote()) copySweepSessions();
    const auto opened = engine_->sessionStore();
    if (!opened.ok()) {
        status_->setText(errorText(opened.status()));
        return;
    }
    SessionStore *store = opened.value();
    try {
        list = listSweeps(*store);
    } catch (const std::exception &e) {
        status_->setText(QString::fromStdString(e.what()));
        return;
    }
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
        QString varies;
        for (const auto &a : it->spec.axes)
            varies += (varies.isEmpty() ? QString() : QStringLiteral(", ")) +
                      QString::fromStdString(a.tunable);
        sweeps_->addItem(tr("%1  %2: %3 (%4/%5 runs)")
                             .arg(QString::fromStdString(it->id),
                                  QString::fromStdString(it->spec.profile), varies)
                             .arg(it->completedRuns())
                             .arg(it->plannedRuns()),
                         QString::fromStdString(it->id));
    }
    const QString want = !select.isEmpty() ? select : shown_;
    int k = want.isEmpty() ? 0 : sweeps_->findData(want);
    if (k < 0) k = 0;
    if (sweeps_->count()) {
        sweeps_->setCurrentIndex(k);
        showSweep(sweeps_->itemData(k).toString());
    }
}

bool SweepTab::showSweep(const QString &id)
{
    const auto opened = engine_->sessionStore();
    if (!opened.ok()) {
        status_->setText(errorText(opened.status()));
        return false;
    }
    SessionStore *store = opened.value();
    try {
        const auto loaded = loadSweep(*store, id.toStdString());
        if (!loaded.ok()) {
            status_->setText(QString::fromStdString(loaded.error()));
            return false;
        }
        const SweepRecord &rec = loaded.value();
        std::vector<std::string> metrics = defaultSweepMetrics();
        for (QComboBox *b : {x_, y_}) {
            const std::string m = metricLabel(b->currentText().toStdString());
            if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
        }
        shownRecord_ = rec;
        shownTable_ = sweepTable(*store, rec, metrics);
        shown_ = id;
        report_->setPlainText(
            QString::fromStdString(formatSweep(rec, shownTable_, SweepFormat::Table)));
    } catch (const std::exception &e) {
        status_->setText(QString::fromStdString(e.what()));
        return false;
    }
    if (int k = sweeps_->findData(id); k >= 0) sweeps_->setCurrentIndex(k);
    // The axes offer what this sweep measured, per-thread figures included.
    QStringList labels;
    for (const auto &p : shownTable_.points)
        for (const auto &[label, e] : p.metrics)
            if (!labels.contains(QString::fromStdString(label)))
                labels << QString::fromStdString(label);
    if (!labels.isEmpty()) {
        labels.sort();
        for (QComboBox *b : {x_, y_}) {
            const QString keep = b->currentText();
            const QSignalBlocker block(b);
            b->clear();
            b->addItems(labels);
            b->setCurrentText(keep);
            b->lineEdit()->setCursorPosition(0);
        }
    }
    fillTable();
    chart_->show(shownTable_, metricLabel(x_->currentText().toStdString()),
                 metricLabel(y_->currentText().toStdString()));
    return true;
}

void SweepTab::redraw()
{
    if (!shown_.isEmpty()) showSweep(shown_);
}

void SweepTab::fillTable()
{
    const SweepTable &t = shownTable_;
    QStringList headers{tr("point")};
    std::vector<std::string> knobs;
    if (!t.points.empty())
        for (const auto &[n, v] : t.points.front().point.values) {
            knobs.push_back(n);
            headers << QString::fromStdString(n);
        }
    for (const auto &m : t.metrics)
        headers << QString::fromStdString(m);
    headers << tr("front") << tr("runs");
    table_->clear();
    table_->setColumnCount(static_cast<int>(headers.size()));
    table_->setHorizontalHeaderLabels(headers);
    // The table's front is over all its metrics; the chart's over the two it shows.
    table_->horizontalHeaderItem(static_cast<int>(headers.size()) - 2)
        ->setToolTip(tr("On the Pareto front of the table's metrics with a better side (the "
                        "report below names them); the chart's front is of its two metrics"));
    table_->setRowCount(static_cast<int>(t.points.size()));
    for (std::size_t r = 0; r < t.points.size(); ++r) {
        const PointResult &p = t.points[r];
        int c = 0;
        auto put = [&](const QString &text) {
            auto *item = new QTableWidgetItem(text);
            if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(static_cast<int>(r), c++, item);
        };
        put(QString::number(p.point.index));
        for (const auto &[n, v] : p.point.values)
            put(QString::fromStdString(v));
        for (const auto &m : t.metrics) {
            const auto it = p.metrics.find(m);
            put(it == p.metrics.end() ? (p.sessions.empty() ? tr("not run") : QStringLiteral("-"))
                                      : cell(it->second));
        }
        put(t.front[r] ? tr("✓ front")
            : t.beatenBy[r] >= 0
                ? (t.beaten(static_cast<std::size_t>(r)) ? tr("beaten by %1")
                                                         : tr("within noise of %1"))
                      .arg(t.beatenBy[r])
                : QString());
        put(QString::number(p.sessions.size()));
    }
}

void SweepTab::start()
{
    if (running()) return;
    if (blockedReason) {
        if (const QString why = blockedReason(); !why.isEmpty()) {
            status_->setText(why);
            return;
        }
    }
    mode_->currentIndex() == 0 ? startSweep() : startTune();
}

namespace {

// A field of ';'-separated items as the API's list of words.
nlohmann::json words(const QLineEdit *edit)
{
    nlohmann::json out = nlohmann::json::array();
    for (const QString &item : splitItems(edit->text()))
        out.push_back(item.toStdString());
    return out;
}

} // namespace

void SweepTab::startSweep()
{
    // The engine checks every point against the profile and the registry before it starts
    // (a mistake is its refusal, at once), and takes the grid's words as `--grid` does.
    submit({{"kind", "sweep"},
            {"profile", profile_->currentText().toStdString()},
            {"grid", words(vary_)},
            {"tie", words(tie_)},
            {"repeat", repeat_->value()},
            {"duration", seconds_->value()}},
           -1);
}

void SweepTab::startTune()
{
    submit({{"kind", "tune"},
            {"profile", profile_->currentText().toStdString()},
            {sense_->currentIndex() == 1 ? "maximize" : "minimize",
             objective_->text().trimmed().toStdString()},
            {"subject_to", words(constraints_)},
            {"over", words(over_)},
            {"tie", words(tie_)},
            {"budget", budget_->value()},
            {"duration", seconds_->value()}},
           budget_->value());
}

void SweepTab::submit(const nlohmann::json &spec, int runs)
{
    shownRuns_ = -1;
    if (runs > 0) bar_->setRange(0, runs);
    bar_->setValue(0);
    if (const Status st = job_->start(spec); !st.ok()) {
        status_->setText(errorText(st));
        return;
    }
    if (!job_->running()) return; // it has ended already (ended() said how)
    run_->setText(tr("Cancel"));
    progressed(job_->last());
}

void SweepTab::progressed(const nlohmann::json &job)
{
    const auto p = job.value("progress", nlohmann::json::object());
    bar_->setRange(0, std::max(1, p.value("runs", 0)));
    bar_->setValue(p.value("done", 0));
    status_->setText(JobFollower::progressText(job));
    // The sweep so far, after each run it measured.
    const auto result = job.value("result", nlohmann::json::object());
    if (result.is_object() && result.contains("sweep")) {
        const int done = result.value("completed_runs", 0);
        if (done != shownRuns_) {
            shownRuns_ = done;
            reload(QString::fromStdString(result.value("sweep", std::string())));
        }
    }
}

void SweepTab::ended(const nlohmann::json &job)
{
    const std::string state = job.value("state", std::string());
    const auto result = job.value("result", nlohmann::json::object());
    const bool tune = job.value("kind", std::string()) == "tune";
    const bool found = tune && result.is_object() && result.value("found", false);
    const bool completed = state == "completed" && (!tune || found);
    run_->setText(tr("Run"));
    if (state == "completed") bar_->setValue(bar_->maximum());
    QString text = JobFollower::endText(job);
    if (tune && state == "completed" && !found)
        text = tr("No setting met the constraints: see the report below");
    status_->setText(text);
    if (tune && result.is_object() && result.contains("report") && result["report"].is_string())
        report_->setPlainText(QString::fromStdString(result["report"].get<std::string>()));
    if (!tune && result.is_object() && result.contains("sweep"))
        reload(QString::fromStdString(result.value("sweep", std::string())));
    emit sessionsChanged();
    emit message(completed ? tr("Sweep/tune finished") : text, 8000);
    emit finished(completed);
}

void SweepTab::copySweepSessions(const QList<qint64> &ids)
{
    QList<qint64> wanted = ids;
    if (wanted.isEmpty()) {
        const auto mirror = engine_->mirror();
        if (!mirror.ok()) return;
        const auto list = mirror.value()->list();
        if (!list.ok()) return;
        for (const auto &s : list.value())
            if (s.runGroup.starts_with("sweep ") && s.status != "running") wanted << s.id;
    }
    if (wanted.isEmpty()) return;
    if (const Status st = engine_->fetchSessions(wanted); !st.ok()) status_->setText(errorText(st));
}

void SweepTab::cancel()
{
    job_->cancel();
    status_->setText(tr("Cancelling: the run going stops within a poll slice…"));
}

} // namespace ringlab::ui
