// SPDX-License-Identifier: GPL-2.0-or-later
// The two ways frames leave a DPDK device hold them under one set of rules
// (engine/datapath/tx_buffer_policy.h): the staged path (Transmitter::xmit into the device's TX
// buffer, flushed by the transmit path and drained by the poll loop's check) and the device's
// direct pass (engine/datapath/pass_tx_buffer.h). The same frames, in the same chunks and
// rounds at the same virtual times, go through both, each to a fake port that refuses the same
// frames; every counter, every flush (its round, and the frames of each port in order) and the
// measured frames recorded must be the same. No clock is read for a decision: the times are
// the rounds', as the poll loop gives them.
#include <QtTest>

#include <array>
#include <deque>
#include <random>
#include <vector>

#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/latency_stats.h"
#include "engine/datapath/pass_tx_buffer.h"
#include "engine/datapath/transmitter.h"
#include "tests/test_support.h"

using namespace ringlab;

class TstTxPaths : public QObject {
    Q_OBJECT
  private slots:
    void bothPathsFlushTheSameFrames_data();
    void bothPathsFlushTheSameFrames();
};

namespace {

// One flush: the round it happened in, and each egress port's frames (by sequence) in order.
struct Flush {
    int round = 0;
    std::array<std::vector<std::uint64_t>, 2> frames;
    friend bool operator==(const Flush &, const Flush &) = default;
};

std::uint32_t lengthOf(std::uint64_t seq)
{
    return 60 + static_cast<std::uint32_t>(seq * 37 % 1455);
}
// The port refuses one frame in seven, by its sequence, on both paths.
bool refused(std::uint64_t seq)
{
    return seq % 7 == 3;
}

// What both fake ports record.
struct Wire {
    std::vector<Flush> flushes;
    int round = 0;
    std::uint64_t refusedFrames = 0;
    void begin() { flushes.push_back({round, {}}); }
    void sent(std::uint16_t out, std::uint64_t seq)
    {
        flushes.back().frames.at(out).push_back(seq);
    }
};

// The staged path's device: a TX buffer of `ring` places, as DpdkDevice's queue, flushed to a
// port when the transmitter reclaims it. A flush is one reclaim: it empties the buffer.
class BufferedPort final : public test::TxBufferPort {
  public:
    BufferedPort(BufferSource &pool, std::uint32_t ring, Wire &wire)
        : pool_(pool), ring_(ring), wire_(wire)
    {
    }
    std::uint32_t txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t) override
    {
        const std::uint32_t k = TxBufferPolicy::admit(n, txFree());
        queue_.insert(queue_.end(), bufs, bufs + k);
        return k;
    }
    std::uint32_t txReclaim(Buffer **out, std::uint32_t max, std::int64_t) override
    {
        std::uint32_t k = 0;
        for (; k < max && !queue_.empty(); ++k) {
            out[k] = queue_.front();
            queue_.pop_front();
        }
        if (k && !inFlush_) wire_.begin();
        inFlush_ = k > 0 && !queue_.empty();
        return k;
    }
    bool txRetire(Buffer *const *bufs, std::uint32_t n, TxRefused &refusedOut) override
    {
        refusedOut = {};
        for (std::uint32_t k = 0; k < n; ++k) {
            if (refused(bufs[k]->seq)) {
                ++wire_.refusedFrames;
                ++refusedOut.frames;
                refusedOut.bytes += bufs[k]->len;
            } else {
                wire_.sent(bufs[k]->port, bufs[k]->seq);
            }
        }
        pool_.release(bufs, n);
        return true;
    }
    Chunks chunks() const override { return {64, 64}; }
    std::uint32_t txPending() const override { return static_cast<std::uint32_t>(queue_.size()); }
    std::uint32_t txFree() const override { return ring_ - txPending(); }

  private:
    BufferSource &pool_;
    const std::uint32_t ring_;
    Wire &wire_;
    std::deque<Buffer *> queue_;
    bool inFlush_ = false; // a reclaim's bursts continue the flush its first began
};

// The direct pass's port: frames are their sequence numbers.
struct PassPort {
    using Frame = std::uint64_t;
    Wire &wire;
    LatencyStats &latency;
    std::uint32_t every;
    std::uint64_t dropped = 0;
    static std::uint32_t bytes(Frame f) { return lengthOf(f); }
    // Only how many frames are measured is compared: the staged path completes them at its
    // transmitter's clock, the real one.
    void flushing(const std::int64_t * /*arrivals*/, std::uint32_t n)
    {
        wire.begin();
        const std::vector<std::uint64_t> times(n, 0);
        latency.recordPassed(times.data(), n, every);
    }
    void send(std::uint16_t out, Frame *f, std::uint32_t k, Device::TxRefused &r)
    {
        for (std::uint32_t i = 0; i < k; ++i) {
            if (refused(f[i])) {
                ++wire.refusedFrames;
                ++r.frames;
                r.bytes += lengthOf(f[i]);
            } else {
                wire.sent(out, f[i]);
            }
        }
    }
    void drop(Frame *, std::uint32_t k) { dropped += k; }
};

