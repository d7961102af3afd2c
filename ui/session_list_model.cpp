// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/session_list_model.h"

#include <QDateTime>

namespace ringlab::ui {

void SessionListModel::setSessions(std::vector<SessionInfo> sessions)
{
    beginResetModel();
    rows_ = std::move(sessions);
    endResetModel();
}

void SessionListModel::setEnvironments(std::map<std::int64_t, Environment> environments,
                                       QString missing)
{
    environments_ = std::move(environments);
    missingEnvironment_ = std::move(missing);
    if (!rows_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

QString environmentSummary(const Environment &env)
{
    constexpr qsizetype kTipValueChars = 110; // a line of the tooltip fits a 1280 px screen
    if (!env.recorded())
        return SessionListModel::tr("environment: %1")
            .arg(QString::fromUtf8(kNotRecorded.data(),
                                   static_cast<qsizetype>(kNotRecorded.size())));
    QStringList lines;
    int absent = 0;
    for (const auto &f : env.facts) {
        absent += f.present() ? 0 : 1;
        const FactSpec *spec = findFactSpec(f.key);
        // The facts that move a result most: kernel, frequency, CPU, load, and each port's
        // driver (placement and the rest are in `sessions show` and the compare dialog).
        const bool shown = spec && spec->key != "kernel.cmdline" &&
                           ((spec->rank <= FactRank::Load && spec->rank != FactRank::Placement) ||
                            spec->key == "port.driver");
        if (!shown) continue;
        QString value = QString::fromStdString(f.shown());
        if (value.size() > kTipValueChars) value = value.left(kTipValueChars - 1) + QChar(0x2026);
        lines << QStringLiteral("%1: %2").arg(QString::fromStdString(factLabel(f.key)), value);
    }
    lines << SessionListModel::tr("%1 of %2 facts absent (ringlab-engine sessions show ID lists "
                                  "every one)")
                 .arg(absent)
                 .arg(env.facts.size());
    return SessionListModel::tr("environment:\n  %1").arg(lines.join(QStringLiteral("\n  ")));
}

const SessionInfo *SessionListModel::session(int row) const
{
    return row >= 0 && row < static_cast<int>(rows_.size()) ? &rows_[static_cast<std::size_t>(row)]
                                                            : nullptr;
}

int SessionListModel::rowOf(std::int64_t id) const
{
    for (std::size_t k = 0; k < rows_.size(); ++k)
        if (rows_[k].id == id) return static_cast<int>(k);
    return -1;
}

QVariant SessionListModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char *titles[] = {"id", "name", "start", "duration", "status", "profile"};
    return section >= 0 && section < 6 ? tr(titles[section]) : QVariant();
}

QVariant SessionListModel::data(const QModelIndex &index, int role) const
{
    const SessionInfo *s = index.isValid() ? session(index.row()) : nullptr;
    if (!s) return {};
    if (role == Qt::UserRole) return QVariant::fromValue<qint64>(s->id);
    if (role == Qt::ToolTipRole)
        return (index.column() == 1 ? QString::fromStdString(s->name) + QStringLiteral("\n")
                                    : QString()) +
               tr("%1 on %2 (%3, %4 cores)\nringlab %5 (%6)")
                   .arg(QString::fromStdString(s->device), QString::fromStdString(s->host.hostname),
                        QString::fromStdString(s->host.cpuModel))
                   .arg(s->host.cores)
                   .arg(QString::fromStdString(s->engineVersion),
                        QString::fromStdString(s->gitRevision)) +
               [&] {
                   const auto it = environments_.find(s->id);
                   if (it != environments_.end())
                       return QStringLiteral("\n") + environmentSummary(it->second);
                   return missingEnvironment_.isEmpty()
                              ? QString()
                              : QStringLiteral("\n") + missingEnvironment_;
               }();
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case 0:
        return QVariant::fromValue<qint64>(s->id);
    case 1:
        return QString::fromStdString(s->name);
    case 2: {
        const auto when =
            QDateTime::fromString(QString::fromStdString(s->createdAt), Qt::ISODateWithMs)
                .toLocalTime();
        return when.isValid() ? when.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                              : QString::fromStdString(s->createdAt);
    }
    case 3:
        if (s->status == "running") return tr("%1 s, running").arg(s->durationS, 0, 'f', 0);
        return QStringLiteral("%1 s").arg(s->durationS, 0, 'f', 1);
    case 4:
        return QString::fromStdString(s->status);
    case 5:
        return QString::fromStdString(s->profile);
    }
    return {};
}

void SessionListModel::setLiveDuration(std::int64_t id, double seconds)
{
    const int r = rowOf(id);
    if (r < 0) return;
    rows_[static_cast<std::size_t>(r)].durationS = seconds;
    emit dataChanged(index(r, 3), index(r, 3), {Qt::DisplayRole});
}

} // namespace ringlab::ui
