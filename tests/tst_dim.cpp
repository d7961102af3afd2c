// SPDX-License-Identifier: GPL-2.0-or-later
// Adaptive moderation: net_dim's state machine on rates with a known best profile, and the
// engine's RX and TX moderation following it under irq.adaptive / tx.coalesce_adaptive.
#include <QtTest>

#include <algorithm>

#include "engine/datapath/dim.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstDim : public QObject {
    Q_OBJECT
  private slots:
    void findsTheBestProfileAndParks();
    void leavesParkingWhenTheLoadChanges();
    void waitsForSixtyFourEvents();
    void engineAdaptsRxAndTx();
};

namespace {
// Drives a NetDim where the throughput (bytes per ms) under profile k is rate[k]: each
// decision window is 64 events over 1 ms.
struct Drive {
    NetDim dim{kDimRxProfiles};
    std::int64_t now = 1'000'000'000;
    std::uint64_t events = 0, packets = 0, bytes = 0;
    int changes = 0;
    std::vector<int> path;
    void window(const std::array<std::uint64_t, kDimProfiles> &rate)
    {
        const auto ix = static_cast<std::size_t>(dim.profileIndex());
        now += 1'000'000;
        events += kDimEvents;
        bytes += rate[ix];
        packets += rate[ix] / 100;
        if (dim.sample(now, events, packets, bytes)) {
            ++changes;
            dim.sample(now, events, packets, bytes); // the new profile's measurement starts
        }
        path.push_back(dim.profileIndex());
    }
};
} // namespace

void TstDim::findsTheBestProfileAndParks()
{
    Drive d;
    QCOMPARE(d.dim.profileIndex(), kDimDefaultProfile);
    QCOMPARE(d.dim.profile().usec, 8u); // the kernel's default CQE profile: 8 us, 128 frames
    d.dim.sample(d.now, 0, 0, 0);       // the first call starts a measurement
    const std::array<std::uint64_t, kDimProfiles> rate{100'000, 200'000, 300'000, 250'000, 150'000};
    for (int k = 0; k < 20; ++k)
        d.window(rate);
    // 1 -> 0 (first move is left, off the default), worse: turn, 1, 2, 3, worse: turn, 2:
    // better again after the turn, so it parks on top at 2 and stays.
    QCOMPARE(d.dim.profileIndex(), 2);
    QCOMPARE(d.path.back(), 2);
    QVERIFY(std::count(d.path.end() - 8, d.path.end(), 2) == 8);
    QCOMPARE(d.dim.profile().usec, 16u);
    QCOMPARE(d.changes, 5);
    QCOMPARE(std::vector<int>(d.path.begin(), d.path.begin() + 6),
             (std::vector<int>{0, 1, 2, 3, 2, 2}));
}

void TstDim::leavesParkingWhenTheLoadChanges()
{
    Drive d;
    d.dim.sample(d.now, 0, 0, 0);
    const std::array<std::uint64_t, kDimProfiles> first{100'000, 200'000, 300'000, 250'000,
                                                        150'000};
    for (int k = 0; k < 20; ++k)
        d.window(first);
    QCOMPARE(d.dim.profileIndex(), 2);
    // Now the longest moderation carries the most: it walks right to the edge and parks.
    const std::array<std::uint64_t, kDimProfiles> second{100'000, 200'000, 400'000, 600'000,
                                                         900'000};
    for (int k = 0; k < 30; ++k)
        d.window(second);
    QCOMPARE(d.dim.profileIndex(), kDimProfiles - 1);
    QCOMPARE(d.dim.profile().usec, 64u);
}

void TstDim::waitsForSixtyFourEvents()
{
    NetDim dim{kDimTxProfiles};
    dim.sample(0, 0, 0, 0);
    // 63 events: no decision, however much the rate moved.
    QVERIFY(!dim.sample(1'000'000, 63, 1'000, 1'000'000));
    QCOMPARE(dim.profileIndex(), kDimDefaultProfile);
    // The 64th: a first rate against none is "better", and it leaves the default.
    QVERIFY(dim.sample(1'000'000, 64, 1'000, 1'000'000));
    QCOMPARE(dim.profileIndex(), 0);
    QCOMPARE(dim.profile().usec, 5u);
}

void TstDim::engineAdaptsRxAndTx()
{
    // Interrupt mode at 50 kpps: with irq.adaptive the moderation in force comes from
    // net_dim's profiles, not irq.usecs (300 us, none of them), and it steps.
    auto samples = runFor(params({{"load.rate_pps", "50000"},
                                  {"poll.mode", "interrupt"},
                                  {"irq.usecs", "300"},
                                  {"irq.frames", "512"},
                                  {"irq.adaptive", "on"},
                                  {"tx.coalesce_usecs", "300"},
                                  {"tx.coalesce_adaptive", "on"}}),
                          20);
    QVERIFY(samples.size() >= 20); // and a final partial one when the stop takes a while
    double steps = 0;
    int rxFromProfiles = 0, txFromProfiles = 0;
    for (std::size_t k = 5; k < samples.size(); ++k) {
        const Sample &s = *samples[k];
        steps += s.rateOf(CounterId::DimSteps);
        rxFromProfiles += std::any_of(kDimRxProfiles.begin(), kDimRxProfiles.end(),
                                      [&](auto &p) { return p.usec == s.rxModerationUs; });
        txFromProfiles += std::any_of(kDimTxProfiles.begin(), kDimTxProfiles.end(),
                                      [&](auto &p) { return p.usec == s.txCoalesceUs; });
    }
    QVERIFY2(steps > 0, "net_dim never stepped");
    const int judged = static_cast<int>(samples.size()) - 5; // 15, or 16 with a partial one
    QCOMPARE(rxFromProfiles, judged);
    QCOMPARE(txFromProfiles, judged);
    // Without it, the tunables are in force and nothing steps.
    samples = runFor(params({{"load.rate_pps", "50000"},
                             {"poll.mode", "interrupt"},
                             {"irq.usecs", "300"},
                             {"tx.coalesce_usecs", "300"}}),
                     10);
    for (std::size_t k = 3; k < samples.size(); ++k) {
        QCOMPARE(samples[k]->rateOf(CounterId::DimSteps), 0.0);
        QCOMPARE(samples[k]->rxModerationUs, 300u);
        QCOMPARE(samples[k]->txCoalesceUs, 300u);
    }
}

QTEST_GUILESS_MAIN(TstDim)
#include "tst_dim.moc"
