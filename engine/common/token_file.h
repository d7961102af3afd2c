// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's access token from a file, for the server that checks it (`serve
// --token-file`) and for the desktop that presents it (`ringlab --token-file`, Connect's
// "From file…"): the same checks on both sides, so a token that others can read is refused
// wherever it is used.
#pragma once

#include <string>

#include "engine/common/status.h"

namespace ringlab {

// The token in `file`: a regular file of this user's, readable by no one else (mode 0600 or
// 0400), holding one word of at least 16 characters (trailing white space dropped). The
// error starts with `what` (e.g. "--token-file FILE") and says what is wrong and what is
// allowed.
[[nodiscard]] Status readTokenFile(const std::string &file, const std::string &what,
                                   std::string &token);

} // namespace ringlab
