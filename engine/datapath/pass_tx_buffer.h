// SPDX-License-Identifier: GPL-2.0-or-later
// A direct pass's TX buffer (engine/datapath/direct_pass.h): the frames of its poll rounds held
// for their egress ports, in order, flushed under the staged path's rules
// (engine/datapath/tx_buffer_policy.h) and drained by the poll loop's check, as the staged TX
// buffer is (DrainCheck, Transmitter::pollDrain()). Frames are the device's own handles (an
// rte_mbuf *): no Buffer is touched, a measured frame is its arrival time, kept until its flush.
//
// `Port` is the device's side:
//   using Frame = ...;
//   std::uint32_t bytes(Frame f);        a frame's length (a dropped frame's bytes)
//   void flushing(const std::int64_t *arrivals, std::uint32_t n);
//                                        a flush begins, its `n` measured frames (0: none)
//                                        completed now
//   void send(std::uint16_t out, Frame *f, std::uint32_t k, Device::TxRefused &refused);
//                                        out of port `out`; what it refused is freed, its
//                                        frames and bytes added to `refused`
//   void drop(Frame *f, std::uint32_t k);  frees frames the buffer had no room for
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <vector>

#include "engine/datapath/counters.h"
#include "engine/datapath/device.h"
#include "engine/datapath/drain_check.h"
#include "engine/datapath/tx_buffer_policy.h"

namespace ringlab {

// Frames received from one port in one burst: chunk[start, start + count), out of port `out`,
// their bytes, and their measured frames: `first`, then every `every` (SampleMarker).
struct PassRun {
    std::uint32_t start, count;
    std::uint16_t out;
    std::uint32_t first;
    std::uint64_t bytes;
};

template <class Port> class PassTxBuffer {
  public:
    using Frame = typename Port::Frame;
    static constexpr std::size_t kPorts = 2;

    // While nothing waits: room for tx.ring_size frames.
    void resize(std::uint32_t ring)
    {
        assert(pending_ == 0);
        for (PortFrames &p : port_)
            p.frames.assign(ring, Frame{});
        measured_.assign(ring, 0);
    }
    std::uint32_t pending() const { return pending_; }

    // A chunk of `k` frames in `nRuns` runs, arrived at `nowNs`, one in `every` measured, on its
    // way out, as Transmitter::xmit() posts one.
    void post(Frame *chunk, const PassRun *runs, std::uint32_t nRuns, std::uint32_t k,
              std::uint32_t every, const TxBufferPolicy &policy, std::int64_t nowNs, Port &port,
              Counters &c)
    {
        c.add(CounterId::Processed, k);
        const auto ring = static_cast<std::uint32_t>(measured_.size());
        if (policy.dueByRoom(ring - pending_) && flush(port, c) > 0)
            c.add(CounterId::TxInlineCleans);
        if (pending_ == 0 && k <= ring && policy.dueByCount(k)) {
            // Admitted whole and due at once: straight to the ports, nothing copied, as
            // testpmd's io engine sends a burst.
            std::uint32_t nm = 0;
            for (std::uint32_t i = 0; i < nRuns; ++i)
                nm += measuredBelow(runs[i].count, runs[i].first, every);
            std::fill_n(measured_.begin(), nm, nowNs);
            port.flushing(measured_.data(), nm);
            for (std::uint32_t i = 0; i < nRuns; ++i)
                send(port, runs[i].out, chunk + runs[i].start, runs[i].count, runs[i].bytes, c);
            c.add(CounterId::TxInlineCleans);
            return;
        }
        // What is not admitted is dropped, the chunk's last frames; a dropped frame is not
        // measured.
        const std::uint32_t fits = TxBufferPolicy::admit(k, ring - pending_);
        for (std::uint32_t i = 0; i < nRuns && runs[i].start < fits; ++i) {
            const PassRun &run = runs[i];
            const std::uint32_t kept = std::min(run.count, fits - run.start);
            std::uint64_t bytes = run.bytes;
            for (std::uint32_t f = kept; f < run.count; ++f)
                bytes -= port.bytes(chunk[run.start + f]);
            PortFrames &p = port_[run.out];
            std::copy_n(chunk + run.start, kept, p.frames.begin() + p.count);
            p.count += kept;
            p.bytes += bytes;
            const std::uint32_t nm = measuredBelow(kept, run.first, every);
            std::fill_n(measured_.begin() + nMeasured_, nm, nowNs);
            nMeasured_ += nm;
        }
        if (fits < k) {
            port.drop(chunk + fits, k - fits);
            c.add(CounterId::TxFull, k - fits);
        }
        pending_ += fits;
        if (policy.dueByCount(pending_) && flush(port, c) > 0) c.add(CounterId::TxInlineCleans);
    }

    // Everything waiting goes out, port by port, the measured frames completed now. Returns
    // how many frames went.
    std::uint32_t flush(Port &port, Counters &c)
    {
        if (pending_ == 0) return 0;
        port.flushing(measured_.data(), nMeasured_);
        nMeasured_ = 0;
        for (std::uint16_t out = 0; out < kPorts; ++out) {
            PortFrames &p = port_[out];
            if (p.count) send(port, out, p.frames.data(), p.count, p.bytes, c);
            p.count = 0;
            p.bytes = 0;
        }
        const std::uint32_t n = pending_;
        pending_ = 0;
        return n;
    }

    // The poll loop's check, once per round: what waits is flushed `periodNs`
    // (tx.coalesce_usecs) after it began to wait, counted as the staged path's drain (an arm, a
    // fire, a clean).
    void drainIfDue(std::int64_t nowNs, std::int64_t periodNs, Port &port, Counters &c)
    {
        if (drain_.due(pending_ > 0, nowNs, periodNs, c)) flush(port, c);
    }
    // The pass is left or the run ends: everything waiting goes out at once, as the staged TX
    // buffer's last reclaim (no fire counted: no period ended), and the next period starts
    // afresh.
    void leave(Port &port, Counters &c)
    {
        flush(port, c);
        drain_.reset();
    }

  private:
    // The frames waiting for one egress port, in order, and their bytes.
    struct PortFrames {
        std::vector<Frame> frames;
        std::uint32_t count = 0;
        std::uint64_t bytes = 0;
    };
    // Counted as the staged path's clean counts: sent is what the port took, a refused frame
    // is a drop (tx_full).
    static void send(Port &port, std::uint16_t out, Frame *f, std::uint32_t k, std::uint64_t bytes,
                     Counters &c)
    {
        Device::TxRefused refused;
        port.send(out, f, k, refused);
        c.add(CounterId::TxPackets, k - refused.frames);
        c.add(CounterId::TxBytes, bytes - refused.bytes);
        if (refused.frames) c.add(CounterId::TxFull, refused.frames);
    }
    // How many of frames `first`, `first + every`, ... lie below `n`.
    static std::uint32_t measuredBelow(std::uint32_t n, std::uint32_t first, std::uint32_t every)
    {
        return first < n ? (n - 1 - first) / every + 1 : 0;
    }

    std::array<PortFrames, kPorts> port_;
    std::uint32_t pending_ = 0;          // frames waiting, every port
    std::vector<std::int64_t> measured_; // the arrival of each measured frame waiting
    std::uint32_t nMeasured_ = 0;
    DrainCheck drain_;
};

} // namespace ringlab
