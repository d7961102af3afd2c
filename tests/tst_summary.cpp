// SPDX-License-Identifier: GPL-2.0-or-later
// The run summary: exact figures for short runs, bounded memory and a median within 0.5 %
// for long ones, and the warm-up rule.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/metrics/summary.h"

using namespace ringlab;

class TstSummary : public QObject {
    Q_OBJECT
  private slots:
    void shortSeriesAreExact();
    void longSeriesStayWithinTheErrorInBoundedMemory_data();
    void longSeriesStayWithinTheErrorInBoundedMemory();
    void notANumberIsLeftOut();
    void warmupIsLeftOutUnlessNothingRemains();
};

static double trueMedian(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

void TstSummary::shortSeriesAreExact()
{
    std::mt19937_64 g(3);
    std::normal_distribution<double> d(100, 30);
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{512}}) {
        RunningStat st;
        std::vector<double> v;
        for (std::size_t k = 0; k < n; ++k) {
            v.push_back(d(g));
            st.add(v.back());
        }
        const MetricSummary m = st.result();
        QVERIFY(st.exact());
        QCOMPARE(m.n, n);
        QCOMPARE(m.median, trueMedian(v));
        QCOMPARE(m.min, *std::min_element(v.begin(), v.end()));
        QCOMPARE(m.max, *std::max_element(v.begin(), v.end()));
    }
}

void TstSummary::longSeriesStayWithinTheErrorInBoundedMemory_data()
{
    QTest::addColumn<int>("shape");
    QTest::newRow("lognormal rates") << 0;
    QTest::newRow("mostly zero (drops)") << 1;
    QTest::newRow("signed") << 2;
}

void TstSummary::longSeriesStayWithinTheErrorInBoundedMemory()
{
    QFETCH(int, shape);
    std::mt19937_64 g(11);
    std::lognormal_distribution<double> rate(std::log(100000.0), 0.6);
    std::bernoulli_distribution rare(0.3);
    std::normal_distribution<double> signedValue(-20, 50);
    RunningStat st;
    std::vector<double> v;
    std::size_t most = 0;
    for (int k = 0; k < 1'000'000; ++k) {
        double x = 0;
        if (shape == 0) x = rate(g);
        if (shape == 1) x = rare(g) ? rate(g) : 0;
        if (shape == 2) x = signedValue(g);
        v.push_back(x);
        st.add(x);
        if (k > 100'000) most = std::max(most, st.storedItems());
    }
    QVERIFY(!st.exact());
    const double want = trueMedian(v);
    const MetricSummary m = st.result();
    QVERIFY2(std::fabs(m.median - want) <= RunningStat::kRelativeError * std::fabs(want) + 1e-12,
             qPrintable(QString("median %1, true %2").arg(m.median).arg(want)));
    double sum = 0;
    for (double x : v)
        sum += x;
    QVERIFY(std::fabs(m.mean - sum / static_cast<double>(v.size())) < 1e-6 * std::fabs(sum));
    // A million values in a few thousand buckets at most: the range's logarithm, not the count.
    QVERIFY2(most < 4000, qPrintable(QString::number(most)));
}

void TstSummary::notANumberIsLeftOut()
{
    RunningStat st;
    st.add(1);
    st.add(std::nan(""));
    st.add(INFINITY);
    st.add(3);
    const MetricSummary m = st.result();
    QCOMPARE(m.n, std::size_t{2});
    QCOMPARE(m.mean, 2.0);
    QCOMPARE(m.median, 2.0);
}

static Sample sampleAt(double t, double rx)
{
    Sample s;
    s.t = t;
    s.interval = 0.1;
    s.rate[static_cast<std::size_t>(CounterId::RxPackets)] = rx;
    s.total[static_cast<std::size_t>(CounterId::RxPackets)] = static_cast<std::uint64_t>(t * 10);
    return s;
}

void TstSummary::warmupIsLeftOutUnlessNothingRemains()
{
    RunSummarizer r(1.0);
    for (int k = 1; k <= 30; ++k)
        r.add(sampleAt(0.1 * k, k <= 10 ? 5 : 100)); // the first second is warm-up
    RunSummary s = r.result();
    QCOMPARE(s.samples, std::size_t{20});
    QCOMPARE(s.metrics["rx_pps"].mean, 100.0);
    QCOMPARE(s.warmup, 1.0);
    QCOMPARE(s.totals["rx_packets"], std::uint64_t{30});
    QCOMPARE(r.samplesSeen(), std::size_t{30});

    RunSummarizer shortRun(5.0); // shorter than its warm-up: the summary is of what there is
    for (int k = 1; k <= 4; ++k)
        shortRun.add(sampleAt(0.1 * k, 7));
    s = shortRun.result();
    QCOMPARE(s.samples, std::size_t{4});
    QCOMPARE(s.warmup, 0.0);
    QCOMPARE(s.metrics["rx_pps"].median, 7.0);
}

QTEST_GUILESS_MAIN(TstSummary)
#include "tst_summary.moc"
