// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/session_commands.h"
#include "app/cli_model.h"
#include <memory>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "app/fd_stream.h"
#include "engine/common/utf8_text.h"
#include "engine/metrics/metric_table.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/store/file_identity.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_report.h"
#include "engine/store/session_store.h"

namespace ringlab {

namespace {

// Opens an existing database; says which file when there is none.
std::unique_ptr<SessionStore> openExisting(const SessionsOptions &o)
{
    const auto path = SessionStore::pathOr(o.db);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        std::fprintf(stderr,
                     "ringlab-engine: database %s does not exist yet (record a run first, or give "
                     "--db FILE)\n",
                     path.c_str());
        return nullptr;
    }
    try {
        return std::make_unique<SessionStore>(path);
    } catch (const DbError &e) {
        // A colleague's file or a read-only share: reading needs no write access.
        const auto dir =
            path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
        if (access(path.c_str(), W_OK) == 0 && access(dir.c_str(), W_OK) == 0) {
            std::fprintf(stderr, "ringlab-engine: %s\n", e.what());
            return nullptr;
        }
        try {
            return std::make_unique<SessionStore>(path, Db::Mode::ReadOnly);
        } catch (const DbError &again) {
            std::fprintf(stderr, "ringlab-engine: %s (read-only: %s)\n", e.what(), again.what());
            return nullptr;
        }
    }
}

bool findSession(SessionStore &store, std::int64_t id, SessionInfo &s)
{
    if (store.get(id, s)) return true;
    std::fprintf(stderr,
                 "ringlab-engine: no session %lld in %s (see 'ringlab-engine sessions list')\n",
                 static_cast<long long>(id), store.file().c_str());
    return false;
}

std::string shortTime(const std::string &iso)
{
    return iso.size() >= 19 ? iso.substr(0, 10) + " " + iso.substr(11, 8) : iso;
}
} // namespace

int sessionsList(const SessionsOptions &o)
{
    auto store = openExisting(o);
    if (!store) return 2;
    try {
        const auto all = store->list();
        std::printf("%5s  %-24s %-19s %9s  %-11s %-22s %12s\n", "id", "name", "start (UTC)",
                    "duration", "status", "profile", "mean rx pps");
        for (const auto &s : all)
            std::printf("%5lld  %-24s %-19s %8.1fs  %-11s %-22s %12.0f\n",
                        static_cast<long long>(s.id), terminalText(s.name).substr(0, 24).c_str(),
                        shortTime(s.createdAt).c_str(), s.durationS, s.status.c_str(),
                        terminalText(s.profile).substr(0, 22).c_str(), s.meanRxPps);
        if (all.empty()) std::printf("(no sessions in %s)\n", store->file().c_str());
    } catch (const DbError &e) {
        std::fprintf(stderr, "ringlab-engine: %s\n", e.what());
        return 1;
    }
    return 0;
}

