// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/experiments/napi_reproduction.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/common/host_info.h"
#include "engine/common/number_text.h"
#include "engine/experiments/recorded_run.h"
#include "engine/experiments/report_text.h"
#include "engine/profile/resolve_profile.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_store.h"

namespace ringlab {
namespace {

// Every case waits in epoll_wait (poll.mode interrupt), as the series' application does.
const std::vector<NapiCase> kCases = {
    {"base",
     "interrupts: each frame's interrupt schedules the NAPI, epoll_wait sleeps",
     {},
     0,
     0,
     "the reference",
     {"base", {416, 707}, {26, 41}}},
    {"defer",
     "napi_defer_hard_irqs 100, gro_flush_timeout 20 us: after a poll the interrupt "
     "stays masked and the NAPI's timer polls",
     {{"napi.defer_hard_irqs", "100"}, {"napi.gro_flush_timeout_ns", "20000"}},
     +1,
     0,
     "napi.rst: fewer interrupts; a frame may wait up to gro_flush_timeout",
     {"defer20", {153, 172}, {26, 47}}},
    {"busy",
     "epoll busy poll 64 us (budget 64, prefer_busy_poll) over defer 100 / 200 us",
     {{"epoll.busy_poll_us", "64"},
      {"epoll.busy_poll_budget", "64"},
      {"epoll.prefer_busy_poll", "1"},
      {"napi.defer_hard_irqs", "100"},
      {"napi.gro_flush_timeout_ns", "200000"}},
     -1,
     +1,
     "napi.rst: the application polls, interrupts stay masked; polling costs CPU",
     {"napibusy", {277, 272}, {56, 83}}},
    // The series' suspend20: its suspend cases busy-poll with busy_poll_usecs 0 (prefer
    // busy poll makes epoll_wait go through the NAPI once, not spin).
    {"suspend",
     "irq_suspend_timeout 20 ms over defer 100 / 20 us, epoll prefer_busy_poll (budget 64, "
     "busy_poll_usecs 0)",
     {{"epoll.busy_poll_us", "0"},
      {"epoll.busy_poll_budget", "64"},
      {"epoll.prefer_busy_poll", "1"},
      {"napi.defer_hard_irqs", "100"},
      {"napi.gro_flush_timeout_ns", "20000"},
      {"napi.irq_suspend_timeout_ns", "20000000"}},
     -1,
     +1,
     "the series: defer's p99 at a little more CPU than base; interrupts back when traffic "
     "stops",
     {"suspend20", {151, 169}, {30, 49}}},
};
constexpr std::array kRates{2000, 20000};
static_assert(kRates.size() == kNapiPublishedLoads.size());

constexpr const char *kPublished =
    "\"series\" is the cover letter's own table (net-next v7, "
    "<20241108023912.98416-1-jdamato@fastly.com>, fully re-run there and carried unchanged "
    "into v9, whose tests were not re-run): memcached under mutilate on an AMD EPYC 7662 with "
    "a ConnectX-5 (100 Gb/s, 8 RX queues, IRQs and memcached on the NIC's NUMA node), the "
    "median of about 10 runs' p99 and the mean CPU, its case named, at 200K queries/s beside "
    "this low rate and 400K beside the high one. Their loads are 100 and 20 times these, on "
    "eight queues: compare the changes against base, not the figures. Where a veth "
    "differs: it has no hardware interrupt (its 'interrupt' is the peer's transmit scheduling "
    "the NAPI, so deferring masks nothing the CPU pays for per frame), it has one queue here, "
    "and the client shares the machine, so CPU is the whole machine's.";

struct Cell {
    const NapiCase *c;
    int rate;
    ParamSet params;
    std::string group;
    std::vector<std::int64_t> ids;
};

std::string cellName(const Cell &cell)
{
    return std::string(cell.c->name) + " at " + std::to_string(cell.rate) + "/s";
}

std::string directionWords(const char *what, const Difference &d, int expected)
{
    if (!d.significant) return std::string(what) + " within noise";
    const int dir = d.diff > 0 ? +1 : -1;
    std::string out = std::string(what) + (dir > 0 ? " higher" : " lower");
    if (expected != 0) out += dir == expected ? " (as documented)" : " (documented: the opposite)";
    return out;
}

void fillRow(SessionStore &store, const Cell &cell, const NapiRow *base, double warmupS,
             NapiRow &row)
{
    row.c = cell.c;
    row.rate = cell.rate;
    row.sessions = cell.ids;
    const std::size_t load = static_cast<std::size_t>(
        std::find(kRates.begin(), kRates.end(), cell.rate) - kRates.begin());
    if (load < kNapiPublishedLoads.size()) {
        const NapiPublished &pub = cell.c->published, &pubBase = kCases.front().published;
        row.publishedLoad = kNapiPublishedLoads[load];
        row.publishedP99Us = pub.p99Us[load];
        row.publishedCpuPct = pub.cpuPct[load];
        row.publishedP99VsBasePct = (pub.p99Us[load] / pubBase.p99Us[load] - 1) * 100;
        row.publishedCpuVsBasePct = (pub.cpuPct[load] / pubBase.cpuPct[load] - 1) * 100;
    }
    const CompareSide side = compareSideOf(store, cell.ids, warmupS);
    auto values = [&](const std::string &name) {
        const auto it = side.values.find(name);
        return it == side.values.end() ? std::vector<double>{} : it->second;
    };
    const std::size_t batch = side.repeats ? 1 : kSamplesPerBatch;
    row.p99 = estimate(values("rtt_p99_us"), batch);
    row.cpu = estimate(values("machine_cpu_pct"), batch);
    // Who drove the polls: each source's frames as a share of all, from the BPF figures.
    const std::string prefix = "kernel_poll_packets_", suffix = "_per_s";
    double total = 0;
    std::vector<std::pair<std::string, double>> sources;
    for (const auto &[name, v] : side.values) {
        if (name.rfind(prefix, 0) != 0 || name.size() <= prefix.size() + suffix.size() || v.empty())
            continue;
        double sum = 0;
        for (double x : v)
            sum += x;
        const double mean = sum / static_cast<double>(v.size());
        sources.emplace_back(
            name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()), mean);
        total += mean;
    }
    for (auto &[source, mean] : sources)
        if (total > 0) row.pollShare.emplace_back(source, mean / total * 100);
    if (!row.p99.n || !row.cpu.n) {
        row.verdict = "not measured (no round trips or no CPU figure)";
        return;
    }
    if (cell.c == &kCases.front()) {
        row.verdict = "the reference";
        return;
    }
    if (!base) {
        row.verdict = "base not measured: nothing to compare with";
        return;
    }
    row.p99VsBase = compareEstimates(base->p99, row.p99);
    row.cpuVsBase = compareEstimates(base->cpu, row.cpu);
    if (!base->p99.n || !base->cpu.n) {
        row.verdict = "base has no figures: nothing to compare with";
        return;
    }
    if (std::min({row.p99.batches, row.cpu.batches, base->p99.batches, base->cpu.batches}) < 3) {
        row.verdict = "no interval: needs 3 or more repeats";
        return;
    }
    row.verdict = directionWords("p99", row.p99VsBase, cell.c->p99Expected) + ", " +
                  directionWords("CPU", row.cpuVsBase, cell.c->cpuExpected);
}

std::string change(const NapiRow &r, const Difference &d)
{
    if (r.c->name == "base" || !d.a) return "";
    std::string out;
    appendf(out, "%+.0f %%", d.pct);
    return out;
}

// The series' row beside ours: "defer20 153 us 26 % (-63 %, +0 %)".
std::string published(const NapiRow &r)
{
    if (r.publishedLoad.empty()) return "-";
    std::string out;
    appendf(out, "%s %.0f us %.0f %%", std::string(r.c->published.testcase).c_str(),
            r.publishedP99Us, r.publishedCpuPct);
    if (r.c != &kCases.front())
        appendf(out, " (%+.0f %%, %+.0f %%)", r.publishedP99VsBasePct, r.publishedCpuVsBasePct);
    return out;
}

std::string shares(const NapiRow &r)
{
    std::string out;
    for (const auto &[source, pct] : r.pollShare)
        if (pct >= 0.5) appendf(out, "%s%s %.0f", out.empty() ? "" : ", ", source.c_str(), pct);
    return out.empty() ? "-" : out;
}

// A row for each case and rate that has a run; each compared with its rate's base when the
// base has one.
void napiRows(SessionStore &store, const std::vector<Cell> &cells, std::size_t perRate,
              double warmupS, std::vector<NapiRow> &rows)
{
    rows.clear();
    rows.reserve(cells.size()); // the base pointers below stay valid
    for (std::size_t first = 0; first < cells.size(); first += perRate) {
        const NapiRow *base = nullptr;
        for (std::size_t k = first; k < first + perRate && k < cells.size(); ++k) {
            if (cells[k].ids.empty()) continue;
            rows.emplace_back();
            fillRow(store, cells[k], k == first ? nullptr : base, warmupS, rows.back());
            if (k == first) base = &rows.back();
        }
    }
}

} // namespace

