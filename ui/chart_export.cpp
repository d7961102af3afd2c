// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/chart_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QLabel>
#include <QPainter>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <fstream>

#include "engine/store/session_report.h"
#include "ui/charts_view.h"
#include "ui/session_charts.h"

namespace ringlab::ui {

Status saveWidgetImage(QWidget *widget, const QString &file)
{
    const QString suffix = QFileInfo(file).suffix().toLower();
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(file);
        svg.setSize(widget->size());
        svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
        svg.setTitle(QStringLiteral("Ringlab charts"));
        QPainter p;
        if (!p.begin(&svg)) return failedBecause(QObject::tr("cannot write %1").arg(file));
        widget->render(&p);
        p.end();
        return Status::success();
    }
    if (suffix != QLatin1String("png"))
        return refusedBecause(
            QObject::tr("%1: unknown image type (allowed: .png, .svg)").arg(file));
    if (!widget->grab().save(file, "PNG"))
        return failedBecause(QObject::tr("cannot write %1").arg(file));
    return Status::success();
}

Status renderSessionCharts(SessionStore &store, std::int64_t id, const QString &file, QSize size,
                           const QString &title)
{
    SessionData session = readSession(store, id);
    return renderSessionCharts(session, file, size, title);
}

Status renderSessionCharts(SessionData &session, const QString &file, QSize size,
                           const QString &title)
{
    if (!session.error.isEmpty()) return failedBecause(session.error);
    QWidget page;
    page.setAttribute(Qt::WA_DontShowOnScreen);
    page.setAutoFillBackground(true);
    page.setPalette(QPalette(Qt::white));
    auto *layout = new QVBoxLayout(&page);
    layout->setContentsMargins(8, 6, 8, 6);
    auto *heading = new QLabel(title.isEmpty() ? sessionTitle(session.info) : title);
    QFont f = heading->font();
    f.setPointSizeF(f.pointSizeF() * 1.25);
    f.setBold(true);
    heading->setFont(f);
    heading->setWordWrap(true);
    layout->addWidget(heading);
    auto *view = new ChartsView;
    view->setForExport();
    view->setSettingsGroup(QStringLiteral("charts")); // the series the user chose on screen
    layout->addWidget(view, 1);
    page.resize(size);
    page.show();
    showSessionCharts(*view, session);
    QCoreApplication::processEvents(); // lay the charts out at their size before drawing
    view->replot();
    view->settle(); // and line the plot areas up on the new labels
    return saveWidgetImage(&page, file);
}

Status exportSessionFile(SessionStore &store, std::int64_t id, const QString &file)
{
    const QString suffix = QFileInfo(file).suffix().toLower();
    if (suffix == QLatin1String("png") || suffix == QLatin1String("svg"))
        return renderSessionCharts(store, id, file, QSize(1200, 900), {});
    if (suffix != QLatin1String("csv") && suffix != QLatin1String("json"))
        return refusedBecause(
            QObject::tr("%1: unknown export type (allowed: .csv, .json, .png, .svg)").arg(file));
    std::ofstream out(file.toStdString());
    if (!out) return failedBecause(QObject::tr("cannot write %1").arg(file));
    if (suffix == QLatin1String("csv"))
        exportCsv(store, id, out);
    else
        exportJson(store, id, out);
    out.flush();
    if (!out) return failedBecause(QObject::tr("writing %1 failed").arg(file));
    return Status::success();
}

} // namespace ringlab::ui
