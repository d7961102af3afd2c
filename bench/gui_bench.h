// SPDX-License-Identifier: GPL-2.0-or-later
// Shared by the desktop's benchmarks: the Qt platform, the GUI thread's CPU time, and an
// event loop run as an application runs it.
#pragma once

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <cstdio>
#include <ctime>
#include <functional>
#include <vector>

#include "bench_common.h"

namespace ringlab::bench {

// Before the QApplication: a real X server when there is one (drawing costs included), else
// the offscreen platform.
inline void chooseQtPlatform()
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

inline void printGuiBench(const char *name)
{
    QApplication::setApplicationName("ringlab-bench");
    printMachine(name);
    std::printf("Qt platform: %s\n\n", qPrintable(QApplication::platformName()));
}

inline double threadCpuS()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Runs the event loop (sleeping between events, as an application does) until `done` or
// the timeout; `done` is checked every `tickMs`.
inline void spin(const std::function<bool()> &done, int timeoutMs, int tickMs = 20)
{
    QEventLoop loop;
    QTimer check;
    QElapsedTimer t;
    t.start();
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        if (done() || t.elapsed() >= timeoutMs) loop.quit();
    });
    check.start(tickMs);
    loop.exec();
}

// The GUI thread's CPU over wall time, in % of one core, for `rounds` spans of `spanMs` while
// the event loop runs whatever is set up (timers feeding samples): each round's figure.
inline std::vector<double> guiThreadCpuPct(int rounds, int spanMs)
{
    std::vector<double> pcts;
    for (int round = 0; round < rounds; ++round) {
        const double cpu0 = threadCpuS();
        QElapsedTimer wall;
        wall.start();
        spin([&] { return wall.elapsed() >= spanMs; }, spanMs + 1000);
        pcts.push_back((threadCpuS() - cpu0) / (static_cast<double>(wall.elapsed()) / 1e3) * 100);
    }
    return pcts;
}

} // namespace ringlab::bench