const std::string_view kNapiPublishedSource = kPublished;

std::span<const NapiCase> napiCases()
{
    return kCases;
}

std::span<const int> napiRates()
{
    return kRates;
}

Outcome runNapiReproduction(const ReproduceOptions &o, int sigFd, std::vector<NapiRow> &rows,
                            std::string &error)
{
    if (!o.devices) {
        error = "reproduce napi: no device provider (a program's mistake)";
        return Outcome::Failed;
    }
    if (!o.device.empty() && o.device != kNapiDevice) {
        error = "napi runs on " + std::string(kNapiDevice) + ", not on --device " + o.device;
        return Outcome::Refused;
    }
    const auto say = [&](const std::string &msg) {
        if (o.progress) o.progress(msg);
    };
    const std::string stamp = isoTimeNow();
    // Every case's values first: a bad one stops the command before anything runs.
    std::vector<Cell> cells;
    for (int rate : kRates)
        for (const NapiCase &c : kCases) {
            Assignments set{{"poll.mode", "interrupt"}, {"load.rate_pps", std::to_string(rate)}};
            for (const auto &[name, value] : c.settings)
                set.emplace_back(name, value);
            ResolvedProfile resolved;
            if (auto st = resolveProfile("default", set, resolved, std::string(kNapiDevice),
                                         o.devices->defaultsFn());
                !st.ok()) {
                error = "napi " + std::string(c.name) + ": " + st.error;
                return Outcome::Refused;
            }
            cells.push_back({&c, rate, resolved.params, {}, {}});
            cells.back().group = "reproduce napi " + cellName(cells.back()) + " " + stamp;
        }
    SessionStore store(o.db.empty() ? SessionStore::defaultPath() : std::filesystem::path(o.db));
    const std::size_t perRate = kCases.size();
    // Cut short, the rows of what was measured still come back, to be printed.
    auto cut = [&](Outcome end, std::string why) {
        error = std::move(why);
        napiRows(store, cells, perRate, o.warmupS, rows);
        return end;
    };
    const int runs = static_cast<int>(cells.size()) * o.repeat;
    int done = 0;
    for (std::size_t first = 0; first < cells.size(); first += perRate)
        for (int r = 1; r <= o.repeat; ++r)
            for (std::size_t k = 0; k < perRate; ++k) {
                // Round robin, starting one case later each repeat: a drift over the runs
                // falls on every case alike.
                Cell &cell = cells[first + (k + static_cast<std::size_t>(r) - 1) % perRate];
                ++done;
                const std::string what = "napi: " + cellName(cell) + ", run " + std::to_string(r) +
                                         " of " + std::to_string(o.repeat) + " (" +
                                         std::to_string(done) + "/" + std::to_string(runs) + ")";
                say(what);
                if (o.onStep) o.onStep(done, runs);
                if (o.onProgress)
                    o.onProgress({done, runs, done - 1,
                                  static_cast<double>(runs - done + 1) *
                                      (static_cast<double>(o.durationNs) / 1e9 + 0.5),
                                  "napi: " + cellName(cell) + ", run " + std::to_string(r)});
                RecordedRun run;
                run.setup.params = cell.params;
                run.setup.profile = "default";
                run.setup.sessionName = "napi " + cellName(cell) + " #" + std::to_string(r);
                run.setup.runGroup = cell.group;
                run.setup.repeatIndex = r;
                run.setup.device.spec = std::string(kNapiDevice);
                run.durationNs = o.durationNs;
                run.started = o.onSessionStarted;
                std::int64_t id = 0;
                const Outcome end = recordRun(run, *o.devices, store, sigFd, o.cancelled, say, id);
                if (id && end == Outcome::Done) cell.ids.push_back(id); // a cut run: kept, not used
                if (end == Outcome::Interrupted)
                    return cut(end, "interrupted; the runs so far are in " + store.file().string() +
                                        " and in the table above");
                if (end != Outcome::Done)
                    return cut(Outcome::Failed, "napi: a run of " + cellName(cell) + " failed");
            }
    napiRows(store, cells, perRate, o.warmupS, rows);
    return Outcome::Done;
}

