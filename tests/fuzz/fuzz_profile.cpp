// SPDX-License-Identifier: GPL-2.0-or-later
// Profiles: any bytes as a profile file. The parser answers with an error, never throws.
#include "engine/profile/profile.h"
#include "tests/fuzz/fuzz_target.h"

namespace ringlab::fuzz {

int profile(const std::uint8_t *data, std::size_t size)
{
    const auto p = parseProfile(std::string(text(data, size)), "fuzz.json");
    if (p.ok()) {
        ParamSet ps; // what a loaded profile promises: its values are accepted as a whole
        if (!ps.set(p.value().values).ok()) __builtin_trap();
    } else if (p.status().outcome() != Outcome::Refused ||
               p.error().rfind("profile fuzz.json: ", 0) != 0) {
        __builtin_trap(); // bad text is refused, naming the file and then why
    }
    return 0;
}

} // namespace ringlab::fuzz

RINGLAB_FUZZ_ENTRY(profile)