// A chunk: runs of frames, each for one egress port.
struct Chunk {
    std::vector<std::pair<std::uint16_t, std::uint32_t>> runs; // (egress, frames)
    std::uint32_t frames() const
    {
        std::uint32_t n = 0;
        for (const auto &r : runs)
            n += r.second;
        return n;
    }
};
struct Round {
    std::int64_t nowNs;
    std::vector<Chunk> chunks;
};

std::vector<Round> schedule(std::uint32_t seed, std::uint32_t maxRun)
{
    std::mt19937 rng(seed);
    std::vector<Round> rounds;
    std::int64_t now = 1'000'000;
    for (int k = 0; k < 400; ++k) {
        now += std::uniform_int_distribution<std::int64_t>(0, 60'000)(rng);
        Round r{now, {}};
        const int chunks = std::uniform_int_distribution<int>(0, 4)(rng);
        for (int c = 0; c < chunks; ++c) {
            Chunk ch;
            const int runs = std::uniform_int_distribution<int>(1, 3)(rng);
            for (int i = 0; i < runs; ++i)
                ch.runs.emplace_back(static_cast<std::uint16_t>(rng() % 2),
                                     std::uniform_int_distribution<std::uint32_t>(1, maxRun)(rng));
            r.chunks.push_back(std::move(ch));
        }
        rounds.push_back(std::move(r));
    }
    return rounds;
}

CounterValues valuesOf(const Counters &c)
{
    CounterValues v;
    v.addFrom(c);
    return v;
}

std::uint64_t measuredCount(const LatencyStats &latency)
{
    return latency.snapshot().total.total();
}

} // namespace

void TstTxPaths::bothPathsFlushTheSameFrames_data()
{
    QTest::addColumn<int>("ring");
    QTest::addColumn<int>("freeThresh");
    QTest::addColumn<int>("coalesceFrames");
    QTest::addColumn<int>("coalesceUsecs");
    QTest::addColumn<int>("sampleEvery");
    QTest::addColumn<int>("maxRun");
    QTest::addColumn<int>("seed");
    // Small chunks under the count; chunks that reach it alone (straight to the port); a ring
    // that overflows (tx_full) and a free threshold that cleans first; a count of one.
    QTest::newRow("count 32, drains at 100 us") << 1024 << 32 << 32 << 100 << 4 << 12 << 1;
    QTest::newRow("chunks reach the count") << 1024 << 32 << 16 << 50 << 1 << 40 << 2;
    QTest::newRow("ring overflows") << 128 << 16 << 100 << 200 << 3 << 70 << 3;
    QTest::newRow("free threshold cleans first") << 256 << 200 << 120 << 30 << 2 << 50 << 4;
    QTest::newRow("every frame due") << 64 << 0 << 1 << 1 << 1 << 20 << 5;
}