std::string formatNapiReproduction(const std::vector<NapiRow> &rows, bool markdown)
{
    std::string out;
    if (markdown) {
        out += "### Case: napi\n\nIRQ suspension's cases on the kernel lab. " +
               std::string(kPublished) + "\n\n";
        out += "| rate | case | rtt p99 (us)\\* | vs base | machine CPU (%) | vs base | rx by "
               "(% of frames) | series: p99, CPU (vs its base) | documented | verdict |\n";
        out += "|---:|---|---:|---:|---:|---:|---|---|---|---|\n";
        for (const NapiRow &r : rows)
            appendf(out, "| %d/s | %s | %s | %s | %s | %s | %s | %s at %s | %s | %s |\n", r.rate,
                    std::string(r.c->name).c_str(), withInterval(r.p99).c_str(),
                    change(r, r.p99VsBase).c_str(), withInterval(r.cpu).c_str(),
                    change(r, r.cpuVsBase).c_str(), shares(r).c_str(), published(r).c_str(),
                    std::string(r.publishedLoad).c_str(), std::string(r.c->expectedText).c_str(),
                    r.verdict.c_str());
        out += "\n";
        for (const NapiCase &c : kCases)
            out += "- " + std::string(c.name) + ": " + std::string(c.what) + "\n";
        return out +
               "\n\\* each 100 ms sample's p99 of the round trips, averaged over the run.\n\n";
    }
    out += "== napi: IRQ suspension's cases on the kernel lab\n";
    int rate = -1;
    for (const NapiRow &r : rows) {
        if (r.rate != rate) {
            rate = r.rate;
            appendf(out,
                    "\n   %d requests/s (the series: %s queries/s)\n   %-8s %20s %8s %20s %8s  "
                    "%-32s %-38s %s\n",
                    rate, std::string(r.publishedLoad).c_str(), "case", "rtt p99 (us)*", "vs base",
                    "machine CPU (%)", "vs base", "rx by (% of frames)",
                    "series: p99, CPU (vs its base)", "verdict");
        }
        appendf(out, "   %-8s %20s %8s %20s %8s  %-32s %-38s %s\n", std::string(r.c->name).c_str(),
                withInterval(r.p99).c_str(), change(r, r.p99VsBase).c_str(),
                withInterval(r.cpu).c_str(), change(r, r.cpuVsBase).c_str(), shares(r).c_str(),
                published(r).c_str(), r.verdict.c_str());
    }
    out += "\n";
    for (const NapiCase &c : kCases)
        out += "   " + std::string(c.name) + ": " + std::string(c.what) +
               ". Documented: " + std::string(c.expectedText) + ".\n";
    out += "   * each 100 ms sample's p99 of the round trips, averaged over the run.\n";
    out += "\n   " + std::string(kPublished) + "\n\n";
    return out;
}

} // namespace ringlab