int sessionsShow(const SessionsOptions &o)
{
    auto store = openExisting(o);
    if (!store) return 2;
    SessionInfo s;
    if (!findSession(*store, o.id, s)) return 2;
    std::printf("session %lld \"%s\" (%s)\n", static_cast<long long>(s.id),
                terminalText(s.name).c_str(), terminalText(s.uuid).c_str());
    std::printf("  status %s; started %s, ended %s, %.1f s, %lld samples every %.0f ms\n",
                s.status.c_str(), s.createdAt.c_str(), s.endedAt.empty() ? "-" : s.endedAt.c_str(),
                s.durationS, static_cast<long long>(s.sampleCount), s.intervalS * 1e3);
    std::printf("  device %s, profile %s\n", terminalText(s.device).c_str(),
                terminalText(s.profile).c_str());
    std::printf("  host %s: %s, %d cores, %s\n", s.host.hostname.c_str(), s.host.cpuModel.c_str(),
                s.host.cores, s.host.kernel.c_str());
    std::printf("  ringlab %s (%s)\n", s.engineVersion.c_str(), s.gitRevision.c_str());
    if (!s.notes.empty()) std::printf("  notes: %s\n", terminalText(s.notes).c_str());

    std::printf("\nenvironment:\n");
    const Environment env = store->environment(o.id);
    if (!env.recorded()) std::printf("  %s\n", std::string(kNotRecorded).c_str());
    for (const auto &f : env.facts)
        std::printf("  %-44s %s\n", terminalText(factLabel(f.key)).c_str(),
                    terminalText(f.shown()).c_str());

    std::printf("\nparameters at start (differing from the defaults):\n");
    const ParamSet defaults;
    int shown = 0;
    for (const auto &[name, value] : store->params(o.id)) {
        const TunableInfo *t = findTunable(name);
        if (t && defaults.text(t->id) == value) continue;
        std::printf("  %-22s %s\n", terminalText(name).c_str(), terminalText(value).c_str());
        ++shown;
    }
    if (!shown) std::printf("  (all defaults)\n");

    const SampleTable tab = store->samples(o.id);
    const auto segs = segmentsOf(tab, store->changes(o.id), o.warmupS);
    std::printf("\nsegments (means with 95 %% confidence, first %.1f s of each left out):\n",
                o.warmupS);
    // The segment table's default columns (the metric table's, keyMetrics()), as the
    // desktop's segment table opens.
    struct Column {
        std::string name, thread, heading;
    };
    std::vector<Column> columns;
    for (const std::string &key : keyMetrics()) {
        const std::size_t open = key.find('[');
        Column col{key.substr(0, open), {}, {}};
        if (open != std::string::npos) col.thread = key.substr(open + 1, key.size() - open - 2);
        const MetricDef *d = findMetric(col.name);
        col.heading = d ? metricHeading(*d, col.thread) : key;
        columns.push_back(std::move(col));
    }
    auto fmt = [](const Estimate &e) {
        char b[64];
        if (!e.n) return std::string("-");
        if (e.batches < 3)
            std::snprintf(b, sizeof b, "%.1f (too short)", e.mean);
        else
            std::snprintf(b, sizeof b, "%.1f ±%.1f", e.mean, e.ciHalf);
        return std::string(b);
    };
    std::vector<std::vector<std::string>> cells(segs.size());
    std::vector<std::size_t> width;
    for (const Column &col : columns)
        width.push_back(displayWidth(col.heading));
    for (std::size_t r = 0; r < segs.size(); ++r)
        for (std::size_t k = 0; k < columns.size(); ++k) {
            cells[r].push_back(
                fmt(estimateOf(tab, segs[r].rows, columns[k].name, columns[k].thread)));
            width[k] = std::max(width[k], displayWidth(cells[r].back()));
        }
    auto padded = [](const std::string &text, std::size_t w) {
        return text + std::string(w - std::min(w, displayWidth(text)) + 2, ' ');
    };
    std::string head;
    for (std::size_t k = 0; k < columns.size(); ++k)
        head += padded(columns[k].heading, width[k]);
    std::printf("  %3s %8s %8s  %s%s\n", "#", "from s", "to s", head.c_str(), "opened by");
    for (std::size_t r = 0; r < segs.size(); ++r) {
        std::string row;
        for (std::size_t k = 0; k < columns.size(); ++k)
            row += padded(cells[r][k], width[k]);
        std::printf("  %3d %8.1f %8.1f  %s%s\n", segs[r].index, segs[r].start, segs[r].end,
                    row.c_str(), segs[r].opened.c_str());
    }
    std::printf("\nevents:\n");
    // Built as strings: a label may be up to 64 KiB and is printed whole.
    std::vector<std::pair<double, std::string>> lines;
    auto at = [](double t) {
        char b[32];
        std::snprintf(b, sizeof b, "  %8.2f s  ", t);
        return std::string(b);
    };
    for (const auto &c : store->changes(o.id))
        lines.emplace_back(c.t, at(c.t) + terminalText(c.tunable) + ": " +
                                    terminalText(c.oldValue) + " -> " + terminalText(c.newValue) +
                                    " (" + terminalText(c.source) + ")");
    for (const auto &e : store->events(o.id))
        lines.emplace_back(e.t, at(e.t) + terminalText(e.kind) +
                                    (e.message.empty() ? "" : ": " + terminalText(e.message)));
    std::stable_sort(lines.begin(), lines.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &l : lines)
        std::printf("%s\n", l.second.c_str());
    return 0;
}

