// SPDX-License-Identifier: GPL-2.0-or-later
// Asks how to draw exported charts: the title above them and the image's size.
#pragma once

#include <QDialog>

class QLineEdit;
class QSpinBox;

namespace ringlab::ui {

class ImageExportDialog : public QDialog {
    Q_OBJECT
  public:
    ImageExportDialog(const QString &title, QSize size, QWidget *parent = nullptr);
    QString title() const;
    QSize imageSize() const;

  private:
    QLineEdit *title_;
    QSpinBox *width_, *height_;
};

} // namespace ringlab::ui
