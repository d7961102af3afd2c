// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a recorded session back: its segments (one per parameter setting) with
// summaries, and its export as CSV (one row per sample) or JSON (everything).
#pragma once

#include <array>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/status.h"
#include "engine/metrics/statistics.h"
#include "engine/store/session_store.h"

namespace ringlab {

struct Segment {
    int index = 0; // 1-based
    double start = 0, end = 0;
    std::string opened;            // "poll.sleep_min_us 20 -> 2000" or "start"
    std::vector<std::size_t> rows; // samples wholly inside, after the warm-up
};

// Segments split at parameter changes. A sample that straddles a change belongs to neither
// side; the first `warmupS` seconds of each segment are left out unless nothing would be left.
// A last change after which no whole sample was measured opens no segment.
std::vector<Segment> segmentsOf(const SampleTable &tab, const std::vector<ParamChangeRow> &changes,
                                double warmupS);

// The estimate of one metric over some rows.
Estimate estimateOf(const SampleTable &tab, const std::vector<std::size_t> &rows,
                    const std::string &name, const std::string &thread = {});

// A text cell safe for spreadsheets: cells that start like a formula (=, +, -, @) get a
// leading apostrophe; cells with commas, quotes or line breaks are quoted.
std::string csvCell(const std::string &text);
std::string csvNumber(double v); // '.' as decimal separator whatever the locale; empty for NaN

// The same table from samples held in memory (a live session), and its parameter changes
// from the engine's events.
SampleTable tableFromSamples(const std::vector<std::shared_ptr<const Sample>> &samples);
// The same, one sample at a time (a live view appends as samples arrive).
class SampleTableBuilder {
  public:
    void add(const Sample &s);
    const SampleTable &table() const { return tab_; }
    void clear();

  private:
    SampleTable tab_;
    std::map<std::string, std::size_t> index_; // "name\tthread" -> column
};
std::vector<ParamChangeRow> changesFromEvents(const std::vector<Event> &events);
// Samples rebuilt from a recorded table (for charts of a recorded session).
std::vector<std::shared_ptr<const Sample>> samplesFromTable(const SampleTable &tab);
// Rows [from, to) only (a long session converted a slice at a time).
std::vector<std::shared_ptr<const Sample>> samplesFromTable(const SampleTable &tab,
                                                            std::size_t from, std::size_t to);

void exportCsv(SessionStore &store, std::int64_t session, std::ostream &out);
void exportJson(SessionStore &store, std::int64_t session, std::ostream &out);

// The forms a session is exported in, for `sessions export`, the API and the desktop.
struct ExportFormat {
    std::string_view name, contentType, help;
};
inline constexpr std::array<ExportFormat, 4> kExportFormats{{
    {"csv", "text/csv", "one row per sample"},
    {"json", "application/json", "everything, as JSON"},
    {"sqlite", "application/vnd.sqlite3",
     "a session database holding this session, for `sessions import` elsewhere"},
    {"environment", "text/csv",
     "the environment it ran on, one row per fact: key,label,rank,value,absent"},
}};
const ExportFormat *findExportFormat(std::string_view name);
// "csv, json or sqlite"
std::string exportFormatNames();
// Writes the session in the format (one of kExportFormats).
[[nodiscard]] Status writeExport(SessionStore &store, std::int64_t session, std::string_view format,
                                 std::ostream &out);

} // namespace ringlab
