// SPDX-License-Identifier: GPL-2.0-or-later
// The four stacked charts of a session on one time axis: throughput, CPU per thread,
// latency and events. Fed live from the engine or all at once from the database.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "engine/sample.h"

namespace ringlab::ui {

class TimeChart;

class ChartsView : public QWidget {
    Q_OBJECT
  public:
    // Visible window in seconds; 0 means the whole session.
    static constexpr double kWholeSession = 0;

    explicit ChartsView(QWidget *parent = nullptr);
    void clear();
    void appendSamples(const std::vector<std::shared_ptr<const Sample>> &samples);
    // An overlay (compare): the same figures of another run, dashed, names suffixed.
    void appendOverlay(const std::vector<std::shared_ptr<const Sample>> &samples,
                       const QString &suffix, bool dashed);
    void addMarker(double t, const QString &label);
    // The desktop's own GUI thread, in the CPU chart beside the engine's threads (live only).
    void addGuiThreadCpu(double t, double msPerS);
    void setWindow(double seconds);
    double window() const { return window_; }
    void replot();

    TimeChart *throughput() const { return charts_[0]; }
    TimeChart *cpu() const { return charts_[1]; }
    TimeChart *latency() const { return charts_[2]; }
    TimeChart *events() const { return charts_[3]; }
    const std::vector<TimeChart *> &charts() const { return charts_; }
    double endTime() const { return end_; }

  protected:
    void showEvent(QShowEvent *e) override;

  private:
    void add(const Sample &s, const QString &suffix, bool dashed);
    // Live data: redraw once the newest point has moved at least a pixel column, and at
    // most every 50 ms; a point that moves less would not change a pixel.
    void requestReplot();
    std::vector<TimeChart *> charts_;
    double window_ = 120;
    double end_ = 0;
    bool dirty_ = false;
    bool pending_ = false;
    double plottedEnd_ = -1;
};

} // namespace ringlab::ui
