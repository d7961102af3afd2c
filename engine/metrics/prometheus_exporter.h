// SPDX-License-Identifier: GPL-2.0-or-later
// A run in the Prometheus text exposition format (version 0.0.4), for `GET /metrics`: a
// subscriber that keeps running totals as samples arrive and renders them on request.
//
//   ringlab_<counter>_total                 every engine counter except the drop causes
//   ringlab_dropped_frames_total{cause}     drops, one series per cause (kDropCauses)
//   ringlab_thread_cpu_seconds_total{thread}, ringlab_thread_wakeups_total{thread}
//   ringlab_thread_poll_gap_max_seconds{thread}   the last interval's longest poll gap
//   ringlab_latency_seconds, ringlab_probe_rtt_seconds   histograms (arrival to TX done)
//   ringlab_<gauge>                          ring, pool and hand-off occupancy; moderation
//   ringlab_device_value{name,unit}, ringlab_device_total{name,unit}   the device's own figures
//   ringlab_run_info{session,device,profile,version}, ringlab_tunables_info{<tunable>...}
// promEngineInfo adds the engine's build and whether a run is active, with or without a run.
//
// Totals start at zero when the exporter is created (one per run): Prometheus sees a new
// run as a counter reset, which rate() handles.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "engine/datapath/sample.h"
#include "engine/datapath/tunables.h"

namespace ringlab {

class PrometheusExporter final : public Subscriber {
  public:
    struct RunLabels {
        std::int64_t session = 0; // 0: not recorded
        std::string device, profile;
    };
    PrometheusExporter(RunLabels run, const ParamSet &params);
    // The run's facts once they are known (the session is created by the start).
    void setRun(RunLabels run);

    void onSample(const std::shared_ptr<const Sample> &s) override;
    void onEvent(const Event &e) override; // parameter changes update the tunables' labels
    std::string queueName() const override { return "prometheus"; }

    // The exposition text, "text/plain; version=0.0.4".
    std::string text() const;

  private:
    struct Hist {
        std::array<std::uint64_t, kLatencyBucketCount> buckets{};
        std::uint64_t count = 0;
        double sumS = 0;
        void add(const LatencySummary &l);
    };
    struct ThreadTotals {
        double cpuS = 0, wakeups = 0;
        double pollGapMaxS = -1;
    };

    mutable std::mutex mutex_;
    RunLabels run_;
    std::map<std::string, std::string> tunables_; // name -> value in force
    std::shared_ptr<const Sample> last_;
    std::map<std::string, ThreadTotals> threads_;
    Hist latency_, rtt_;
};

// The engine's own series, exposed whether or not a run is going (before a run's):
//   ringlab_build_info{version,revision} 1   ringlab_run_active 0|1
std::string promEngineInfo(bool runActive);

// A label value escaped for the exposition format: backslash, double quote and line feed.
std::string promLabelValue(std::string_view v);
// A metric or label name from any text: [a-zA-Z_:][a-zA-Z0-9_:]*, other bytes as '_'.
std::string promName(std::string_view v);

} // namespace ringlab
