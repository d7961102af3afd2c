// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the engine tests: run an engine on the simulated NIC and collect what it
// reports, waiting on conditions rather than on time.
#pragma once

#include <QStringList>
#include <QtGlobal>
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "drivers/sim/sim_nic.h"
#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/engine.h"
#include "engine/datapath/sample_collector.h"
#include "engine/store/session_store.h"

namespace ringlab::test {

using Collector = SampleCollector;

// A port with nothing to receive: the TX side is the test's.
class TxOnlyPort : public Device {
  public:
    DeviceInfo info() const override { return {"txonly0", "test", false, false}; }
    void reconfigure(const ParamSet &) override {}
    void linkUp(std::int64_t) override {}
    std::uint32_t rxHarvest(Buffer **, std::uint32_t, std::int64_t, Counters &) override
    {
        return 0;
    }
    std::uint32_t rxFree() const override { return 0; }
    std::uint32_t rxPost(Buffer *const *, std::uint32_t, std::int64_t) override { return 0; }
    std::uint32_t rxPosted() const override { return 0; }
    std::uint32_t rxDrain(Buffer **, std::uint32_t) override { return 0; }
    std::uint32_t txDrain(Buffer **out, std::uint32_t max) override
    {
        return txReclaim(out, max, 0);
    }
    std::int64_t nextInterruptNs(std::int64_t, std::int64_t, std::int64_t) override { return -1; }
};

// ... whose TX ring is a buffer flushed when the transmitter reclaims it (txCompletesOnFlush,
// as a DPDK device's).
class TxBufferPort : public TxOnlyPort {
  public:
    bool txCompletesOnFlush() const override { return true; }
};

// The simulated NIC, whose reconfiguration (a start, a restart) fails with the message
// `failure` gives for the values, when it gives one: a device out of memory, or unplugged.
class FailingNic : public sim::SimNic {
  public:
    using Failure = std::function<std::string(const ParamSet &)>;
    FailingNic(const ParamSet &p, const LiveParams &live, Failure failure)
        : SimNic(p, live), failure_(std::move(failure))
    {
    }
    void reconfigure(const ParamSet &ps) override
    {
        if (const std::string why = failure_(ps); !why.empty()) throw std::runtime_error(why);
        SimNic::reconfigure(ps);
    }

  private:
    Failure failure_;
};

// A counter's total over the caller's own block and every engine thread's.
inline std::uint64_t counterTotal(const ThreadRegistry &reg, const Counters &own, CounterId c)
{
    std::uint64_t v = own.get(c);
    for (const auto &e : reg.entries())
        v += e->counters.get(c);
    return v;
}

inline DeviceFactory simFactory()
{
    return [](const ParamSet &p, const LiveParams &live) -> std::unique_ptr<Device> {
        return std::make_unique<sim::SimNic>(p, live);
    };
}

// What a session recorded on the simulated NIC at 10 Hz says of itself.
inline SessionInfo simSession(const std::string &name, const std::string &profile = "default")
{
    SessionInfo info;
    info.name = name;
    info.device = "sim0";
    info.profile = profile;
    info.intervalS = 0.1;
    return info;
}

inline ParamSet params(const Assignments &a)
{
    ParamSet ps;
    const Status st = ps.set(a);
    if (!st.ok()) qFatal("bad test parameters: %s", st.error.c_str());
    return ps;
}

// Runs an engine for `samples` intervals of `intervalMs` and returns every sample.
inline std::vector<std::shared_ptr<const Sample>> runFor(const ParamSet &ps, std::size_t samples,
                                                         std::int64_t intervalMs = 100)
{
    return runEngine(ps, simFactory(), samples, intervalMs * 1'000'000);
}

// Mean of a per-sample figure over samples [from, to). Asking for samples that are not there
// ends the test with a message: a figure is never judged on fewer samples than it needs.
template <class F>
double meanOf(const std::vector<std::shared_ptr<const Sample>> &s, std::size_t from, std::size_t to,
              F f)
{
    if (from >= to || to > s.size())
        qFatal("meanOf: samples [%zu, %zu) asked for, %zu there", from, to, s.size());
    double sum = 0;
    for (std::size_t k = from; k < to; ++k)
        sum += f(*s[k]);
    return sum / static_cast<double>(to - from);
}

// Median of a per-sample figure over samples [from, to); a sample for which f gives NaN (the
// figure is missing: a thread not running yet, say) is left out. A range that is not there, or
// that holds no figure, ends the test with a message.
template <class F>
double medianOf(const std::vector<std::shared_ptr<const Sample>> &s, std::size_t from,
                std::size_t to, F f)
{
    if (from >= to || to > s.size())
        qFatal("medianOf: samples [%zu, %zu) asked for, %zu there", from, to, s.size());
    std::vector<double> v;
    for (std::size_t k = from; k < to; ++k)
        if (const double x = f(*s[k]); !std::isnan(x)) v.push_back(x);
    if (v.empty()) qFatal("medianOf: no figure in samples [%zu, %zu)", from, to);
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// The samples in which the poll thread never left the RX ring for longer than gapUs, in this
// sample or the one before (a stall's backlog may be counted just after the sampler read the
// gap). A shared host can stop any thread for tens of milliseconds, and a ring of N
// descriptors covers only N / rate seconds: what a test says about misses caused by the
// datapath's design, it judges on these samples. Judging on fewer than `atLeast` of them
// ends the test with a message.
inline std::vector<std::size_t>
unstalledSamples(const std::vector<std::shared_ptr<const Sample>> &s, double gapUs,
                 std::size_t atLeast)
{
    std::vector<std::size_t> clean;
    double before = 0;
    QStringList stalls;
    for (std::size_t k = 0; k < s.size(); ++k) {
        // No poll thread (the last sample, taken after it ended): not judged.
        const ThreadStat *poll = s[k]->thread("poll");
        const double gap = poll && poll->pollGapMaxUs >= 0 ? poll->pollGapMaxUs : INFINITY;
        if (gap > gapUs)
            stalls << QString("sample %1: %2 ms").arg(k).arg(gap / 1e3, 0, 'f', 1);
        else if (before <= gapUs)
            clean.push_back(k);
        before = gap;
    }
    if (clean.size() < atLeast)
        qFatal("unstalledSamples: %zu of %zu samples without a poll gap over %.0f us, %zu needed "
               "(the host stalled the poll thread: %s)",
               clean.size(), s.size(), gapUs, atLeast, qPrintable(stalls.join(", ")));
    if (!stalls.isEmpty()) qInfo("poll thread stalls excused: %s", qPrintable(stalls.join(", ")));
    return clean;
}

// How much counter c grew in sample k (its total minus the previous sample's).
inline std::uint64_t growthIn(const std::vector<std::shared_ptr<const Sample>> &s, std::size_t k,
                              CounterId c)
{
    return s[k]->totalOf(c) - (k ? s[k - 1]->totalOf(c) : 0);
}

} // namespace ringlab::test
