// SPDX-License-Identifier: GPL-2.0-or-later
// The processing stage: calibrated CPU work per packet, an optional payload copy to an
// application buffer, and the injection header built per packet or from a template.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/datapath/calibrated_spin.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/packet.h"
#include "engine/datapath/tunables.h"

namespace ringlab {

// Injection header field packing, after Linux lib/packing.c as ocelot used it.
void packField(std::uint8_t *buf, std::size_t len, int startBit, int endBit, std::uint64_t value);
inline constexpr std::size_t kInjectionHeaderBytes = 16;
void buildHeaderPerPacket(std::uint8_t *hdr, std::uint32_t port, std::uint64_t seq);
void buildHeaderPrecomputed(std::uint8_t *hdr, const std::uint8_t *tmpl, std::uint64_t seq);
// Fields packed per frame by each header mode: 8 per_packet, 1 precomputed, 0 none.
int headerFieldsPacked(HeaderMode mode);

// One processing context (a thread): its own application buffer and header template.
class Processor {
  public:
    explicit Processor(const LiveParams &live);
    // Stamps HandoffDone and Processed on each packet; returns when the batch was done (the
    // transmitter posts it at that instant, without a clock read of its own), or kNoReading
    // when there was nothing to do per packet and no packet of the batch is measured
    // (Buffer::sampled): then nothing read the clock.
    std::int64_t process(Buffer *const *bufs, std::uint32_t n);
    std::uint64_t checksum() const { return sink_; }

  private:
    // Each packet's work, copy and header (skipped whole when there is none).
    void processEach(Buffer *const *bufs, std::uint32_t n, std::int64_t work, bool copy,
                     HeaderMode header, std::int64_t headerCost);
    // HandoffDone and Processed, interpolated between the batch's start and end.
    static void stamp(Buffer *const *bufs, std::uint32_t n, std::int64_t start, std::int64_t end);

    const LiveParams &live_;
    std::vector<std::uint8_t> app_;
    std::uint8_t template_[kInjectionHeaderBytes]{};
    std::uint64_t sink_ = 0;
};

} // namespace ringlab
