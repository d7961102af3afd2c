// SPDX-License-Identifier: GPL-2.0-or-later
// What the transmitter counts as sent on a device whose transmit completes on flush (a DPDK
// TX buffer): the frames and bytes the port took. A frame the port refuses is a drop
// (tx_full), its bytes are not sent, and net_dim does not see it. The device here is a port
// that refuses every third frame, as a full net_tap queue or net_ring does.
#include <QtTest>

#include <deque>
#include <mutex>

#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/transmitter.h"
#include "tests/test_support.h"

using namespace ringlab;
using ringlab::test::counterTotal;

class TstTxAccounting : public QObject {
    Q_OBJECT
  private slots:
    void refusedFramesAreDropsNotSentBytes();
};

namespace {

// A TX buffer flushed to a port that takes two frames in three. Its RX side is empty. Locked:
// should the coalesce timer fire on a slow machine, the TX clean thread reclaims too.
class RefusingPort final : public test::TxBufferPort {
  public:
    explicit RefusingPort(BufferSource &pool) : pool_(pool) {}
    std::uint32_t txPost(Buffer *const *bufs, std::uint32_t n, std::int64_t) override
    {
        std::lock_guard hold(lock_);
        queue_.insert(queue_.end(), bufs, bufs + n);
        return n;
    }
    std::uint32_t txReclaim(Buffer **out, std::uint32_t max, std::int64_t) override
    {
        std::lock_guard hold(lock_);
        std::uint32_t k = 0;
        for (; k < max && !queue_.empty(); ++k) {
            out[k] = queue_.front();
            queue_.pop_front();
        }
        return k;
    }
    bool txRetire(Buffer *const *bufs, std::uint32_t n, TxRefused &refused) override
    {
        std::lock_guard hold(lock_);
        refused = {};
        for (std::uint32_t k = 0; k < n; ++k) {
            if (++handed_ % 3 == 0) {
                ++refused.frames;
                refused.bytes += bufs[k]->len;
            } else {
                sentBytes += bufs[k]->len;
            }
        }
        pool_.release(bufs, n); // sent or refused, the port is done with them
        return true;
    }
    Chunks chunks() const override { return {64, 16}; }
    std::uint32_t txPending() const override
    {
        std::lock_guard hold(lock_);
        return static_cast<std::uint32_t>(queue_.size());
    }
    std::uint32_t txFree() const override { return 4096; }

    std::uint64_t sentBytes = 0; // what the port put on its wire (read after the stop)

  private:
    mutable std::mutex lock_;
    BufferSource &pool_;
    std::deque<Buffer *> queue_;
    std::uint64_t handed_ = 0;
};

} // namespace

void TstTxAccounting::refusedFramesAreDropsNotSentBytes()
{
    ParamSet ps;
    const Status set = ps.set({{"tx.coalesce_frames", "32"}, {"tx.coalesce_usecs", "100000"}});
    QVERIFY2(set.ok(), set.error.c_str());
    LiveParams live(ps);
    BufferPool pool(1024);
    RefusingPort port(pool);
    ThreadRegistry reg;
    Transmitter tx(live, port, pool, reg, false);
    Counters c;
    // 330 frames of 100 to 429 bytes, in bursts of 30: every 32 pending are flushed by the
    // transmit path (60 at a time), the last 30 by the flush after the stop. The port takes them in
    // order and refuses the third, sixth, ...: those frames' bytes are not sent.
    constexpr std::uint32_t kFrames = 330;
    std::uint64_t bytes = 0, expectSent = 0;
    for (std::uint32_t seq = 0; seq < kFrames;) {
        Buffer *bufs[30];
        QCOMPARE(pool.alloc(bufs, 30), 30u);
        for (Buffer *b : bufs) {
            b->seq = seq;
            b->len = 100 + seq++;
            b->sampled = seq % 4 == 0;
            b->at(Stage::Arrival) = nowNs();
            bytes += b->len;
            if (seq % 3 != 0) expectSent += b->len; // seq is now the frame's place, from 1
        }
        tx.xmit(bufs, 30, c, nowNs());
    }
    QVERIFY(counterTotal(reg, c, CounterId::TxInlineCleans) > 0); // the transmit path flushed
    tx.stop();
    // Each frame is sent, refused or still waiting (the last 30 unless the timer fired).
    QCOMPARE(counterTotal(reg, c, CounterId::TxPackets) + counterTotal(reg, c, CounterId::TxFull) +
                 port.txPending(),
             std::uint64_t{kFrames});
    tx.flush(c);
    QCOMPARE(port.txPending(), 0u);
    QCOMPARE(pool.available(), pool.size());
    // A third refused: dropped as tx_full, the rest sent, to the byte.
    QCOMPARE(counterTotal(reg, c, CounterId::Processed), std::uint64_t{kFrames});
    QCOMPARE(counterTotal(reg, c, CounterId::TxFull), std::uint64_t{kFrames / 3});
    QCOMPARE(counterTotal(reg, c, CounterId::TxPackets), std::uint64_t{kFrames - kFrames / 3});
    QCOMPARE(port.sentBytes, expectSent);
    QVERIFY(expectSent < bytes);
    QCOMPARE(counterTotal(reg, c, CounterId::TxBytes), expectSent);
}

QTEST_GUILESS_MAIN(TstTxAccounting)
#include "tst_tx_accounting.moc"
