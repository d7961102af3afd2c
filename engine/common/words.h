// SPDX-License-Identifier: GPL-2.0-or-later
// Argument lists as text: split at white space ("-a 0000:03:00.0 -m 1024"), joined for
// messages. (Header only: the engine and the drivers use it.)
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace ringlab {

inline std::vector<std::string> splitWords(const std::string &s)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

inline std::string joinWords(const std::vector<std::string> &v, const char *sep = " ")
{
    std::string s;
    for (const auto &a : v)
        s += (s.empty() ? "" : sep) + a;
    return s;
}

} // namespace ringlab
