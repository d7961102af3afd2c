// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/charts_view.h"

#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/time_chart.h"

namespace ringlab::ui {

ChartsView::ChartsView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *split = new QSplitter(Qt::Vertical, this);
    charts_ = {new TimeChart(tr("Throughput"), tr("Mbit/s"), false),
               new TimeChart(tr("CPU per thread"), tr("ms/s"), false),
               new TimeChart(tr("Latency"), tr("µs (log)"), true),
               new TimeChart(tr("Events"), tr("1/s"), false)};
    charts_[0]->addRightAxis(tr("pps"));
    for (auto *c : charts_)
        split->addWidget(c);
    layout->addWidget(split);
}

void ChartsView::clear()
{
    for (auto *c : charts_)
        c->clearAll();
    end_ = 0;
    plottedEnd_ = -1;
    replot();
}

void ChartsView::add(const Sample &s, const QString &suffix, bool dashed)
{
    const double t = s.t;
    end_ = std::max(end_, t);
    auto put = [&](TimeChart *c, const QString &name, double v) {
        c->append(name + suffix, t, v, dashed, name);
    };
    put(charts_[0], tr("rx"), s.rxMbps);
    put(charts_[0], tr("tx"), s.txMbps);
    charts_[0]->appendRight(tr("rx pps") + suffix, t, s.rateOf(C::RxPackets), dashed, tr("rx pps"));
    for (const auto &th : s.threads) {
        if (th.name == "sampler") continue; // the measuring thread, not the driver's
        const QString name = QString::fromStdString(th.name);
        put(charts_[1], name, th.cpuMsPerS);
        // Same thread, same colour: the wakeups series is keyed by the thread's name too.
        charts_[3]->append(name + tr(" wakeups") + suffix, t, th.wakeupsPerS, dashed, name);
    }
    // The engine's threads summed: the headline, equal in the desktop and headless. The GUI
    // thread's own CPU is a series of its own (addGuiCpu), never mixed into it.
    put(charts_[1], tr("engine"), s.engineCpuMsPerS);
    if (s.latency.count) {
        put(charts_[2], tr("p50"), s.latency.p50);
        put(charts_[2], tr("p99"), s.latency.p99);
        put(charts_[2], tr("max"), s.latency.max);
    }
    // Round trips: the simulated NIC's probes, or a real ping across the lab.
    if (s.rtt.count) put(charts_[2], tr("rtt p50"), s.rtt.p50);
    put(charts_[3], tr("timer arms"), s.rateOf(C::TimerArms));
    put(charts_[3], tr("drops"), s.dropsPerS());
}

void ChartsView::addGuiThreadCpu(double t, double msPerS)
{
    charts_[1]->append(tr("GUI thread"), t, msPerS, false, tr("GUI thread"));
}

void ChartsView::appendSamples(const std::vector<std::shared_ptr<const Sample>> &samples)
{
    for (const auto &s : samples)
        add(*s, {}, false);
    requestReplot();
}

void ChartsView::requestReplot()
{
    if (pending_) return;
    const double span = window_ > 0 ? window_ : std::max(end_, 1.0);
    const double width =
        std::max(100.0, static_cast<double>(charts_[0]->chart()->plotArea().width()));
    const double perColumn = 2 * span / width; // TimeChart draws min/max per two pixels
    if (plottedEnd_ < 0 || end_ - plottedEnd_ >= perColumn) {
        replot();
        return;
    }
    pending_ = true;
    const double waitS = std::max(0.05, perColumn - (end_ - plottedEnd_));
    QTimer::singleShot(static_cast<int>(waitS * 1000), this, [this] {
        pending_ = false;
        replot();
    });
}

void ChartsView::appendOverlay(const std::vector<std::shared_ptr<const Sample>> &samples,
                               const QString &suffix, bool dashed)
{
    for (const auto &s : samples)
        add(*s, suffix, dashed);
    replot();
}

void ChartsView::addMarker(double t, const QString &label)
{
    for (std::size_t k = 0; k < charts_.size(); ++k)
        charts_[k]->addMarker(t, label, k == 0);
    replot();
}

void ChartsView::setWindow(double seconds)
{
    window_ = seconds;
    replot();
}

void ChartsView::replot()
{
    if (!isVisible()) { // a hidden view does no work; it catches up when shown
        dirty_ = true;
        return;
    }
    dirty_ = false;
    plottedEnd_ = end_;
    const double to = std::max(end_, 1.0);
    const double from = window_ > 0 ? std::max(0.0, to - window_) : 0.0;
    for (auto *c : charts_)
        if (c->isVisible()) c->replot(from, to);
}

void ChartsView::showEvent(QShowEvent *e)
{
    QWidget::showEvent(e);
    if (dirty_) replot();
}

} // namespace ringlab::ui
