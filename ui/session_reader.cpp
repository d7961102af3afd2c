// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/session_reader.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <limits>

#include "engine/store/session_report.h"

namespace ringlab::ui {

int SessionData::stalls() const
{
    return static_cast<int>(std::count(table.stall.begin(), table.stall.end(), Stall::Sampler));
}

namespace {
// A part of a session's samples, as a table and as the charts' series.
struct Part {
    SampleTable table;
    PreparedCharts charts;
    QString error;
};

Part readPart(SessionStore &store, std::int64_t id, std::int64_t seqFrom, std::int64_t seqTo)
{
    Part p;
    p.table = store.samples(id, seqFrom, seqTo);
    // A slice at a time: an hour's Sample rows whole would be 40 MB more at the peak.
    constexpr std::size_t kSlice = 2000;
    for (std::size_t from = 0; from < p.table.seq.size(); from += kSlice)
        ChartsView::prepareMore(p.charts, samplesFromTable(p.table, from, from + kSlice));
    return p;
}

constexpr std::int64_t kFirstSeq = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kPastLastSeq = std::numeric_limits<std::int64_t>::max();
// Below this many samples one thread reads the whole session: a second connection costs more
// than it saves.
constexpr std::int64_t kSplitAbove = 4000;
} // namespace

SessionData readSession(SessionStore &store, std::int64_t id)
{
    return readSession(store, id, {});
}

SessionData readSession(SessionStore &store, std::int64_t id, const std::filesystem::path &file)
{
    SessionData d;
    d.id = id;
    try {
        // A long session in two halves at once, the later on a connection and core of its
        // own: an hour's session (2.5 M values) is read and charted in about half the time
        // (gui_long_session's first paint, issue 46). What else the session has is read here
        // while the later half, the slower to start, is still being read.
        const auto [first, last] = store.sampleSeqRange(id);
        std::int64_t mid = kPastLastSeq;
        QFuture<Part> later;
        if (!file.empty() && last - first > kSplitAbove) {
            mid = first + (last - first) / 2;
            later = QtConcurrent::run([file, id, mid] {
                try {
                    SessionStore own(file, Db::Mode::ReadOnly);
                    return readPart(own, id, mid, kPastLastSeq);
                } catch (const std::exception &e) {
                    Part p;
                    p.error = QString::fromStdString(e.what());
                    return p;
                }
            });
        }
        Part part = readPart(store, id, kFirstSeq, mid);
        const bool found = store.get(id, d.info);
        if (found) {
            d.changes = store.changes(id);
            d.events = store.events(id);
        }
        Part rest = later.isValid() ? later.takeResult() : Part{};
        if (!found) {
            d = {};
            d.id = id;
            d.error = QObject::tr("no session %1 in %2")
                          .arg(id)
                          .arg(QString::fromStdString(store.file().string()));
            return d;
        }
        if (!rest.error.isEmpty()) {
            d = {};
            d.id = id;
            d.error = rest.error;
            return d;
        }
        d.table = std::move(part.table);
        d.charts = std::move(part.charts);
        d.table.append(std::move(rest.table));
        d.charts.append(std::move(rest.charts));
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
            return readSession(own, id, file);
        } catch (const std::exception &e) {
            SessionData d;
            d.id = id;
            d.error = QString::fromStdString(e.what());
            return d;
        }
    });
}

} // namespace ringlab::ui
