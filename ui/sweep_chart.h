// SPDX-License-Identifier: GPL-2.0-or-later
// A sweep's points as a scatter chart of any two metrics: every point with its 95 %
// intervals as error bars, the Pareto front highlighted and joined; a click on a point
// asks for its first session.
#pragma once

#include <QChartView>

#include <vector>

#include "app/sweep_report.h"

namespace ringlab::ui {

class SweepChart : public QChartView {
    Q_OBJECT
  public:
    explicit SweepChart(QWidget *parent = nullptr);
    // Draws `table` with metric x and metric y (labels of table.metrics or any metric the
    // points measured).
    void show(const SweepTable &table, const std::string &x, const std::string &y);
    int pointCount() const { return static_cast<int>(drawn_.size()); }
    int frontCount() const { return frontCount_; }
    // The chart position of a drawn point (tests click it).
    QPointF positionOf(int drawnIndex) const;

  signals:
    void pointClicked(int pointIndex, qint64 session);

  private:
    struct Drawn {
        QPointF value;
        int point = 0;
        qint64 session = 0;
    };
    void clickedAt(const QPointF &value);

    std::vector<Drawn> drawn_;
    int frontCount_ = 0;
};

} // namespace ringlab::ui
