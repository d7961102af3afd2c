// SPDX-License-Identifier: GPL-2.0-or-later
// "Connect to engine...": the address of an engine that `ringlab-engine serve` offers over
// TCP, its token (typed, or read from a file), and the engines used before.
#pragma once

#include <QDialog>
#include <QUrl>

#include "ui/status_text.h"

class QComboBox;
class QLineEdit;
class QLabel;

namespace ringlab::ui {

class ConnectDialog : public QDialog {
    Q_OBJECT
  public:
    explicit ConnectDialog(QWidget *parent = nullptr);
    void setAddress(const QUrl &url);
    QUrl url() const;
    QByteArray token() const;
    // The engines connected to before, newest first (kept in QSettings).
    static QStringList recent();
    static void remember(const QUrl &url);
    // "HOST:PORT", "http://HOST:PORT" or "https://HOST:PORT" as a URL; invalid otherwise.
    static QUrl parseAddress(const QString &text);
    // The token in a file (readTokenFile: this user's, mode 0600 or 0400, one word); empty
    // with `error` when it cannot be read or is not one.
    static Result<QByteArray> readToken(const QString &file);

  private:
    void check();
    QComboBox *address_;
    QLineEdit *token_;
    QLabel *problem_;
};

} // namespace ringlab::ui
