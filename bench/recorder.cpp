// SPDX-License-Identifier: GPL-2.0-or-later
// recorder: what recording sessions costs.
//  1. rows per second the session store sustains, and the size on disk of one hour at
//     10 Hz with the default metric set (samples taken from a real run);
//  2. datapath throughput with and without recording, alternating in one run, as a ratio.
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "bench_common.h"
#include "engine/metrics/sample_metrics.h"
#include "engine/store/recorder.h"
#include "engine/store/session_store.h"

using namespace ringlab;
using namespace ringlab::bench;
namespace fs = std::filesystem;

namespace {
double saturationRun(bool record, const fs::path &db)
{
    const ParamSet ps = paramsOrDie({{"load.rate_pps", "40000000"},
                                     {"load.frame_bytes", "64"},
                                     {"load.pattern", "constant"},
                                     {"link.mbps", "400000"},
                                     {"probe.rate_hz", "0"},
                                     {"poll.mode", "busy"},
                                     {"proc.ns_per_packet", "0"},
                                     {"rx.ring_size", "4096"},
                                     {"rx.pool_buffers", "32768"},
                                     {"tx.ring_size", "4096"},
                                     {"tx.coalesce_frames", "512"},
                                     {"poll.budget", "256"}});
    Engine engine(ps, deviceFactory(DeviceOptions{}), EngineOptions{100'000'000});
    auto c = std::make_shared<SampleCollector>();
    engine.subscribe(c);
    std::unique_ptr<SessionStore> store;
    std::shared_ptr<Recorder> rec;
    if (record) {
        store = std::make_unique<SessionStore>(db);
        SessionInfo info;
        info.name = "bench";
        info.device = engine.deviceInfo().name;
        info.profile = "bench";
        info.intervalS = 0.1;
        const auto id = store->createSession(info, ps);
        rec = std::make_shared<Recorder>(store->file(), id);
        engine.subscribe(rec);
    }
    if (auto st = engine.start(); !st.ok()) {
        std::fprintf(stderr, "recorder: %s\n", st.error.c_str());
        std::exit(1);
    }
    c->waitSamples(20);
    engine.stop();
    if (rec) rec->finish("completed");
    return median(
        series(c->samples(), 5, [](const Sample &x) { return x.rateOf(CounterId::RxPackets); }));
}
} // namespace

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    printMachine("recorder");
    const fs::path dir = fs::temp_directory_path() / ("ringlab-bench-" + std::to_string(getpid()));
    fs::create_directories(dir);

    // A real sample as the template: the default profile's metric set and threads.
    const auto real = runSim(ParamSet{}, 5);
    const Sample &tmpl = *real.back();
    const std::size_t perSample = flattenSample(tmpl).size();

    const int hourSamples = quick ? 3600 : 36000; // 10 Hz
    {
        SessionStore store(dir / "hour.db");
        SessionInfo info;
        info.name = "one hour";
        info.device = "synthetic samples";
        info.profile = "default";
        info.intervalS = 0.1;
        const auto id = store.createSession(info, ParamSet{});
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::shared_ptr<const Sample>> batch;
        for (int k = 0; k < hourSamples; ++k) {
            auto s = std::make_shared<Sample>(tmpl);
            s->seq = static_cast<std::uint64_t>(k);
            s->t = 0.1 * (k + 1);
            batch.push_back(s);
            if (batch.size() == 5) { // what the recorder commits every 500 ms at 10 Hz
                store.append(id, batch, {});
                batch.clear();
            }
        }
        store.append(id, batch, {});
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        store.finishSession(id, "completed");
        store.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        const double rows = static_cast<double>(hourSamples) * static_cast<double>(perSample);
        const double mb =
            static_cast<double>(fs::file_size(dir / "hour.db")) / 1e6 * (36000.0 / hourSamples);
        std::printf("metric rows per sample: %zu (default profile, %zu threads)\n", perSample,
                    tmpl.threads.size());
        std::printf("store: %d samples (%.0f rows) in %.2f s: %.0f rows/s, %.0f samples/s (%.0fx "
                    "real time at 10 Hz)\n",
                    hourSamples, rows, secs, rows / secs, hourSamples / secs,
                    hourSamples / secs / 10);
        std::printf("one hour at 10 Hz on disk: %.1f MB (goal <= 50 MB: %s)\n\n", mb,
                    mb <= 50 ? "met" : "NOT met");
    }

    std::vector<double> with, without;
    const int rounds = quick ? 1 : 5;
    for (int r = 0; r < rounds; ++r) {
        without.push_back(saturationRun(false, {}));
        with.push_back(saturationRun(true, dir / ("run" + std::to_string(r) + ".db")));
        std::printf("round %d: without recording %.2f Mpps, with recording %.2f Mpps\n", r + 1,
                    without.back() / 1e6, with.back() / 1e6);
    }
    const double ratio = median(with) / median(without);
    std::printf(
        "saturation throughput with / without recording (medians of %d alternating 2 s runs): %.3f "
        "(goal >= 0.98: %s)\n",
        rounds, ratio, ratio >= 0.98 ? "met" : "NOT met");
    fs::remove_all(dir);
    return 0;
}
