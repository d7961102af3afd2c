// SPDX-License-Identifier: GPL-2.0-or-later
// Text from outside (a label typed on stdin, a session name from a database) may not be valid
// UTF-8. It is stored as it came; where it goes into JSON, invalid bytes are written as the
// four characters \xNN, so nothing is lost and no serialiser fails on it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ringlab {

// `s` unchanged when it is valid UTF-8; else each byte that is not part of a valid sequence
// (overlong forms, surrogates and code points past U+10FFFF included) replaced by "\xNN".
std::string utf8OrEscaped(std::string_view s);

// Text as one line on a terminal: as utf8OrEscaped, and control characters (NUL, ESC,
// newline, DEL) as \xNN too, so stored text can neither break a table nor drive the terminal.
std::string terminalText(std::string_view s);

// The columns `s` takes on a terminal, for aligning a table: its code points (every byte but
// UTF-8's continuation bytes). Our headings and figures hold no double-width characters.
std::size_t displayWidth(std::string_view s);

} // namespace ringlab
