// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel's CPU list format ("0-3,6", as in /sys/devices/system/cpu/online and
// Cpus_allowed_list), read and written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

// CPU numbers beyond this are refused (the kernel's CPU_SETSIZE is 1024).
inline constexpr int kMaxCpus = 8192;

// "0-2,5\n" -> {0, 1, 2, 5}; false for anything else (a negative or reversed range, a CPU at
// or beyond kMaxCpus, stray characters). A trailing newline is allowed.
bool parseCpuList(std::string_view text, std::vector<int> &out);
// {5, 0, 1, 2} -> "0-2,5" (sorted, duplicates dropped); "" for none.
std::string cpuListText(std::vector<int> cpus);

} // namespace ringlab
