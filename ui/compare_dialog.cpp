// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/compare_dialog.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "engine/session_compare.h"
#include "engine/session_report.h"
#include "ui/charts_view.h"
#include "ui/compare_model.h"

namespace ringlab::ui {

CompareDialog::CompareDialog(SessionStore &store, std::int64_t a, std::int64_t b, QWidget *parent)
    : QDialog(parent), charts_(new ChartsView), model_(new CompareModel(this)),
      table_(new QTableView)
{
    setWindowTitle(tr("Compare session %1 (A) with session %2 (B)").arg(a).arg(b));
    resize(1200, 860);
    auto *layout = new QVBoxLayout(this);
    CompareSide sa, sb;
    std::string err;
    if (!loadCompareSide(store, std::to_string(a), 1.0, sa, err) ||
        !loadCompareSide(store, std::to_string(b), 1.0, sb, err)) {
        error_ = QString::fromStdString(err);
        layout->addWidget(new QLabel(error_));
        return;
    }
    if (sa.label == sb.label) {
        error_ = tr("A and B are the same (%1): pick two different sessions")
                     .arg(QString::fromStdString(sa.label));
        layout->addWidget(new QLabel(error_));
        return;
    }
    SessionInfo ia, ib;
    store.get(a, ia);
    store.get(b, ib);
    auto *title = new QLabel(tr("<b>A</b>: %1 — %2 (solid) &nbsp;&nbsp; <b>B</b>: %3 — %4 "
                                "(dashed, same colours); time is relative to each start")
                                 .arg(a)
                                 .arg(QString::fromStdString(ia.name).toHtmlEscaped())
                                 .arg(b)
                                 .arg(QString::fromStdString(ib.name).toHtmlEscaped()));
    layout->addWidget(title);
    auto *split = new QSplitter(Qt::Vertical);
    charts_->setWindow(ChartsView::kWholeSession);
    charts_->appendOverlay(samplesFromTable(store.samples(a)), QStringLiteral(" A"), false);
    charts_->appendOverlay(samplesFromTable(store.samples(b)), QStringLiteral(" B"), true);
    split->addWidget(charts_);
    std::vector<std::string> missing;
    model_->setRows(compareSides(sa, sb, {}, missing));
    table_->setModel(model_);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->resizeColumnsToContents();
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split);
    ok_ = true;
}

} // namespace ringlab::ui
