// SPDX-License-Identifier: GPL-2.0-or-later
// One row per parameter setting (segment) of a session, one column pair per chosen metric:
// its mean with the 95 % interval, and the difference to a baseline, all from the engine's
// statistics. The baseline is the previous row, a chosen segment of this session, or a
// segment of another session (SESSION:SEGMENT, as `compare 2:1 2:3`). A side without an
// interval is "too short to judge", never "noise".
#pragma once

#include <QAbstractTableModel>
#include <map>

#include "engine/profile/run_defaults.h"
#include "engine/store/session_report.h"

namespace ringlab::ui {

struct SegmentMetric {
    const char *name;   // the engine's metric
    const char *thread; // for per-thread metrics, else ""
    std::string title;  // the metric table's heading
    bool defaultOn;
    std::string label() const
    {
        return *thread ? std::string(name) + "[" + thread + "]" : std::string(name);
    }
};
// Every metric the table can show, the reference cases' first.
const std::vector<SegmentMetric> &segmentMetrics();
// The index of a column by its label ("rx_pps", "wakeups_per_s[poll]"), or -1.
int segmentMetricIndex(const std::string &label);

class SegmentModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    static constexpr int kFixedColumns = 4; // #, from, to, setting

    explicit SegmentModel(QObject *parent = nullptr);
    void setSession(const SampleTable &tab, const std::vector<ParamChangeRow> &changes,
                    double warmupS = kWarmupS);
    // The same for a run still recording, called each second: a closed segment's statistics
    // are computed once, the open one's again when it has grown by a 300th (every 12 s after
    // an hour), so that following a run of hours costs what following one of minutes does.
    void followLive(const SampleTable &tab, const std::vector<ParamChangeRow> &changes,
                    double warmupS = kWarmupS);
    // Indices into segmentMetrics(), in column order.
    void setColumns(const std::vector<int> &metrics);
    const std::vector<int> &columns() const { return columns_; }
    // The device's own figures this session has (the kernel device's counters, who drove
    // each NAPI poll: Sample::device), by name, in the order they were first recorded; and
    // the ones shown, after the engine's metrics. A chosen figure the session lacks is kept
    // (another session may have it) but not shown.
    const std::vector<std::string> &deviceFigures() const { return deviceFigures_; }
    void setDeviceColumns(const std::vector<std::string> &names);
    const std::vector<std::string> &deviceColumns() const { return deviceColumns_; }
    // A figure's heading: its chart label where it has one ("rx by softirq"), else its name.
    static QString deviceFigureTitle(const std::string &name);
    // 0: each row against the one before; K: every row against segment K of this session.
    void setBaselineSegment(int k);
    // Every row against estimates from elsewhere (a segment of another session).
    void setExternalBaseline(const QString &label, std::map<std::string, Estimate> est);
    QString baselineLabel() const;
    int baselineSegment() const { return baselineSeg_; }
    // The Δ text of a row for one metric (index into segmentMetrics(), then deviceFigures());
    // for tests.
    QString deltaText(int row, int metric) const;

    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : static_cast<int>(rows_.size());
    }
    int columnCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : kFixedColumns + 2 * static_cast<int>(shown_.size());
    }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    struct Row {
        Segment seg;
        std::vector<Estimate> est;      // per segmentMetrics() entry, then per deviceFigures_ one
        std::size_t estimatedRows = 0;  // the rows `est` was computed over
        std::size_t estimatedFirst = 0; // and the first of them
    };
    Row rowFor(const SampleTable &tab, const Segment &seg) const;
    // The device figures of `tab`; true when they differ from those the rows were made with.
    bool takeDeviceFigures(const SampleTable &tab); // rates and times only
    void updateShown();                             // shown_ from columns_ and deviceColumns_
    std::string metricName(int m) const;
    std::string metricLabel(int m) const;
    // The baseline estimate for row r's metric m, or null (none, or the row itself).
    const Estimate *baselineFor(int row, int metric) const;
    std::vector<Row> rows_;
    std::vector<int> columns_;
    std::vector<std::string> deviceFigures_, deviceColumns_;
    std::vector<int> shown_; // the columns: indices into segmentMetrics() then deviceFigures_
    int baselineSeg_ = 0;
    QString externalLabel_;
    std::map<std::string, Estimate> external_;
};

} // namespace ringlab::ui
