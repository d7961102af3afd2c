// SPDX-License-Identifier: GPL-2.0-or-later
// --set NAME=VALUE lines, one assignment per line, applied together as --set does, and each
// alone; then every value read back, applied together, must give the same set.
#include "engine/datapath/tunables.h"
#include "tests/fuzz/fuzz_target.h"

namespace ringlab::fuzz {

int tunableValues(const std::uint8_t *data, std::size_t size)
{
    Assignments all;
    std::string_view in = text(data, size);
    while (!in.empty()) {
        const auto nl = in.find('\n');
        const std::string_view line = in.substr(0, nl);
        in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
        const auto eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        all.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
        ParamSet one;
        const Status st = one.set(all.back().first, all.back().second);
        if (!st.ok() && st.error.empty()) __builtin_trap();
    }
    ParamSet ps;
    std::vector<Change> changes;
    if (ps.set(all, &changes).ok()) {
        // Round trip: every value's text, applied together (the cross rules relate tunables, so
        // one alone against the defaults may be refused), gives the same set back.
        Assignments texts;
        for (const auto &t : tunables())
            texts.emplace_back(std::string(t.name), ps.text(t.id));
        ParamSet again;
        if (!again.set(texts, nullptr).ok()) __builtin_trap();
        for (const auto &t : tunables())
            if (again.text(t.id) != ps.text(t.id)) __builtin_trap();
    }
    return 0;
}

} // namespace ringlab::fuzz

RINGLAB_FUZZ_ENTRY(tunableValues)
