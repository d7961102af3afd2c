// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/datapath/processing.h"

#include <cstring>
#include <mutex>

#include "engine/datapath/buffer_pool.h"
#include "engine/datapath/clock.h"

namespace ringlab {

// Linux lib/packing.c semantics (no quirks): bits [endBit, startBit] of a big-endian
// buffer of `len` bytes receive `value`, one byte-aligned chunk at a time. Out of line and
// opaque to interprocedural optimisation, as packing() is in its own module: its loops run
// with run-time arguments instead of being folded into a few stores per field.
#ifdef __clang__
__attribute__((noinline))
#else
__attribute__((noipa))
#endif
void packField(std::uint8_t *buf, std::size_t len, int startBit, int endBit, std::uint64_t value)
{
    const int valueWidth = startBit - endBit + 1;
    if (valueWidth < 64) value &= (std::uint64_t{1} << valueWidth) - 1;
    const int plogicalFirstU8 = startBit / 8;
    const int plogicalLastU8 = endBit / 8;
    for (int box = plogicalFirstU8; box >= plogicalLastU8; --box) {
        const int boxStartBit = box == plogicalFirstU8 ? startBit % 8 : 7;
        const int boxEndBit = box == plogicalLastU8 ? endBit % 8 : 0;
        const int projStartBit = (box * 8 + boxStartBit) - endBit;
        const int projEndBit = (box * 8 + boxEndBit) - endBit;
        const std::uint8_t boxMask =
            static_cast<std::uint8_t>(((1u << (boxStartBit + 1)) - 1) & ~((1u << boxEndBit) - 1));
        const std::size_t boxAddr = len - 1 - static_cast<std::size_t>(box);
        const std::uint64_t projMask =
            ((projStartBit - projEndBit + 1) < 64
                 ? ((std::uint64_t{1} << (projStartBit - projEndBit + 1)) - 1)
                 : ~std::uint64_t{0})
            << projEndBit;
        const std::uint8_t pval =
            static_cast<std::uint8_t>(((value & projMask) >> projEndBit) << boxEndBit);
        buf[boxAddr] = static_cast<std::uint8_t>((buf[boxAddr] & ~boxMask) | (pval & boxMask));
    }
}

// Ocelot's injection frame header fields (bit positions from ocelot_ifh_set_*).
void buildHeaderPerPacket(std::uint8_t *hdr, std::uint32_t port, std::uint64_t seq)
{
    std::memset(hdr, 0, kInjectionHeaderBytes);
    packField(hdr, kInjectionHeaderBytes, 127, 127, 1);           // bypass
    packField(hdr, kInjectionHeaderBytes, 66, 56, 1u << port);    // destination ports
    packField(hdr, kInjectionHeaderBytes, 28, 20, 0);             // source port
    packField(hdr, kInjectionHeaderBytes, 19, 17, 0);             // QoS class
    packField(hdr, kInjectionHeaderBytes, 16, 16, 0);             // tag type
    packField(hdr, kInjectionHeaderBytes, 11, 0, 1);              // VLAN id
    packField(hdr, kInjectionHeaderBytes, 125, 117, seq & 0x1ff); // rewriter op
    packField(hdr, kInjectionHeaderBytes, 116, 85, static_cast<std::uint32_t>(seq)); // timestamp
}

int headerFieldsPacked(HeaderMode mode)
{
    switch (mode) {
    case HeaderMode::PerPacket:
        return 8;
    case HeaderMode::Precomputed:
        return 1;
    case HeaderMode::None:
        return 0;
    }
    return 0;
}

// As ocelot_port_inject_frame() after the fix: copy the port's template, then set only the
// field that differs per frame.
void buildHeaderPrecomputed(std::uint8_t *hdr, const std::uint8_t *tmpl, std::uint64_t seq)
{
    std::memcpy(hdr, tmpl, kInjectionHeaderBytes);
    packField(hdr, kInjectionHeaderBytes, 125, 117, seq & 0x1ff);
}

Processor::Processor(const LiveParams &live) : live_(live), app_(BufferPool::kDataRoom)
{
    buildHeaderPerPacket(template_, 1, 0);
    CalibratedSpin::tscPerNs();
}

std::int64_t Processor::process(Buffer *const *bufs, std::uint32_t n)
{
    const std::int64_t work = live_.integer(TunableId::ProcNsPerPacket);
    const bool copy = live_.flag(TunableId::ProcCopy);
    const auto header = live_.choice<HeaderMode>(TunableId::TxHeader);
    // The target's cost of packing, per field packed, on top of packField()'s own.
    const std::int64_t headerCost =
        live_.integer(TunableId::CostHeaderFieldNs) * headerFieldsPacked(header);
    if (work > 0 || copy || header != HeaderMode::None || headerCost > 0) {
        const std::int64_t start = nowNs();
        processEach(bufs, n, work, copy, header, headerCost);
        const std::int64_t end = nowNs();
        stamp(bufs, n, start, end);
        return end;
    }
    // Nothing to do per packet: the batch ends where it starts, one reading for both stamps,
    // and none when no packet of it is measured.
    bool measured = false;
    for (std::uint32_t k = 0; k < n; ++k)
        measured |= bufs[k]->sampled;
    if (!measured) return kNoReading;
    const std::int64_t now = nowNs();
    for (std::uint32_t k = 0; k < n; ++k)
        bufs[k]->at(Stage::HandoffDone) = bufs[k]->at(Stage::Processed) = now;
    return now;
}

void Processor::processEach(Buffer *const *bufs, std::uint32_t n, std::int64_t work, bool copy,
                            HeaderMode header, std::int64_t headerCost)
{
    for (std::uint32_t k = 0; k < n; ++k) {
        Buffer *b = bufs[k];
        CalibratedSpin::spinNs(work);
        if (copy) {
            std::memcpy(app_.data(), b->data, b->len);
            sink_ += app_[b->len - 1];
        }
        // The header goes in the buffer's headroom, ahead of the frame, so a real frame
        // crossing the engine leaves as it came (every buffer source keeps >= 64 bytes).
        std::uint8_t *hdr = b->data - kInjectionHeaderBytes;
        if (header == HeaderMode::PerPacket)
            buildHeaderPerPacket(hdr, 1, b->seq);
        else if (header == HeaderMode::Precomputed)
            buildHeaderPrecomputed(hdr, template_, b->seq);
        CalibratedSpin::spinNs(headerCost);
    }
}

void Processor::stamp(Buffer *const *bufs, std::uint32_t n, std::int64_t start, std::int64_t end)
{
    // Two clock reads per batch at most, not two per packet: every packet of a batch costs
    // the same (same work, same copy size class), so packet k's start and end are
    // interpolated.
    const double per = static_cast<double>(end - start) / n;
    for (std::uint32_t k = 0; k < n; ++k) {
        bufs[k]->at(Stage::HandoffDone) = start + static_cast<std::int64_t>(per * k);
        bufs[k]->at(Stage::Processed) = start + static_cast<std::int64_t>(per * (k + 1));
    }
}

} // namespace ringlab