namespace {
// Refuses an output that would destroy a database: the one being read (whatever --force
// says: the export would replace every other session in it) or another SQLite file (unless
// --force).
bool outputAllowed(const SessionsOptions &o, const SessionStore &store)
{
    if (store.isFile(o.output)) {
        std::fprintf(stderr,
                     "ringlab-engine: export: --output %s is the database being read (%s) or "
                     "one of its side files (-wal, -shm, -journal); writing the export there "
                     "would destroy the sessions in it: give another file\n",
                     o.output.c_str(), store.file().c_str());
        return false;
    }
    if (!o.force && isSqliteFile(o.output)) {
        std::fprintf(stderr,
                     "ringlab-engine: export: --output %s is an existing SQLite database; "
                     "give another file, or --force to replace it\n",
                     o.output.c_str());
        return false;
    }
    return true;
}

} // namespace

int sessionsExport(const SessionsOptions &o)
{
    auto store = openExisting(o);
    if (!store) return 2;
    SessionInfo s;
    if (!findSession(*store, o.id, s)) return 2;
    if (o.format == "sqlite" && o.output.empty() && isatty(STDOUT_FILENO)) {
        std::fprintf(stderr, "ringlab-engine: --format sqlite writes a database file: give "
                             "--output FILE or redirect standard output\n");
        return 2;
    }
    if (!o.output.empty() && !outputAllowed(o, *store)) return 2;
    // A file is written beside its name and renamed when whole: a kill or a full disk never
    // leaves half an export where a complete one (or none) was. A device or a FIFO
    // (/dev/stdout, a pipe) is written as it is: renaming over it would replace it.
    std::error_code ec;
    const bool inPlace = !o.output.empty() && std::filesystem::exists(o.output, ec) &&
                         !std::filesystem::is_regular_file(o.output, ec);
    const bool partial = !o.output.empty() && !inPlace;
    const std::string target = partial ? o.output + ".part-" + std::to_string(getpid()) : o.output;
    const std::string shownName = o.output.empty() ? "standard output" : o.output;
    int fd = STDOUT_FILENO;
    if (!o.output.empty()) {
        fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd < 0) {
            std::fprintf(stderr, "ringlab-engine: cannot write %s: %s\n", o.output.c_str(),
                         std::strerror(errno));
            return 1;
        }
    }
    FdOStream out(fd);
    const Status written = writeExport(*store, o.id, o.format, out);
    out.flush();
    int err = out.error();
    if (fd != STDOUT_FILENO && ::close(fd) != 0 && !err) err = errno;
    if (!written.ok()) {
        std::fprintf(stderr, "ringlab-engine: %s\n", written.error.c_str());
        if (partial) std::remove(target.c_str());
        return 2;
    }
    if (!err && partial && std::rename(target.c_str(), o.output.c_str()) != 0) err = errno;
    if (err) {
        std::fprintf(stderr, "ringlab-engine: writing %s failed: %s\n", shownName.c_str(),
                     std::strerror(err));
        if (partial) std::remove(target.c_str());
        return 1;
    }
    if (!o.output.empty())
        std::fprintf(stderr, "ringlab-engine: session %lld written to %s\n",
                     static_cast<long long>(o.id), o.output.c_str());
    return 0;
}

