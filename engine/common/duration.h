// SPDX-License-Identifier: GPL-2.0-or-later
// Parses durations such as "10s", "500ms", "2m", "250us" or a plain number of seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ringlab {

std::optional<std::int64_t> parseDurationNs(const std::string &text);

} // namespace ringlab
