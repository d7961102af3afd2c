// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/compare_dialog.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <map>

#include "engine/metrics/sample_metrics.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_report.h"
#include "ui/compare_model.h"
#include "ui/distribution_charts.h"

namespace ringlab::ui {

namespace {
constexpr int kBoxes = 5; // a box for each of keyMetrics()
}

CompareDialog::CompareDialog(SessionStore &store, std::int64_t a, std::int64_t b, QWidget *parent)
    : QDialog(parent), store_(store), a_(a), b_(b), boxA_(new QComboBox(this)),
      boxB_(new QComboBox(this)), notes_(new QLabel(this)), plotGrid_(new QGridLayout),
      model_(new CompareModel(this)), table_(new QTableView(this))
{
    setWindowTitle(tr("Compare session %1 (A) with session %2 (B)").arg(a).arg(b));
    // The screen it opens on, whole: at 1280x800 the table stays on it.
    const QRect avail =
        (parent && parent->screen() ? parent->screen() : QGuiApplication::primaryScreen())
            ->availableGeometry();
    resize(std::min(1200, avail.width() * 95 / 100), std::min(860, avail.height() * 9 / 10));
    auto *layout = new QVBoxLayout(this);
    SessionInfo ia, ib;
    if (!store.get(a, ia) || !store.get(b, ib)) {
        error_ = tr("no session %1 in %2")
                     .arg(store.get(a, ia) ? b : a)
                     .arg(QString::fromStdString(store.file().string()));
        layout->addWidget(new QLabel(error_));
        delete plotGrid_; // never given to a widget
        plotGrid_ = nullptr;
        return;
    }
    auto *form = new QFormLayout;
    form->addRow(
        tr("<b>A</b>: session %1 %2").arg(a).arg(QString::fromStdString(ia.name).toHtmlEscaped()),
        boxA_);
    form->addRow(
        tr("<b>B</b>: session %1 %2").arg(b).arg(QString::fromStdString(ib.name).toHtmlEscaped()),
        boxB_);
    layout->addLayout(form);
    // The notes and caveats scroll in at most a few lines: however many there are, the plots
    // and the table keep their room (nine caveats squeezed the box plots under the table).
    notes_->setWordWrap(true);
    notes_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *notesArea = new QScrollArea(this);
    notesArea->setWidget(notes_);
    notesArea->setWidgetResizable(true);
    notesArea->setFrameShape(QFrame::NoFrame);
    notesArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    notesArea->setMaximumHeight(7 * notes_->fontMetrics().lineSpacing() + 4);
    layout->addWidget(notesArea);
    fillSide(boxA_, a);
    fillSide(boxB_, b);
    for (QComboBox *box : {boxA_, boxB_})
        connect(box, &QComboBox::currentIndexChanged, this, &CompareDialog::recompute);

    auto *split = new QSplitter(Qt::Vertical);
    auto *plots = new QWidget;
    plots->setLayout(plotGrid_);
    plotGrid_->setContentsMargins(0, 0, 0, 0);
    split->addWidget(plots);
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setMinimumHeight(160);
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    recompute();
}

void CompareDialog::fillSide(QComboBox *box, std::int64_t id)
{
    const SampleTable tab = store_.samples(id);
    const auto segs = segmentsOf(tab, store_.changes(id), 1.0);
    std::size_t longest = 0;
    for (std::size_t k = 0; k < segs.size(); ++k) {
        box->addItem(tr("segment %1: %2 (%3–%4 s)")
                         .arg(segs[k].index)
                         .arg(QString::fromStdString(segs[k].opened))
                         .arg(segs[k].start, 0, 'f', 1)
                         .arg(segs[k].end, 0, 'f', 1),
                     QStringLiteral("%1:%2").arg(id).arg(segs[k].index));
        if (segs[k].end - segs[k].start > segs[longest].end - segs[longest].start) longest = k;
    }
    if (segs.size() <= 1) {
        // One setting: the session itself (which stands for its group of repeats, if any).
        box->clear();
        box->addItem(tr("the whole session (one setting)"), QString::number(id));
        return;
    }
    box->addItem(tr("the whole session: %1 settings averaged").arg(segs.size()),
                 QString::number(id));
    box->setCurrentIndex(static_cast<int>(longest));
}

void CompareDialog::recompute()
{
    // Nothing of the previous pair stays on screen beside an error.
    for (QWidget *w : plots_)
        delete w;
    plots_.clear();
    model_->setRows({});
    const std::string specA = boxA_->currentData().toString().toStdString(),
                      specB = boxB_->currentData().toString().toStdString();
    ok_ = false;
    auto sideA = loadCompareSide(store_, specA, 1.0);
    auto sideB = sideA.ok() ? loadCompareSide(store_, specB, 1.0) : sideA;
    if (!sideB.ok()) {
        error_ = QString::fromStdString(sideB.error());
        notes_->setText(error_);
        return;
    }
    const CompareSide sa = std::move(sideA).value(), sb = std::move(sideB).value();
    if (sa.label == sb.label) {
        error_ = tr("A and B are the same (%1): pick two different sessions or segments")
                     .arg(QString::fromStdString(sa.label));
        notes_->setText(error_);
        model_->setRows({});
        return;
    }
    QStringList notes;
    for (const std::string &n : compareNotes(sa, sb))
        notes << tr("Note: %1.").arg(QString::fromStdString(n));
    for (QComboBox *box : {boxA_, boxB_})
        if (box->count() > 2 && !box->currentData().toString().contains(QLatin1Char(':')))
            notes << tr("<span style='color:#c62828'>%1 averages several settings: compare a "
                        "segment for a verdict about one.</span>")
                         .arg(box == boxA_ ? QStringLiteral("A") : QStringLiteral("B"));
    // Every difference in the machines they ran on, most influential first.
    std::vector<EnvironmentDifference> caveats;
    try {
        caveats = environmentCaveats(store_, sa, sb);
    } catch (const DbError &e) {
        notes << tr("The environments could not be read: %1")
                     .arg(QString::fromStdString(e.what()).toHtmlEscaped());
    }
    for (const auto &c : caveats)
        notes << tr("<span style='color:#c62828'>Caveat (%1): %2</span>")
                     .arg(QString::fromStdString(std::string(rankName(c.rank))),
                          QString::fromStdString(c.text()).toHtmlEscaped());
    notes_->setText(notes.join(QStringLiteral("<br>")));
    std::vector<std::string> missing;
    auto rows = compareSides(sa, sb, {}, missing);
    addEnvironmentCaveat(rows, caveats);
    orderForReading(rows);
    // The boxes mark the means the rows compare.
    std::map<std::string, std::pair<double, double>> rowMeans;
    for (const CompareRow &r : rows)
        rowMeans[r.metric] = {r.a.mean, r.b.mean};
    model_->setRows(std::move(rows));
    table_->resizeColumnsToContents();

    QWidget *tail = makeTailChart(sa, sb);
    plotGrid_->addWidget(tail, 0, 0, 2, 1);
    plots_ << tail;
    for (int k = 0; k < kBoxes && k < static_cast<int>(keyMetrics().size()); ++k) {
        const std::string &m = keyMetrics()[static_cast<std::size_t>(k)];
        const auto ia = sa.values.find(m), ib = sb.values.find(m);
        if (ia == sa.values.end() || ib == sb.values.end()) continue;
        const auto means = rowMeans.find(m);
        QWidget *box = means == rowMeans.end()
                           ? makeBoxChart(QString::fromStdString(m), ia->second, ib->second)
                           : makeBoxChart(QString::fromStdString(m), ia->second, ib->second,
                                          means->second.first, means->second.second);
        plotGrid_->addWidget(box, k / 3, 1 + k % 3);
        plots_ << box;
    }
    plotGrid_->setColumnStretch(0, 3);
    for (int c = 1; c <= 3; ++c)
        plotGrid_->setColumnStretch(c, 2);
    error_.clear();
    ok_ = true;
}

} // namespace ringlab::ui
