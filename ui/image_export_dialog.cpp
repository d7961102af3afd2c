// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/image_export_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

namespace ringlab::ui {

ImageExportDialog::ImageExportDialog(const QString &title, QSize size, QWidget *parent)
    : QDialog(parent), title_(new QLineEdit(title)), width_(new QSpinBox), height_(new QSpinBox)
{
    setWindowTitle(tr("Export charts"));
    for (QSpinBox *b : {width_, height_}) {
        b->setRange(400, 8000);
        b->setSuffix(tr(" px"));
        b->setSingleStep(100);
    }
    width_->setValue(size.width());
    height_->setValue(size.height());
    title_->setMinimumWidth(420);
    auto *form = new QFormLayout(this);
    form->addRow(tr("Title"), title_);
    auto *dims = new QHBoxLayout;
    dims->addWidget(width_);
    dims->addWidget(new QLabel(QStringLiteral("×")));
    dims->addWidget(height_);
    dims->addStretch(1);
    form->addRow(tr("Size"), dims);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

QString ImageExportDialog::title() const
{
    return title_->text();
}

QSize ImageExportDialog::imageSize() const
{
    return {width_->value(), height_->value()};
}

} // namespace ringlab::ui
