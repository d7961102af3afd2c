// SPDX-License-Identifier: GPL-2.0-or-later
// What a user types for a sweep or a tune, one item per line: "vary NAME=...",
// "grid NAME=...", "tie NAME=EXPR", "constraint METRIC OP X", "over NAME[=LO..HI]"; a line
// starting with '{' is a sweep description as the database holds it. Whatever parses is
// expanded into points (grids bounded here) and must come back from its JSON unchanged.
#include <nlohmann/json.hpp>

#include "engine/profile/sweep_spec.h"
#include "engine/tune/tuner.h"
#include "tests/fuzz/fuzz_target.h"

namespace ringlab::fuzz {

int sweepSpec(const std::uint8_t *data, std::size_t size)
{
    SweepSpec spec;
    std::string_view in = text(data, size);
    while (!in.empty()) {
        const auto nl = in.find('\n');
        const std::string_view line = in.substr(0, nl);
        in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
        const auto sp = line.find(' ');
        const std::string_view kind = line.substr(0, sp);
        const std::string_view rest =
            sp == std::string_view::npos ? std::string_view{} : line.substr(sp + 1);
        Status st;
        if (!line.empty() && line.front() == '{') {
            const auto j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_discarded()) continue;
            if (auto parsed = sweepSpecFromJson(j); parsed.ok()) spec = std::move(parsed).value();
            continue;
        }
        if (kind == "vary" || kind == "grid") {
            SweepAxis a;
            st = kind == "vary" ? parseVaryAxis(rest, a) : parseGridAxis(rest, a);
            if (st.ok()) spec.axes.push_back(a);
        } else if (kind == "tie") {
            SweepTie t;
            st = parseTie(rest, t);
            if (st.ok()) spec.ties.push_back(t);
        } else if (kind == "constraint") {
            Constraint c;
            st = parseConstraint(rest, c);
        } else if (kind == "over") {
            TuneAxis a;
            st = parseTuneAxis(rest, a);
        }
        if (!st.ok() && st.error.empty()) __builtin_trap(); // a refusal always says why
    }
    std::size_t points = 1;
    for (const auto &a : spec.axes)
        points *= std::max<std::size_t>(1, std::min<std::size_t>(a.values.size(), 1000));
    if (points <= 200 && spec.ties.size() <= 8) {
        std::vector<SweepPoint> out;
        const Status st = expandPoints(spec, ParamSet{}, out);
        if (!st.ok() && st.error.empty()) __builtin_trap();
    }
    const auto back = sweepSpecFromJson(sweepSpecToJson(spec));
    if (!back.ok()) {
        // Only what the reader refuses on purpose: a spec built from parsed parts is valid
        // unless its repeat/duration defaults were changed, which this target does not do.
        if (!spec.axes.empty() || !spec.ties.empty()) __builtin_trap();
    } else if (sweepSpecToJson(back.value()).dump() != sweepSpecToJson(spec).dump()) {
        __builtin_trap();
    }
    return 0;
}

} // namespace ringlab::fuzz

RINGLAB_FUZZ_ENTRY(sweepSpec)
