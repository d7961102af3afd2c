// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/connect_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>

#include "engine/common/token_file.h"
#include "engine/run/engine_socket.h"
#include "ui/remote_link.h"

namespace ringlab::ui {

namespace {
const QString kRecentKey = QStringLiteral("engines/recent");
constexpr int kRecentCount = 8;
} // namespace

ConnectDialog::ConnectDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Connect to engine"));
    auto *form = new QFormLayout(this);
    auto *intro = new QLabel(
        tr("An engine started with <tt>ringlab-engine serve</tt> (docs/api.md): on this "
           "machine, its socket <tt>unix:PATH</tt> (the group <tt>ringlab</tt> may use it, no "
           "token); on another, <tt>HOST:PORT</tt> and its token."));
    intro->setWordWrap(true);
    form->addRow(intro);
    address_ = new QComboBox;
    address_->setEditable(true);
    address_->addItems(recent());
    const std::string local = localEngineSocket();
    address_->setCurrentText(
        recent().value(0, local.empty() ? QStringLiteral("http://127.0.0.1:7787")
                                        : QStringLiteral("unix:") + QString::fromStdString(local)));
    address_->setMinimumContentsLength(28);
    form->addRow(tr("&Address:"), address_);
    token_ = new QLineEdit;
    token_->setEchoMode(QLineEdit::Password);
    token_->setPlaceholderText(tr("the contents of the engine's token file"));
    token_->setMinimumWidth(token_->fontMetrics().horizontalAdvance(token_->placeholderText()) +
                            24);
    auto *fromFile = new QPushButton(tr("From &file…"));
    auto *tokenRow = new QHBoxLayout;
    tokenRow->addWidget(token_, 1);
    tokenRow->addWidget(fromFile);
    auto *tokenLabel = new QLabel(tr("&Token:"));
    tokenLabel->setBuddy(token_);
    form->addRow(tokenLabel, tokenRow);
    problem_ = new QLabel;
    problem_->setStyleSheet(QStringLiteral("color: #b00020"));
    problem_->setWordWrap(true);
    form->addRow(problem_);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Connect"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(fromFile, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Token file"));
        if (f.isEmpty()) return;
        if (const auto t = readToken(f); t.ok())
            token_->setText(QString::fromUtf8(t.value()));
        else
            problem_->setText(errorText(t.status()));
    });
    const auto recheck = [this, buttons] {
        check();
        buttons->button(QDialogButtonBox::Ok)->setEnabled(problem_->text().isEmpty());
    };
    connect(address_, &QComboBox::currentTextChanged, this, recheck);
    connect(token_, &QLineEdit::textChanged, this, recheck);
    recheck();
}

void ConnectDialog::check()
{
    const QUrl url = parseAddress(address_->currentText());
    const bool local = url.isValid() && RemoteLink::isLocalSocket(url);
    token_->setEnabled(!local); // a socket's access is its group
    if (!url.isValid())
        problem_->setText(tr("\"%1\" is not an engine's address: unix:PATH, HOST:PORT or "
                             "http(s)://HOST:PORT")
                              .arg(address_->currentText()));
    else if (!local && token_->text().trimmed().size() < 16)
        problem_->setText(tr("The token has at least 16 characters"));
    else
        problem_->clear();
}

void ConnectDialog::setAddress(const QUrl &url)
{
    address_->setCurrentText(url.toString());
    token_->setFocus();
}

QUrl ConnectDialog::url() const
{
    return parseAddress(address_->currentText());
}

QByteArray ConnectDialog::token() const
{
    return token_->text().trimmed().toUtf8();
}

QStringList ConnectDialog::recent()
{
    return QSettings().value(kRecentKey).toStringList();
}

void ConnectDialog::remember(const QUrl &url)
{
    QUrl clean = url;
    clean.setUserInfo({}); // never a password in the settings
    QStringList list = recent();
    list.removeAll(clean.toString());
    list.prepend(clean.toString());
    while (list.size() > kRecentCount)
        list.removeLast();
    QSettings().setValue(kRecentKey, list);
}

QUrl ConnectDialog::parseAddress(const QString &text)
{
    const QString t = text.trimmed();
    if (t.startsWith(QLatin1String("unix:")) || t.startsWith(QLatin1Char('/'))) {
        const QString path = t.startsWith(QLatin1Char('/')) ? t : t.mid(5);
        if (!path.startsWith(QLatin1Char('/')) || path.size() < 2) return {};
        QUrl u;
        u.setScheme(QStringLiteral("unix"));
        u.setPath(path);
        return u;
    }
    QUrl u(t.contains(QLatin1String("://")) ? t : QStringLiteral("http://") + t);
    if (!u.isValid() ||
        (u.scheme() != QLatin1String("http") && u.scheme() != QLatin1String("https")) ||
        u.host().isEmpty() || u.port() <= 0 ||
        (!u.path().isEmpty() && u.path() != QLatin1String("/")))
        return {};
    u.setPath({});
    return u;
}

Result<QByteArray> ConnectDialog::readToken(const QString &file)
{
    // The server's own checks (owner, mode, one word): a token others can read is refused
    // here as `serve` refuses it.
    std::string token;
    if (Status st = readTokenFile(file.toStdString(), file.toStdString(), token); !st.ok())
        return st;
    return QByteArray::fromStdString(token);
}

} // namespace ringlab::ui
