// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/utf8_text.h"

namespace ringlab {

namespace {
// Length of the valid UTF-8 sequence at s[k], or 0.
std::size_t validSequence(std::string_view s, std::size_t k)
{
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char c = b(k);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (k + n > s.size()) return 0;
    for (std::size_t i = 1; i < n; ++i) {
        if ((b(k + i) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(k + i) & 0x3F);
    }
    static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}
} // namespace

std::string utf8OrEscaped(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t k = 0; k < s.size();) {
        if (const std::size_t n = validSequence(s, k)) {
            out.append(s.substr(k, n));
            k += n;
        } else {
            static constexpr char kHex[] = "0123456789abcdef";
            const auto c = static_cast<unsigned char>(s[k++]);
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

std::string terminalText(std::string_view s)
{
    std::string out;
    for (char ch : utf8OrEscaped(s)) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else {
            out += ch;
        }
    }
    return out;
}

std::size_t displayWidth(std::string_view s)
{
    std::size_t n = 0;
    for (const char ch : s)
        if ((static_cast<unsigned char>(ch) & 0xC0) != 0x80) ++n;
    return n;
}

} // namespace ringlab
