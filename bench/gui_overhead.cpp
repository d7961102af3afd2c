// SPDX-License-Identifier: GPL-2.0-or-later
// gui_overhead: what the desktop workbench costs.
//  1. saturation throughput of the engine with the GUI attached (window shown, charts and
//     segments updating live) and headless, alternating in one run, as a ratio;
//  2. the GUI thread's CPU while charting at 10 Hz with a 10-minute window already full.
// Runs on whatever Qt platform is set (QT_QPA_PLATFORM=offscreen without a display).
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "bench_common.h"
#include "gui_bench.h"
#include "ui/charts_view.h"
#include "ui/engine_controller.h"
#include "ui/main_window.h"
#include "ui/time_chart.h"

using namespace ringlab;
using namespace ringlab::bench;

namespace {
const Assignments kSaturation = {
    {"load.rate_pps", "40000000"}, {"load.frame_bytes", "64"},    {"load.pattern", "constant"},
    {"link.mbps", "400000"},       {"probe.rate_hz", "0"},        {"poll.mode", "busy"},
    {"proc.ns_per_packet", "0"},   {"rx.ring_size", "4096"},      {"rx.pool_buffers", "32768"},
    {"tx.ring_size", "4096"},      {"tx.coalesce_frames", "512"}, {"poll.budget", "256"}};

double withGui(const QString &db)
{
    ui::MainWindow w(db);
    if (auto st = w.controller()->apply(kSaturation, "bench"); !st.ok()) {
        std::fprintf(stderr, "gui_overhead: %s\n", st.error.c_str());
        std::exit(1);
    }
    w.resize(1280, 800);
    w.show();
    w.startRun();
    spin([&] { return w.controller()->samples().size() >= 20; }, 20000);
    w.stopRun();
    return median(series(w.controller()->samples(), 5,
                         [](const Sample &x) { return x.rateOf(CounterId::RxPackets); }));
}

double headless()
{
    return median(series(runSim(paramsOrDie(kSaturation), 20), 5,
                         [](const Sample &x) { return x.rateOf(CounterId::RxPackets); }));
}
} // namespace

int main(int argc, char **argv)
{
    chooseQtPlatform();
    QApplication app(argc, argv);
    Q_INIT_RESOURCE(ringlab);
    printGuiBench("gui_overhead");
    QTemporaryDir dir;

    std::vector<double> gui, bare;
    for (int r = 0; r < 5; ++r) {
        bare.push_back(headless());
        gui.push_back(withGui(dir.filePath(QString("r%1.db").arg(r))));
        std::printf("round %d: headless %.2f Mpps, with the GUI %.2f Mpps\n", r + 1,
                    bare.back() / 1e6, gui.back() / 1e6);
    }
    const double ratio = median(gui) / median(bare);
    std::printf("saturation throughput, GUI attached / headless (medians of 5 alternating 2 s "
                "runs): %.3f (goal >= 0.95: %s)\n\n",
                ratio, ratio >= 0.95 ? "met" : "NOT met");

    // Charting cost: a 10-minute window already full (6000 samples of a real run), then
    // 10 new samples a second; the GUI thread's CPU time over wall time, at the size a user
    // has (1280x800), with the default series and then with every series on. Under a real X
    // server (QT_QPA_PLATFORM=xcb on Xvfb) this includes the drawing a user pays for.
    const auto real = runSim(ParamSet{}, 3);
    const Sample tmpl = *real.back();
    for (const bool all : {false, true}) {
        ui::ChartsView view;
        view.resize(1280, 800);
        view.setWindow(600);
        if (all) view.chooseAll();
        view.show();
        std::vector<std::shared_ptr<const Sample>> history;
        for (int k = 0; k < 6000; ++k) {
            auto s = std::make_shared<Sample>(tmpl);
            s->t = 0.1 * (k + 1);
            s->interval = 0.1;
            s->rate[static_cast<std::size_t>(CounterId::RxPackets)] *=
                1.0 + 0.1 * std::sin(k / 50.0);
            history.push_back(s);
        }
        view.appendSamples(history);
        QCoreApplication::processEvents();
        int next = 6000;
        QTimer feed;
        feed.setInterval(100);
        QObject::connect(&feed, &QTimer::timeout, [&] {
            auto s = std::make_shared<Sample>(tmpl);
            s->t = 0.1 * (++next);
            s->interval = 0.1;
            view.appendSamples({s});
        });
        feed.start();
        spin([] { return false; }, 2000); // settle into the steady state first
        const std::vector<double> pcts = guiThreadCpuPct(5, 4000);
        feed.stop();
        int series = 0;
        for (const auto *c : view.charts())
            series += static_cast<int>(c->chosenNames().size());
        const double pct = median(pcts);
        std::printf("GUI thread CPU while charting at 10 Hz, 10-minute window, 1280x800, %s "
                    "(%d series, 6000+ points each): median of 5 x 4 s %.1f %% of one core "
                    "(min %.1f, max %.1f; goal <= 10 %%: %s)\n",
                    all ? "every series on" : "default series", series, pct,
                    *std::min_element(pcts.begin(), pcts.end()),
                    *std::max_element(pcts.begin(), pcts.end()), pct <= 10 ? "met" : "NOT met");
    }
    return 0;
}