void TstTxPaths::bothPathsFlushTheSameFrames()
{
    QFETCH(int, ring);
    QFETCH(int, freeThresh);
    QFETCH(int, coalesceFrames);
    QFETCH(int, coalesceUsecs);
    QFETCH(int, sampleEvery);
    QFETCH(int, maxRun);
    QFETCH(int, seed);

    ParamSet ps;
    const Status set = ps.set({{"poll.mode", "busy"},
                               {"tx.ring_size", std::to_string(ring)},
                               {"tx.free_thresh", std::to_string(freeThresh)},
                               {"tx.coalesce_frames", std::to_string(coalesceFrames)},
                               {"tx.coalesce_usecs", std::to_string(coalesceUsecs)},
                               {"latency.sample_every", std::to_string(sampleEvery)}});
    QVERIFY2(set.ok(), set.error.c_str());
    LiveParams live(ps);
    const auto rounds =
        schedule(static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(maxRun));

    // The staged path: Buffers through the transmitter, drained by the poll loop's check.
    Wire stagedWire;
    BufferPool pool(static_cast<std::uint32_t>(ring) * 2 + 4096);
    BufferedPort stagedPort(pool, static_cast<std::uint32_t>(ring), stagedWire);
    ThreadRegistry reg;
    Transmitter staged(live, stagedPort, pool, reg, false, true);
    Counters sc;
    SampleMarker stagedMarker;
    stagedMarker.setEvery(static_cast<std::uint32_t>(sampleEvery));

    // The direct pass: frame numbers through the pass's buffer, drained by its check.
    Wire passWire;
    LatencyStats passLatency;
    PassPort passPort{passWire, passLatency, static_cast<std::uint32_t>(sampleEvery)};
    PassTxBuffer<PassPort> buffer;
    buffer.resize(static_cast<std::uint32_t>(ring));
    Counters pc;
    SampleMarker passMarker;
    passMarker.setEvery(static_cast<std::uint32_t>(sampleEvery));

    std::uint64_t seq = 0, offered = 0;
    for (const Round &round : rounds) {
        stagedWire.round = passWire.round = static_cast<int>(&round - rounds.data());
        for (const Chunk &chunk : round.chunks) {
            const std::uint32_t n = chunk.frames();
            std::vector<Buffer *> bufs(n);
            QCOMPARE(pool.alloc(bufs.data(), n), n);
            std::vector<std::uint64_t> frames(n);
            std::vector<PassRun> runs;
            std::uint32_t at = 0;
            for (const auto &[out, count] : chunk.runs) {
                std::uint64_t bytes = 0;
                for (std::uint32_t i = 0; i < count; ++i, ++at) {
                    Buffer *b = bufs[at];
                    b->seq = frames[at] = seq++;
                    b->len = lengthOf(b->seq);
                    b->port = out;
                    b->probe = false;
                    b->at(Stage::Arrival) = round.nowNs;
                    stagedMarker.mark(*b);
                    bytes += b->len;
                }
                runs.push_back({at - count, count, out, passMarker.measuredFrom(count), bytes});
            }
            offered += n;
            staged.xmit(bufs.data(), n, sc, round.nowNs);
            buffer.post(frames.data(), runs.data(), static_cast<std::uint32_t>(runs.size()), n,
                        passMarker.every(), TxBufferPolicy::of(live), round.nowNs, passPort, pc);
        }
        staged.pollDrain(round.nowNs, sc);
        buffer.drainIfDue(round.nowNs, std::int64_t{coalesceUsecs} * 1000, passPort, pc);
    }
    // The run ends: what waits goes out, on both (not counted as a clean).
    stagedWire.round = passWire.round = -1;
    staged.stop();
    staged.flush(sc);
    buffer.leave(passPort, pc);

    QVERIFY(offered > 5000);
    const CounterValues s = valuesOf(sc), p = valuesOf(pc);
    for (std::size_t k = 0; k < kCounterCount; ++k) {
        const auto id = static_cast<CounterId>(k);
        if (s[id] != p[id])
            QFAIL(qPrintable(QStringLiteral("%1: staged %2, direct pass %3")
                                 .arg(QString::fromUtf8(counterName(id).data(),
                                                        static_cast<int>(counterName(id).size())))
                                 .arg(s[id])
                                 .arg(p[id])));
    }
    // The counters that matter here moved: the test would see a rule that differs.
    QCOMPARE(s[CounterId::Processed], offered);
    QVERIFY(s[CounterId::TxPackets] > 0);
    QCOMPARE(s[CounterId::TxPackets] + s[CounterId::TxFull], offered);
    QCOMPARE(stagedWire.flushes.size(), passWire.flushes.size());
    for (std::size_t k = 0; k < stagedWire.flushes.size(); ++k)
        if (!(stagedWire.flushes[k] == passWire.flushes[k]))
            QFAIL(qPrintable(QStringLiteral("flush %1: staged in round %2 with %3+%4 frames, "
                                            "direct pass in round %5 with %6+%7")
                                 .arg(k)
                                 .arg(stagedWire.flushes[k].round)
                                 .arg(stagedWire.flushes[k].frames[0].size())
                                 .arg(stagedWire.flushes[k].frames[1].size())
                                 .arg(passWire.flushes[k].round)
                                 .arg(passWire.flushes[k].frames[0].size())
                                 .arg(passWire.flushes[k].frames[1].size())));
    QCOMPARE(stagedWire.refusedFrames, passWire.refusedFrames);
    QCOMPARE(passPort.dropped + passWire.refusedFrames, p[CounterId::TxFull]);
    QCOMPARE(measuredCount(staged.latency()), measuredCount(passLatency));
    QVERIFY(measuredCount(staged.latency()) > 0);
}

QTEST_GUILESS_MAIN(TstTxPaths)
#include "tst_tx_paths.moc"