int sessionsDelete(const SessionsOptions &o)
{
    auto store = openExisting(o);
    if (!store) return 2;
    SessionInfo s;
    if (!findSession(*store, o.id, s)) return 2;
    if (s.status == "running") {
        std::fprintf(
            stderr,
            "ringlab-engine: session %lld is still being recorded (pid %lld); stop it first\n",
            static_cast<long long>(o.id), static_cast<long long>(s.pid));
        return 2;
    }
    store->deleteSession(o.id);
    std::fprintf(stderr, "ringlab-engine: deleted session %lld \"%s\"\n",
                 static_cast<long long>(o.id), s.name.c_str());
    return 0;
}

int sessionsImport(const SessionsOptions &o)
{
    const auto path = SessionStore::pathOr(o.db);
    try {
        SessionStore store(path);
        const auto r = store.importFrom(o.other);
        std::fprintf(stderr, "ringlab-engine: imported %d session(s) from %s into %s", r.imported,
                     o.other.c_str(), path.c_str());
        if (r.skipped) std::fprintf(stderr, "; %d already there, skipped", r.skipped);
        std::fprintf(stderr, "\n");
    } catch (const DbError &e) {
        std::fprintf(stderr, "ringlab-engine: import: %s\n", e.what());
        return 1;
    }
    return 0;
}

int compareCommand(const SessionsOptions &o)
{
    auto store = openExisting(o);
    if (!store) return 2;
    auto sideA = loadCompareSide(*store, o.a, o.warmupS);
    auto sideB = sideA.ok() ? loadCompareSide(*store, o.b, o.warmupS) : sideA;
    if (!sideB.ok()) {
        std::fprintf(stderr, "ringlab-engine: compare: %s\n", sideB.error().c_str());
        return exitCode(sideB.status().outcome());
    }
    const CompareSide a = std::move(sideA).value(), b = std::move(sideB).value();
    if (a.label == b.label) {
        std::fprintf(
            stderr,
            "ringlab-engine: compare: A and B are the same (%s): pick two different sessions, "
            "segments or groups\n",
            a.label.c_str());
        return 2;
    }
    std::vector<std::string> metrics = o.metrics;
    if (metrics.empty()) metrics = defaultCompareMetrics(a, b);
    std::vector<std::string> missing;
    auto rows = compareSides(a, b, metrics, missing);
    const auto caveats = environmentCaveats(*store, a, b);
    addEnvironmentCaveat(rows, caveats);
    // A metric the user asked for by name that one side lacks is an error, not an empty table.
    int asked = 0;
    for (const auto &m : o.metrics)
        if (std::find(missing.begin(), missing.end(), m) != missing.end()) {
            std::fprintf(stderr,
                         "ringlab-engine: compare: metric \"%s\" is not in both sides (the "
                         "metrics are the column names of 'sessions export N --format csv', "
                         "e.g. rx_pps, latency_p99_us, cpu_ms_per_s[poll])\n",
                         terminalText(m).c_str());
            ++asked;
        }
    if (asked) return 2;
    std::printf("A: %s\nB: %s\n", a.label.c_str(), b.label.c_str());
    std::printf("%s; differences are B - A with their 95 %% confidence interval\n",
                a.repeats || b.repeats ? "repeats are the samples"
                                       : "samples are batch means of each run");
    for (const std::string &note : compareNotes(a, b))
        std::printf("note: %s\n", note.c_str());
    // What differs in the machines they ran on, most influential first.
    for (const auto &c : caveats)
        std::printf("caveat (%s): %s\n", std::string(rankName(c.rank)).c_str(),
                    terminalText(c.text()).c_str());
    std::printf("\n");
    std::printf("%-28s %14s %14s %14s %9s %14s  %s\n", "metric", "A", "B", "B - A", "%", "95 % CI",
                "verdict");
    for (const auto &r : rows) {
        char ci[32] = "-";
        if (r.diff.ciHalf > 0) std::snprintf(ci, sizeof ci, "±%.2f", r.diff.ciHalf);
        std::printf("%-28s %14.2f %14.2f %+14.2f %+8.1f%% %14s  %s\n",
                    (r.metric + " " + r.unit).substr(0, 28).c_str(), r.a.mean, r.b.mean,
                    r.diff.diff, r.diff.pct, ci, r.verdict.c_str());
    }
    return 0;
}

