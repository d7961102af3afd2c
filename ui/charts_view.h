// SPDX-License-Identifier: GPL-2.0-or-later
// The stacked charts of a session on one time axis (throughput, CPU per thread, latency,
// events, and for the kernel device who drove its NAPI polls), each with its legend, fed live from
// the engine or all at once from the database. The series come from the catalogue
// (series_catalog.h); the user chooses them per chart, hides one by its legend entry, switches an
// axis to log, zooms and pans the time axis, pauses the view while recording goes on, and reads
// every chart at one time with the crosshair. The plot areas share their left and right edges to
// the pixel.
#pragma once

#include <QWidget>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "engine/datapath/sample.h"
#include "ui/series_catalog.h"
#include "ui/time_chart.h"

class QSplitter;

namespace ringlab::ui {

class ChartLegend;

// The sampler's period is the median of this many last intervals (for how long a value stands).
inline constexpr std::size_t kRecentIntervals = 15;

// Samples turned into the charts' series (points and pyramids), gaps and times: built on any
// thread (a session read on a worker), then adopted by a ChartsView on the GUI thread.
struct PreparedCharts {
    struct Series {
        int chart; // index into ChartsView::charts()
        QString name, key;
        bool right;
        TimeChart::Points points;
    };
    std::vector<Series> series;
    std::vector<double> gaps; // times of samples after a stall the engine recorded
    // The intervals of samples that dropped frames (any cause), merged where they touch.
    std::vector<std::pair<double, double>> drops;
    std::vector<double> intervals; // the last intervals, for the sampler's period
    double end = 0;
    std::uint32_t latencyEvery = 0; // the last sample's latency sampling (0: no sample)
    // Adds the next samples' data (prepared with the same suffix) after this one's.
    void append(PreparedCharts &&next);
};

class ChartsView : public QWidget {
    Q_OBJECT
  public:
    // Visible window in seconds; 0 means the whole session.
    static constexpr double kWholeSession = 0;

    explicit ChartsView(QWidget *parent = nullptr);
    // Every catalogue series of every chart in the legends and drawn (benchmarks, tests).
    void chooseAll();
    // The settings group that keeps the chosen series and scales (empty: not kept).
    void setSettingsGroup(const QString &group);
    void clear();
    void appendSamples(const std::vector<std::shared_ptr<const Sample>> &samples);
    // Any thread: the charts' data for these samples (names suffixed, for an overlay).
    static PreparedCharts prepare(const std::vector<std::shared_ptr<const Sample>> &samples,
                                  const QString &suffix = {});
    // The same, these samples (all after those `out` has) added to `out`: a long session is
    // prepared a slice of rows at a time without joining slices.
    static void prepareMore(PreparedCharts &out,
                            const std::vector<std::shared_ptr<const Sample>> &samples,
                            const QString &suffix = {});
    // GUI thread: takes prepared data whole, at a cost of its series, not its points.
    void adopt(PreparedCharts &&prepared, bool dashed = false);
    // A thread's series of a family ("poll wakeups"), never a catalogue series' name.
    static QString threadSeriesName(const QString &thread, const ThreadSeriesDef &def);
    // An overlay (compare): the same figures of another run, dashed, names suffixed.
    void appendOverlay(const std::vector<std::shared_ptr<const Sample>> &samples,
                       const QString &suffix, bool dashed);
    void addMarker(double t, const QString &label, MarkerKind kind = MarkerKind::Change);
    // The desktop's own GUI thread, in the CPU chart beside the engine's threads (live only).
    void addGuiThreadCpu(double t, double msPerS);
    void setWindow(double seconds);
    double window() const { return window_; }
    // A paused view keeps its time range while samples keep coming; zoom and pan pause it.
    void setPaused(bool paused);
    bool paused() const { return paused_; }
    // The whole session in view, paused (a reopened session).
    void showWhole();
    void zoom(double aroundT, double factor);
    void pan(double dt);
    void replot();
    // For an exported image: no Series buttons and no splitter grips, only charts and legends.
    void setForExport();
    // Lays the charts out and lines their plot areas up now (an off-screen render has no
    // event loop turn to do it in); true when the charts shown agree.
    bool settle();

    TimeChart *throughput() const { return charts_[0]; }
    TimeChart *cpu() const { return charts_[1]; }
    TimeChart *latency() const { return charts_[2]; }
    TimeChart *events() const { return charts_[3]; }
    TimeChart *polls() const { return charts_[static_cast<std::size_t>(ChartId::Polls)]; }
    // Every chart, in the stack's order, shown or not (a device's own chart is shown only
    // when the run has its figures).
    const std::vector<TimeChart *> &charts() const { return charts_; }
    std::vector<TimeChart *> shownCharts() const;
    ChartLegend *legend(int chart) const { return legends_[static_cast<std::size_t>(chart)]; }
    double endTime() const { return end_; }
    // Samples drawn as the start of a new line: the stalls the engine recorded.
    int gapCount() const { return charts_.front()->gapCount(); }
    void setCrosshair(std::optional<double> t);
    std::optional<double> crosshair() const { return crossT_; }

  signals:
    void pausedChanged(bool paused);

  protected:
    void showEvent(QShowEvent *e) override;

  private:
    void add(const std::vector<std::shared_ptr<const Sample>> &samples, const QString &suffix,
             bool dashed);
    void notePeriod(double interval);
    // Live data: redraw once the newest point has moved at least a pixel column, and at
    // most every 50 ms; a point that moves less would not change a pixel.
    void requestReplot();
    void align();
    void requestAlign();
    // A chart shown only when used (ChartDef::onlyWhenUsed) is shown while it has a series.
    void showUsedCharts();
    void labelBottomChart();
    void refreshLegend(int k);
    // The latency legend says when its figures are sampled (latency.sample_every).
    void noteLatencySampling(std::uint32_t every);
    void refreshValues();
    QString keyForLabel(int chart, const QString &label) const;
    void saveChoices(int chart) const;
    std::vector<TimeChart *> charts_;
    std::vector<ChartLegend *> legends_;
    std::vector<QWidget *> rows_;    // each chart with its legend, in the splitter
    std::uint32_t latencyEvery_ = 1; // the latency legend's sampling note
    QSplitter *split_ = nullptr;
    class QScrollArea *scroll_ = nullptr; // around split_: it scrolls when the charts need more
    QString settingsGroup_;
    double window_ = 120;
    double end_ = 0;
    // The sampler's period, as the median of the last intervals (for how long a value stands).
    std::array<double, kRecentIntervals> recent_{};
    std::size_t recentNext_ = 0;
    double period_ = 0;
    bool paused_ = false;
    double viewFrom_ = 0, viewTo_ = 1;
    bool dirty_ = false;
    bool alignPending_ = false;
    bool pending_ = false;
    double plottedEnd_ = -1;
    std::optional<double> crossT_;
};

} // namespace ringlab::ui
