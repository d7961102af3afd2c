// SPDX-License-Identifier: GPL-2.0-or-later
// `ringlab-engine devices`: what the registry can create on this host.
#pragma once

namespace ringlab {

int devicesCommand(bool json);

} // namespace ringlab
