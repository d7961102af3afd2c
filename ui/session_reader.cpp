// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/session_reader.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "engine/store/session_report.h"

namespace ringlab::ui {

int SessionData::stalls() const
{
    return static_cast<int>(std::count(table.stall.begin(), table.stall.end(), Stall::Sampler));
}

SessionData readSession(SessionStore &store, std::int64_t id)
{
    SessionData d;
    d.id = id;
    try {
        if (!store.get(id, d.info)) {
            d.error = QObject::tr("no session %1 in %2")
                          .arg(id)
                          .arg(QString::fromStdString(store.file().string()));
            return d;
        }
        d.table = store.samples(id);
        // A slice at a time: an hour's Sample rows whole would be 40 MB more at the peak.
        constexpr std::size_t kSlice = 2000;
        for (std::size_t from = 0; from < d.table.seq.size(); from += kSlice)
            d.charts.append(ChartsView::prepare(samplesFromTable(d.table, from, from + kSlice)));
        d.changes = store.changes(id);
        d.events = store.events(id);
    } catch (const std::exception &e) {
        d = {};
        d.id = id;
        d.error = QString::fromStdString(e.what());
    }
    return d;
}

QFuture<SessionData> readSessionAsync(SessionStore &store, std::int64_t id)
{
    const std::filesystem::path file = store.file();
    if (file.empty() || file == ":memory:") {
        QPromise<SessionData> done;
        done.start();
        done.addResult(readSession(store, id));
        done.finish();
        return done.future();
    }
    return QtConcurrent::run([file, id] {
        try {
            SessionStore own(file, Db::Mode::ReadOnly);
            return readSession(own, id);
        } catch (const std::exception &e) {
            SessionData d;
            d.id = id;
            d.error = QString::fromStdString(e.what());
            return d;
        }
    });
}

} // namespace ringlab::ui
