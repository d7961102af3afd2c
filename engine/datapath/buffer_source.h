// SPDX-License-Identifier: GPL-2.0-or-later
// Where the datapath's packet buffers come from and go back to: the engine's own pool for
// the simulated NIC, the port's mbuf mempool for DPDK. Calls are per burst, never per packet.
#pragma once

#include <cstdint>

#include "engine/datapath/packet.h"

namespace ringlab {

class BufferSource {
  public:
    virtual ~BufferSource() = default;
    virtual std::uint32_t size() const = 0;
    virtual std::uint32_t available() const = 0;
    // Up to n buffers; fewer when the source runs dry.
    virtual std::uint32_t alloc(Buffer **out, std::uint32_t n) = 0;
    virtual void release(Buffer *const *bufs, std::uint32_t n) = 0;
};

} // namespace ringlab