namespace {

// The options as given: --warmup is a duration's text until the command runs.
struct SessionsWords {
    SessionsOptions o;
    std::string warmup = "1s";
};

} // namespace

Subcommand addSessionsCommand(CLI::App &app)
{
    auto w = std::make_shared<SessionsWords>();
    SessionsOptions &so = w->o;
    auto *sessions = app.add_subcommand("sessions", "Work on recorded sessions");
    sessions->require_subcommand(1);
    addDbOption(sessions, so.db);
    auto *list = sessions->add_subcommand(
        "list", "id, name, start, duration, status, profile, mean throughput");
    auto *show = sessions->add_subcommand("show", "Parameters, segments with summaries, events");
    show->add_option("id", so.id, "Session id")->required()->check(sessionIdValidator());
    show->add_option("--warmup", w->warmup, "Left out at the start of each segment")
        ->check(durationValidator(0));
    auto *exportCmd = sessions->add_subcommand(
        "export", "One row per sample (CSV), everything (JSON), or a database to import elsewhere");
    exportCmd->add_option("id", so.id, "Session id")->required()->check(sessionIdValidator());
    std::string formatHelp;
    std::vector<std::string> formats;
    for (const auto &f : kExportFormats) {
        formatHelp += std::string(formatHelp.empty() ? "" : "; ") + std::string(f.name) + ": " +
                      std::string(f.help);
        formats.emplace_back(f.name);
    }
    exportCmd->add_option("--format,-f", so.format, formatHelp)
        ->check(CLI::IsMember(formats))
        ->capture_default_str();
    exportCmd->add_option("-o,--output", so.output, "File to write (default: standard output)")
        ->type_name(kValueFile);
    exportCmd->add_flag("--force", so.force,
                        "Replace an existing SQLite database given as --output (never the one "
                        "being read)");
    auto *deleteCmd =
        sessions->add_subcommand("delete", "Delete a session and everything recorded with it");
    deleteCmd->add_option("id", so.id, "Session id")->required()->check(sessionIdValidator());
    auto *importCmd = sessions->add_subcommand(
        "import", "Merge the sessions of another database (e.g. from another host)");
    importCmd->add_option("file", so.other, "The other database")
        ->required()
        ->type_name(kValueFile);
    for (auto *sub : {list, show, exportCmd, deleteCmd, importCmd})
        addDbOption(sub, so.db);
    // One of them was given (the parser requires it).
    const std::pair<CLI::App *, int (*)(const SessionsOptions &)> actions[] = {
        {list, sessionsList},
        {show, sessionsShow},
        {exportCmd, sessionsExport},
        {deleteCmd, sessionsDelete},
        {importCmd, sessionsImport}};
    return {sessions, [w, actions = std::vector(std::begin(actions), std::end(actions))] {
                w->o.warmupS = durationSeconds(w->warmup);
                for (const auto &[cli, action] : actions)
                    if (cli->parsed()) return action(w->o);
                return 2;
            }};
}

Subcommand addCompareCommand(CLI::App &app)
{
    auto w = std::make_shared<SessionsWords>();
    auto *compare =
        app.add_subcommand("compare", "Compare two sessions or segments metric by metric");
    compare->add_option("a", w->o.a, "A: session ID or segment ID:SEG")->required();
    compare->add_option("b", w->o.b, "B: session ID or segment ID:SEG")->required();
    compare
        ->add_option("--metric,-m", w->o.metrics,
                     "Metric to compare, e.g. rx_pps or cpu_ms_per_s[refill] (repeatable)")
        ->type_name(kValueMetric);
    compare->add_option("--warmup", w->warmup, "Left out at the start of each run or segment")
        ->check(durationValidator(0));
    addDbOption(compare, w->o.db);
    return {compare, [w] {
                w->o.warmupS = durationSeconds(w->warmup);
                return compareCommand(w->o);
            }};
}

} // namespace ringlab
