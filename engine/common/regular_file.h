// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a small file that must be a regular file (a profile): opened without blocking,
// so that a FIFO never hangs the reader, and refused with the reason when it is a FIFO, a
// device or a directory, or larger than the cap (a link to /dev/zero is not read at all).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "engine/common/status.h"

namespace ringlab {

// The whole file into `out`; on failure an error such as "is a FIFO, not a regular file" or
// "is 2097152 bytes, more than the 1 MiB allowed" (without the file's name: callers add it).
[[nodiscard]] Status readRegularFile(const std::filesystem::path &file, std::size_t maxBytes,
                                     std::string &out);

// "a FIFO", "a character device", ... for a file that is not a regular one; empty for a
// regular file or one that does not exist.
std::string specialFileKind(const std::filesystem::path &file);

} // namespace ringlab
