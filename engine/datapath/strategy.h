// SPDX-License-Identifier: GPL-2.0-or-later
// A family of interchangeable mechanisms that a choice tunable selects (refill.context,
// handoff.mode, poll.mode, fwd.mode), as testpmd's forwarding engines are: one table of
// {name, help, factory}, in the tunable's order. The registry reads its values and their help
// from the table; the datapath makes the chosen member through it. Families the poll loop runs
// itself (poll modes) have no factory.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace ringlab {

template <class Make = std::nullptr_t> struct Strategy {
    std::string_view name; // the tunable's value
    std::string_view help; // what it models, in a phrase
    Make make = nullptr;
};

template <class S, std::size_t N> constexpr std::array<std::string_view, N> namesOf(const S (&t)[N])
{
    std::array<std::string_view, N> out{};
    for (std::size_t k = 0; k < N; ++k)
        out[k] = t[k].name;
    return out;
}

template <class S, std::size_t N> constexpr std::array<std::string_view, N> helpsOf(const S (&t)[N])
{
    std::array<std::string_view, N> out{};
    for (std::size_t k = 0; k < N; ++k)
        out[k] = t[k].help;
    return out;
}

} // namespace ringlab
