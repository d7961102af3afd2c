// SPDX-License-Identifier: GPL-2.0-or-later
// Whether this process may open raw network ports (DPDK's net_tap and net_af_packet): root, or
// the capabilities a service is given instead (ringlab-engine.service: CAP_NET_ADMIN and
// CAP_NET_RAW), read from the effective set rather than assumed from the user id.
#pragma once

namespace ringlab {

bool mayOpenRawPorts();

} // namespace ringlab
